import { request as httpRequest } from 'node:http';
import { FakeSlackApi, visibleMessage, type FakeMessage } from '../../fakes/slack-api.js';
import { SlackInjector, slackSignature } from '../../fakes/slack-events.js';
import type { History } from './history.js';
import { Interposer, slackCall, type Exchange, type Reply } from './interposer.js';
import type { RedisWatch } from './redis-watch.js';

const SECRET = 'reliability-signing-secret';
const TOKEN = /^([0-9A-Za-z]{12,24})\.\d+\./;
const QUESTION = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }, { label: 'Canary' }],
};

/** What Slack got back from one HTTP delivery to askgate (status 0: refused, reset or no answer within 3 s). */
export interface SlackHttpAnswer {
  status: number;
  ms: number;
  /** Why there was no HTTP answer (`timeout`, `ECONNREFUSED`, `ECONNRESET`, ...). */
  error?: string;
}

/** Hooks on one delivery to askgate (crash points reached from the platform's side). */
export interface SlackHttpHooks {
  /** The request is on the wire (written to askgate's socket), its answer not yet read. */
  onWritten?: (attempt: number) => void;
  /** askgate answered; runs before Slack acts on the answer. */
  onAnswer?: (answer: SlackHttpAnswer, attempt: number) => void;
}

/**
 * The Events API retry schedule (Slack: at once, after 1 min, after 5 min), compressed: delays
 * before retries 1, 2 and 3 of an event askgate did not answer with 2xx within 3 s.
 */
export const EVENT_RETRY_DELAYS_MS = [500, 2500, 6000] as const;
/** Slack's window for an HTTP answer. */
export const SLACK_HTTP_WINDOW_MS = 3000;

/**
 * POSTs a signed body to askgate the way Slack does: v0 signature, `X-Slack-Retry-*` headers on
 * retries, and at most {@link SLACK_HTTP_WINDOW_MS} to answer (then the connection is dropped).
 */
export function postSigned(
  url: string,
  secret: string,
  rawBody: string,
  contentType: string,
  retry: { num: number; reason: string } | null,
  hooks: SlackHttpHooks = {},
  attempt = 0,
): Promise<SlackHttpAnswer> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(rawBody)),
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(secret, timestamp, rawBody),
    ...(retry ? { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason } : {}),
  };
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: SlackHttpAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      hooks.onAnswer?.(answer, attempt);
      resolve(answer);
    };
    const target = new URL(url);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => finish({ status: res.statusCode ?? 0, ms: Date.now() - started }));
        res.on('error', (err) =>
          finish({ status: 0, ms: Date.now() - started, error: (err as NodeJS.ErrnoException).code ?? err.message }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({ status: 0, ms: Date.now() - started, error: 'timeout' });
      req.destroy();
    }, SLACK_HTTP_WINDOW_MS);
    req.on('error', (err) =>
      finish({ status: 0, ms: Date.now() - started, error: (err as NodeJS.ErrnoException).code ?? err.message }),
    );
    req.end(rawBody, () => hooks.onWritten?.(attempt));
  });
}

/**
 * The Slack side of a reliability run: the fake Web API behind an interposer (every call askgate
 * makes becomes a history event: ephemeral notices, `chat.update` edits, sends), and a signed
 * injector that plays Slack towards askgate's `/slack/events` (taps, thread replies, retries).
 * Each ask gets its own channel, so an ephemeral notice (channel, user) names its ask.
 */
export class SlackRig {
  private nextChannel = 0;
  private nextRun = 0;
  private readonly channelAsk = new Map<string, string>();
  private readonly lastEdit = new Map<string, string>();
  /** Successful question posts per ask (more than one = a duplicate message). */
  readonly sends = new Map<string, number>();
  private tapSeq = 0;
  /** Builds signed-request payloads (block_actions, message events); its own URL is never used. */
  private readonly payloads: SlackInjector;

  private constructor(
    readonly fake: FakeSlackApi,
    readonly interposer: Interposer,
    private readonly history: History,
  ) {
    interposer.onExchange = (ex, reply, note) => this.record(ex, reply, note);
    this.payloads = new SlackInjector('http://payload-builder.invalid/slack/events', SECRET, fake);
  }

  /** Starts the fake Web API and its interposer. */
  static async start(history: History): Promise<SlackRig> {
    const fake = await FakeSlackApi.start();
    return new SlackRig(fake, await Interposer.start(fake.url, slackCall), history);
  }

