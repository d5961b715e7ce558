import { FakeSlackApi, visibleMessage, type FakeMessage } from '../../fakes/slack-api.js';
import { SlackInjector } from '../../fakes/slack-events.js';
import type { History } from './history.js';
import { Interposer, slackCall, type Exchange, type Reply } from './interposer.js';
import type { RedisWatch } from './redis-watch.js';

const SECRET = 'reliability-signing-secret';
const TOKEN = /^([0-9A-Za-z]{12,24})\.\d+\./;
const QUESTION = { id: 'env', header: 'Deploy', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }, { label: 'Canary' }] };

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

  private constructor(
    readonly fake: FakeSlackApi,
    readonly interposer: Interposer,
    private readonly history: History,
  ) {
    interposer.onExchange = (ex, reply, note) => this.record(ex, reply, note);
  }

  /** Starts the fake Web API and its interposer. */
  static async start(history: History): Promise<SlackRig> {
    const fake = await FakeSlackApi.start();
    return new SlackRig(fake, await Interposer.start(fake.url, slackCall), history);
  }

  /** Env of an askgate child in HTTP mode against this rig. */
  env(): Record<string, string> {
    return { SLACK_BOT_TOKEN: this.fake.token, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: `${this.interposer.url}/api/` };
  }

  /** An injector posting to `baseUrl`'s `/slack/events`. */
  injector(baseUrl: string): SlackInjector {
    return new SlackInjector(`${baseUrl}/slack/events`, SECRET, this.fake);
  }

  /** Creates an ask in a fresh channel; answers restricted to `user` when `restrict`. */
  async ask(api: { post: (p: string, b?: unknown) => Promise<{ status: number; body: any }> }, options: { timeoutSeconds: number; user: string; restrict?: boolean }): Promise<{ askId: string; chat: string }> {
    const chat = `C9${String(++this.nextChannel).padStart(6, '0')}`;
    this.fake.channels.add(chat);
    const runId = `sl-${this.history.name}-${++this.nextRun}`;
    const to = { channel: 'slack', chat, ...(options.restrict ? { users: [options.user] } : {}) };
    const res = await api.post('/v1/asks', { runId, questions: [QUESTION], to, timeoutSeconds: options.timeoutSeconds });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.channelAsk.set(chat, res.body.id);
    this.history.inject('create', { askId: res.body.id, runId, version: res.body.version, platform: 'slack', data: { chat, timeoutSeconds: options.timeoutSeconds, expiresAt: res.body.expiresAt, ...(options.restrict ? { users: [options.user] } : {}) } });
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
  async tap(injector: SlackInjector, askId: string, message: FakeMessage, label: string, user: string, kind: 'tap' | 'duplicate' = 'tap', extra: Record<string, unknown> = {}): Promise<void> {
    const button = visibleMessage(message).buttons.find((b) => b.label === label);
    if (!button) throw new Error(`no Slack button ${label}`);
    const tapId = `sl-tap-${++this.tapSeq}`;
    this.history.inject(kind, { askId, actor: user, platform: 'slack', data: { tapId, label, ...extra } });
    const started = Date.now();
    const res = await injector.postInteractive(injector.blockAction(message, button.data, user)).catch(() => ({ status: 0, text: '' }));
    this.history.observe('toast', { platform: 'slack', result: '', data: { via: 'ack', tapId, ok: res.status === 200, status: res.status, ms: Date.now() - started } });
  }

  /** A thread reply, sent once plus `retries` Events API retries (X-Slack-Retry-Num 1..n) of the same event. */
  async threadReply(injector: SlackInjector, askId: string, message: FakeMessage, text: string, user: string, retries: number): Promise<void> {
    const event = injector.messageEvent({ channel: message.channel, user, text, threadTs: message.ts });
    this.history.inject('reply', { askId, actor: user, platform: 'slack', data: { retries } });
    const sends = [injector.postEvent(event)];
    for (let n = 1; n <= retries; n++) {
      this.history.inject('duplicate', { askId, actor: user, platform: 'slack', data: { retryNum: n, kind: 'events-api-retry' } });
      sends.push(injector.postEvent(event, { retryNum: n, retryReason: 'http_timeout' }));
    }
    await Promise.all(sends);
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
      this.history.observe('toast', { askId: this.channelAsk.get(p.channel), actor: p.user, platform: 'slack', result: String(p.text ?? ''), data: { via: 'ephemeral', ok } });
    } else if (ex.call === 'chat.update') {
      const message = `${String(p.channel)}:${String(p.ts)}`;
      const same = ok && this.lastEdit.get(message) === `${p.text}${p.blocks}`;
      if (ok) this.lastEdit.set(message, `${p.text}${p.blocks}`);
      this.history.observe('edit', { askId: this.channelAsk.get(p.channel), platform: 'slack', result: same ? 'not_modified' : ok ? 'ok' : status || 'reset', data: { message, note, error: reply?.body?.error } });
    } else {
      const blocks = typeof p.blocks === 'string' ? p.blocks : '';
      const token = /"value":"([^"]+)"/.exec(blocks)?.[1];
      const askId = token ? TOKEN.exec(token)?.[1] : undefined;
      if (ex.call === 'chat.postMessage' && ok && askId) this.sends.set(askId, (this.sends.get(askId) ?? 0) + 1);
      this.history.observe('platform', { platform: 'slack', ...(askId ? { askId } : {}), data: { call: ex.call, status, ms: reply?.ms ?? null, note, error: reply?.body?.error } });
    }
  }
}