  /** Env of an askgate child in HTTP mode against this rig. */
  env(): Record<string, string> {
    return {
      SLACK_BOT_TOKEN: this.fake.token,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: `${this.interposer.url}/api/`,
    };
  }

  /** Env of an askgate child in Socket Mode against this rig (the Web API, apps.connections.open included, through the interposer). */
  socketEnv(): Record<string, string> {
    return {
      SLACK_BOT_TOKEN: this.fake.token,
      SLACK_APP_TOKEN: this.fake.appToken,
      SLACK_API_URL: `${this.interposer.url}/api/`,
    };
  }

  /** An injector posting to `baseUrl`'s `/slack/events`. */
  injector(baseUrl: string): SlackInjector {
    return new SlackInjector(`${baseUrl}/slack/events`, SECRET, this.fake);
  }

  /** Creates an ask in a fresh channel; answers restricted to `user` when `restrict`. */
  async ask(
    api: { post: (p: string, b?: unknown) => Promise<{ status: number; body: any }> },
    options: { timeoutSeconds: number; user: string; restrict?: boolean },
  ): Promise<{ askId: string; chat: string }> {
    const chat = `C9${String(++this.nextChannel).padStart(6, '0')}`;
    this.fake.channels.add(chat);
    const runId = `sl-${this.history.name}-${++this.nextRun}`;
    const to = { channel: 'slack', chat, ...(options.restrict ? { users: [options.user] } : {}) };
    const res = await api.post('/v1/asks', {
      runId,
      questions: [QUESTION],
      to,
      timeoutSeconds: options.timeoutSeconds,
    });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.channelAsk.set(chat, res.body.id);
    this.history.inject('create', {
      askId: res.body.id,
      runId,
      version: res.body.version,
      platform: 'slack',
      data: {
        chat,
        timeoutSeconds: options.timeoutSeconds,
        expiresAt: res.body.expiresAt,
        ...(options.restrict ? { users: [options.user] } : {}),
      },
    });
    return { askId: res.body.id, chat };
  }

  /** Waits until every ask's message is posted; returns them by ask id. */
  async allPosted(watch: RedisWatch, askIds: readonly string[], ms = 30_000): Promise<Map<string, FakeMessage>> {
    const out = new Map<string, FakeMessage>();
    const until = Date.now() + ms;
    while (out.size < askIds.length && Date.now() < until) {
      for (const [id, r] of await watch.getMany(askIds.filter((x) => !out.has(x)))) {
        const m = r?.deliveries[0]?.message;
        const stored = m ? this.fake.message(m.chat, m.messageId) : undefined;
        if (stored) out.set(id, structuredClone(stored));
      }
      if (out.size < askIds.length) await new Promise((r) => setTimeout(r, 100));
    }
    if (out.size < askIds.length) throw new Error(`${askIds.length - out.size} Slack asks not posted within ${ms} ms`);
    return out;
  }

  /** A button press by `user` POSTed to askgate; the HTTP answer is the platform ack (3 s window). */
  async tap(
    injector: SlackInjector,
    askId: string,
    message: FakeMessage,
    label: string,
    user: string,
    kind: 'tap' | 'duplicate' = 'tap',
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const button = visibleMessage(message).buttons.find((b) => b.label === label);
    if (!button) throw new Error(`no Slack button ${label}`);
    const tapId = `sl-tap-${++this.tapSeq}`;
    this.history.inject(kind, { askId, actor: user, platform: 'slack', data: { tapId, label, ...extra } });
    const started = Date.now();
    const res = await injector
      .postInteractive(injector.blockAction(message, button.data, user))
      .catch(() => ({ status: 0, text: '' }));
    this.history.observe('toast', {
      platform: 'slack',
      result: '',
      data: { via: 'ack', tapId, ok: res.status === 200, status: res.status, ms: Date.now() - started },
    });
  }

  /** A thread reply, sent once plus `retries` Events API retries (X-Slack-Retry-Num 1..n) of the same event. */
  async threadReply(
    injector: SlackInjector,
    askId: string,
    message: FakeMessage,
    text: string,
    user: string,
    retries: number,
  ): Promise<void> {
    const event = injector.messageEvent({ channel: message.channel, user, text, threadTs: message.ts });
    this.history.inject('reply', { askId, actor: user, platform: 'slack', data: { retries } });
    const sends = [injector.postEvent(event)];
    for (let n = 1; n <= retries; n++) {
      this.history.inject('duplicate', {
        askId,
        actor: user,
        platform: 'slack',
        data: { retryNum: n, kind: 'events-api-retry' },
      });
      sends.push(injector.postEvent(event, { retryNum: n, retryReason: 'http_timeout' }));
    }
    await Promise.all(sends);
  }

  /**
   * One button press delivered to askgate's fixed request URL `eventsUrl` (HTTP mode). Slack does
   * not retry interactivity requests: without a 200 within 3 s the person sees an error and may
   * tap again (a new request). Records the tap and Slack's view of the ack.
   */
  async tapAt(
    eventsUrl: string,
    askId: string,
    message: FakeMessage,
    label: string,
    user: string,
    options: { kind?: 'tap' | 'duplicate'; extra?: Record<string, unknown>; hooks?: SlackHttpHooks } = {},
  ): Promise<SlackHttpAnswer> {
    const button = visibleMessage(message).buttons.find((b) => b.label === label);
    if (!button) throw new Error(`no Slack button ${label}`);
    const tapId = `sl-tap-${++this.tapSeq}`;
    this.history.inject(options.kind ?? 'tap', {
      askId,
      actor: user,
      platform: 'slack',
      data: { tapId, label, ...options.extra },
    });
    const payload = this.payloads.blockAction(message, button.data, user);
    const answer = await postSigned(
      eventsUrl,
      SECRET,
      `payload=${encodeURIComponent(JSON.stringify(payload))}`,
      'application/x-www-form-urlencoded',
      null,
      options.hooks,
    );
    this.history.observe('toast', {
      platform: 'slack',
      result: '',
      data: {
        via: 'ack',
        tapId,
        ok: answer.status === 200,
        status: answer.status,
        ms: answer.ms,
        ...(answer.error ? { error: answer.error } : {}),
      },
    });
    return answer;
  }

  /**
   * A thread reply delivered as an Events API request to `eventsUrl`, re-sent like Slack while
   * askgate does not answer 2xx within 3 s: retries 1..3 (same event, `X-Slack-Retry-Num`,
   * `X-Slack-Retry-Reason`) after {@link EVENT_RETRY_DELAYS_MS}. Each retry is a `duplicate`
   * event; each answer a `platform` event (`call: events-api`). Resolves with the last answer.
   */
  async replyAt(
    eventsUrl: string,
    askId: string,
    message: FakeMessage,
    text: string,
    user: string,
    hooks: SlackHttpHooks = {},
  ): Promise<{ attempts: number; answer: SlackHttpAnswer }> {
    const event = this.payloads.messageEvent({ channel: message.channel, user, text, threadTs: message.ts });
    const raw = JSON.stringify(event);
    this.history.inject('reply', {
      askId,
      actor: user,
      platform: 'slack',
      data: { eventId: (event as { event_id: string }).event_id },
    });
    let answer: SlackHttpAnswer = { status: 0, ms: 0 };
    for (let attempt = 0; attempt <= EVENT_RETRY_DELAYS_MS.length; attempt++) {
      let retry: { num: number; reason: string } | null = null;
      if (attempt > 0) {
        await new Promise((r) => setTimeout(r, EVENT_RETRY_DELAYS_MS[attempt - 1]));
        retry = {
          num: attempt,
          reason:
            answer.error === 'timeout' ? 'http_timeout' : answer.status >= 400 ? 'http_error' : 'connection_failed',
        };
        this.history.inject('duplicate', {
          askId,
          actor: user,
          platform: 'slack',
          data: { kind: 'events-api-retry', retryNum: attempt, retryReason: retry.reason },
        });
      }
      answer = await postSigned(eventsUrl, SECRET, raw, 'application/json', retry, hooks, attempt);
      this.history.observe('platform', {
        askId,
        platform: 'slack',
        result: answer.status,
        data: { call: 'events-api', attempt, ms: answer.ms, ...(answer.error ? { error: answer.error } : {}) },
      });
      if (answer.status >= 200 && answer.status < 300) return { attempts: attempt + 1, answer };
    }
    return { attempts: EVENT_RETRY_DELAYS_MS.length + 1, answer };
  }

  /**
   * A button press delivered over Socket Mode (an `interactive` envelope). Returns the envelope id
   * at once and a promise of its ack (re-sends included); a `toast` ack event is recorded when
   * the first send was acked (an ack after a re-send is Slack's retry, not askgate's latency).
   */
  tapSocket(
    askId: string,
    message: FakeMessage,
    label: string,
    user: string,
    ackTimeoutMs = 30_000,
  ): { envelopeId: string; acked: Promise<boolean> } {
    const button = visibleMessage(message).buttons.find((b) => b.label === label);
    if (!button) throw new Error(`no Slack button ${label}`);
    const payload = this.payloads.blockAction(message, button.data, user);
    return this.envelope('interactive', payload, { askId, actor: user, kind: 'tap', label }, ackTimeoutMs);
  }

  /** A thread reply delivered over Socket Mode (an `events_api` envelope); see {@link tapSocket}. */
  replySocket(
    askId: string,
    message: FakeMessage,
    text: string,
    user: string,
    ackTimeoutMs = 30_000,
  ): { envelopeId: string; acked: Promise<boolean> } {
    const event = this.payloads.messageEvent({ channel: message.channel, user, text, threadTs: message.ts });
    return this.envelope('events_api', event, { askId, actor: user, kind: 'reply' }, ackTimeoutMs);
  }

  private envelope(
    type: 'interactive' | 'events_api',
    payload: object,
    who: { askId: string; actor: string; kind: 'tap' | 'reply'; label?: string },
    ackTimeoutMs: number,
  ): { envelopeId: string; acked: Promise<boolean> } {
    const started = Date.now();
    const sending = this.fake.sendEnvelope(type, payload, {}, { ackTimeoutMs });
    const envelopeId = this.fake.envelopeSends.at(-1)!.envelope_id;
    this.history.inject(who.kind, {
      askId: who.askId,
      actor: who.actor,
      platform: 'slack',
      data: { ...(who.kind === 'tap' ? { tapId: envelopeId, label: who.label } : {}), envelopeId, socketMode: true },
    });
    const acked = sending.then(
      () => {
        const resent = this.fake.envelopeSends.some((e) => e.envelope_id === envelopeId && e.retry_attempt > 0);
        if (who.kind === 'tap' && !resent)
          this.history.observe('toast', {
            platform: 'slack',
            result: '',
            data: { via: 'ack', tapId: envelopeId, ok: true, ms: Date.now() - started },
          });
        this.history.observe('platform', {
          askId: who.askId,
          platform: 'slack',
          result: 'acked',
          data: { call: 'socket-ack', envelopeId, resent, ms: Date.now() - started },
        });
        return true;
      },
      () => false,
    );
    return { envelopeId, acked };
  }

  /** Closes the interposer and the fake. */
  async close(): Promise<void> {
    await this.interposer.close();
    await this.fake.close();
  }

  private record(ex: Exchange, reply: Reply | null, note: string): void {
    const p = ex.params;
    const ok = reply?.status === 200 && reply.body?.ok === true;
    const status = reply?.status ?? 0;
    if (ex.call === 'chat.postEphemeral') {
      this.history.observe('toast', {
        askId: this.channelAsk.get(p.channel),
        actor: p.user,
        platform: 'slack',
        result: String(p.text ?? ''),
        data: { via: 'ephemeral', ok },
      });
    } else if (ex.call === 'chat.update') {
      const message = `${String(p.channel)}:${String(p.ts)}`;
      const same = ok && this.lastEdit.get(message) === `${p.text}${p.blocks}`;
      if (ok) this.lastEdit.set(message, `${p.text}${p.blocks}`);
      this.history.observe('edit', {
        askId: this.channelAsk.get(p.channel),
        platform: 'slack',
        result: same ? 'not_modified' : ok ? 'ok' : status || 'reset',
        data: { message, note, error: reply?.body?.error },
      });
    } else {
      const blocks = typeof p.blocks === 'string' ? p.blocks : '';
      const token = /"value":"([^"]+)"/.exec(blocks)?.[1];
      const askId = token ? TOKEN.exec(token)?.[1] : undefined;
      if (ex.call === 'chat.postMessage' && ok && askId) this.sends.set(askId, (this.sends.get(askId) ?? 0) + 1);
      // `at`: when askgate made the call; `messageId`: the ts Slack gave the message (to tell a duplicate from the recorded one).
      this.history.observe('platform', {
        platform: 'slack',
        ...(askId ? { askId } : {}),
        data: {
          call: ex.call,
          status,
          ms: reply?.ms ?? null,
          note,
          error: reply?.body?.error,
          at: ex.at,
          ...(reply?.body?.ts ? { messageId: String(reply.body.ts) } : {}),
        },
      });
    }
  }
}
