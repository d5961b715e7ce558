import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { checkModal, TRIGGER_LIFETIME_MS, type FakeTrigger, type FakeView } from './slack-views.js';

/** A message the fake stores, as Slack stores it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks: any[];
  user: string;
  bot_id: string;
  edits: number;
}

/** A recorded chat.postEphemeral. */
export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
}

/** One Web API call as the fake received it (parsed params, token without the secret part). */
export interface FakeCall {
  method: string;
  params: Record<string, any>;
}

/** What the next call of a method gets instead of its normal answer. */
export type FakeFailure = { status: 429; retryAfter: number } | { status: 500 | 502 | 503 } | { error: string };

/** Options of {@link FakeSlackApi.start}. */
export interface FakeSlackOptions {
  /**
   * The fake's clock in epoch ms, for credential lifetimes (`response_url` expires 30 min after it
   * was issued). Default `Date.now`; a test drives it to simulate long waits on virtual time.
   */
  now?: () => number;
}

/** How long a `response_url` stays valid (Slack: 30 min). */
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;
/** How many times a `response_url` can be used (Slack: 5). */
export const RESPONSE_URL_MAX_USES = 5;

/** A `response_url` the fake issued, for the message a tap was on. */
export interface FakeResponseUrl {
  id: string;
  url: string;
  /** When it was issued (the fake's clock). */
  issuedAt: number;
  /** The message the interaction was on and who acted: `replace_original`/`delete_original` act on it, ephemeral responses go to `user`. */
  message?: { channel: string; ts: string; user?: string };
  /** Accepted uses so far. */
  uses: number;
}

/** One POST to a `response_url`, accepted or not. */
export interface ResponseUrlCall {
  id: string;
  /** The fake's clock when the call arrived. */
  at: number;
  /** Age of the URL at that moment (ms since issued); null for a URL the fake never issued. */
  ageMs: number | null;
  /** True when the URL was older than {@link RESPONSE_URL_LIFETIME_MS}. */
  expired: boolean;
  status: number;
  /** The error answered (`expired_url`, `used_url`, `invalid_url`), absent when accepted. */
  error?: string;
  body: any;
}

/** One Socket Mode envelope frame the fake wrote: a first send or a re-send. */
export interface FakeEnvelopeSend {
  envelope_id: string;
  type: string;
  /** 0 for the first send; each re-send of the same envelope adds 1. */
  retry_attempt: number;
  /** Epoch ms. */
  at: number;
  /** Open connections it was written to (0: sent while no socket was connected). */
  connections: number;
}

const BOT = { user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0001', team: 'askgate-test' };

/**
 * A fake Slack Web API and Socket Mode endpoint on 127.0.0.1: `POST /api/<method>` with
 * form-urlencoded or JSON bodies, bearer-token checks, Block Kit limit checks, error and 429
 * injection, a call log, and a WebSocket server that sends `hello` and envelopes and records acks.
 * `response_url`s it issues ({@link FakeSlackApi.issueResponseUrl}) take 5 POSTs within 30 min
 * on its clock ({@link FakeSlackOptions.now}); later ones get 404 `expired_url` and are counted.
 */
export class FakeSlackApi {
  readonly token = 'xoxb-fake';
  readonly appToken = 'xapp-fake';
  readonly channels = new Set(['C0001', 'C0002', 'G0001', 'D0001']);
  readonly messages = new Map<string, FakeMessage>();
  readonly ephemerals: FakeEphemeral[] = [];
  readonly calls: FakeCall[] = [];
  /** Acks received over Socket Mode, by envelope id. */
  readonly acks = new Map<string, unknown>();
  /**
   * Socket Mode re-delivery as Slack does it (off by default): an envelope that is not acked when
   * the connection it went out on closes (the app killed, the socket cut), or that went out while
   * no connection was open, is re-sent on the next connection right after its `hello`, with the
   * same `envelope_id`, `retry_attempt` + 1 and `retry_reason: 'timeout'`.
   */
  redeliverUnacked = false;
  /**
   * With {@link redeliverUnacked}: also re-send an envelope still unacked this many ms after its
   * last send on the live connection (Slack's retry after a timeout), at most 3 retries in all.
   * Default null: re-sent only on a new connection.
   */
  redeliverAfterMs: number | null = null;
  /**
   * Sees each Socket Mode ack as it arrives, before it counts. Returning `'drop'` loses the ack in
   * transit: it is not recorded and its connection is cut (so with {@link redeliverUnacked} the
   * envelope is re-sent on the next connection). Default: none, every ack counts.
   */
  onAck: ((envelopeId: string) => 'drop' | void) | null = null;
  /** Every Socket Mode envelope frame written (first sends and re-sends), in order. */
  readonly envelopeSends: FakeEnvelopeSend[] = [];
  private readonly unacked = new Map<
    string,
    { type: string; payload: object; attempt: number; sentOn: Set<WebSocket> }
  >();
  /** `response_url`s issued with {@link issueResponseUrl}, by id. */
  readonly responseUrls = new Map<string, FakeResponseUrl>();
  /** Every POST to a `/response/<id>` URL, in order. */
  readonly responseUrlCalls: ResponseUrlCall[] = [];
  /** The fake's clock (epoch ms), see {@link FakeSlackOptions.now}. */
  readonly now: () => number;
  /** trigger_ids issued in interaction payloads ({@link issueTrigger}), by id. */
  readonly triggers = new Map<string, FakeTrigger>();
  /** Views opened with views.open, in order. */
  readonly views: FakeView[] = [];
  private readonly failures = new Map<string, FakeFailure[]>();
  private readonly sockets = new Set<WebSocket>();
  private seq = 0;
  private envelopeSeq = 0;
  private wss!: WebSocketServer;

  private constructor(
    private readonly server: Server,
    options: FakeSlackOptions,
  ) {
    this.now = options.now ?? (() => Date.now());
  }

  /** Starts the fake on a free loopback port. */
  static async start(options: FakeSlackOptions = {}): Promise<FakeSlackApi> {
    const server = createServer();
    const fake = new FakeSlackApi(server, options);
    server.on('request', (req, res) => void fake.onRequest(req, res));
    fake.wss = new WebSocketServer({ server, path: '/link' });
    fake.wss.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
      socket.on('message', (data) => {
        // A connection the fake cut delivers nothing more (frames ws had already buffered are lost with it).
        if (socket.readyState !== socket.OPEN) return;
        const msg = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
        if (msg.envelope_id && fake.onAck?.(msg.envelope_id) === 'drop') return void socket.terminate();
        if (msg.envelope_id) fake.acks.set(msg.envelope_id, msg.payload);
        if (msg.envelope_id) fake.unacked.delete(msg.envelope_id);
      });
      socket.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0001' } }));
      if (fake.redeliverUnacked) fake.redeliver(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** Base URL, e.g. `http://127.0.0.1:1234`; the Web API lives under `/api/`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Number of open Socket Mode connections. */
  get socketCount(): number {
    return this.sockets.size;
  }

  /** The next call(s) of `method` fail as given, in order. */
  failNext(method: string, ...failures: FakeFailure[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...failures]);
  }

  /** A stored message by channel and ts. */
  message(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.get(`${channel}:${ts}`);
  }

  /** Calls of one method. */
  callsOf(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /**
   * Issues a `response_url` now (the fake's clock), as Slack puts one in every interaction
   * payload: POSTs to it are accepted 5 times within 30 min, then answered 404 `used_url` /
   * `expired_url`. Put it in a `block_actions` payload's `response_url`.
   */
  issueResponseUrl(message?: { channel: string; ts: string; user?: string }): string {
    const id = randomBytes(9).toString('hex');
    const url = `${this.url}/response/${id}`;
    this.responseUrls.set(id, { id, url, issuedAt: this.now(), uses: 0, ...(message ? { message } : {}) });
    return url;
  }

  /**
   * Issues a trigger_id for an interaction by `user` now (the fake's clock), as Slack puts a fresh one
   * in every block_actions and view_submission payload: views.open takes it once, within 3 s.
   */
  issueTrigger(user: string): string {
    const id = `${++this.seq}.${String(this.now()).slice(-8)}.${randomBytes(8).toString('hex')}`;
    this.triggers.set(id, { user, issuedAt: this.now(), used: false });
    return id;
  }

  /** The views opened for `user`, oldest first. */
  viewsFor(user: string): FakeView[] {
    return this.views.filter((v) => v.user === user);
  }

  /** POSTs that used a `response_url` past its 30 min lifetime (whatever the fake answered). */
  get expiredResponseUrlCalls(): ResponseUrlCall[] {
    return this.responseUrlCalls.filter((c) => c.expired);
  }

  /** Ephemeral notices shown to a user. */
  ephemeralsFor(user: string): FakeEphemeral[] {
    return this.ephemerals.filter((e) => e.user === user);
  }

  /**
   * Sends a Socket Mode envelope to every connection; resolves with the envelope id once acked
   * (rejects after `ackTimeoutMs`, default 5 s; acks of re-sends count too).
   */
  async sendEnvelope(
    type: 'interactive' | 'events_api',
    payload: object,
    extra: { retry_attempt?: number; retry_reason?: string } = {},
    options: { ackTimeoutMs?: number } = {},
  ): Promise<string> {
    const envelope_id = `env-${++this.envelopeSeq}`;
    const frame = JSON.stringify({
      envelope_id,
      type,
      payload,
      accepts_response_payload: type === 'interactive',
      ...extra,
    });
    if (this.redeliverUnacked)
      this.unacked.set(envelope_id, {
        type,
        payload,
        attempt: extra.retry_attempt ?? 0,
        sentOn: new Set(this.sockets),
      });
    this.envelopeSends.push({
      envelope_id,
      type,
      retry_attempt: extra.retry_attempt ?? 0,
      at: Date.now(),
      connections: this.sockets.size,
    });
    for (const socket of this.sockets) socket.send(frame);
    const until = Date.now() + (options.ackTimeoutMs ?? 5000);
    let lastSent = Date.now();
    while (!this.acks.has(envelope_id)) {
      if (Date.now() > until) throw new Error(`envelope ${envelope_id} was not acked`);
      if (this.redeliverAfterMs !== null && Date.now() - lastSent >= this.redeliverAfterMs) {
        lastSent = Date.now();
        this.resendLive(envelope_id);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return envelope_id;
  }

  /** Re-sends an unacked envelope on the open connections (see {@link redeliverAfterMs}); none open: the next `hello` does it. */
  private resendLive(envelope_id: string): void {
    const e = this.unacked.get(envelope_id);
    const open = [...this.sockets].filter((s) => s.readyState === s.OPEN);
    if (!e || e.attempt >= 3 || open.length === 0) return;
    e.attempt++;
    e.sentOn = new Set(open);
    this.envelopeSends.push({
      envelope_id,
      type: e.type,
      retry_attempt: e.attempt,
      at: Date.now(),
      connections: open.length,
    });
    const frame = JSON.stringify({
      envelope_id,
      type: e.type,
      payload: e.payload,
      accepts_response_payload: e.type === 'interactive',
      retry_attempt: e.attempt,
      retry_reason: 'timeout',
    });
    for (const socket of open) socket.send(frame);
  }

  /** Cuts every Socket Mode connection (as a network drop would: no close handshake). */
  dropSockets(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  /** Re-sends, on a new connection, every unacked envelope whose connection is gone (see {@link redeliverUnacked}). */
  private redeliver(socket: WebSocket): void {
    for (const [envelope_id, e] of this.unacked) {
      if ([...e.sentOn].some((s) => s !== socket && s.readyState === s.OPEN)) continue;
      e.attempt++;
      e.sentOn = new Set([socket]);
      this.envelopeSends.push({ envelope_id, type: e.type, retry_attempt: e.attempt, at: Date.now(), connections: 1 });
      socket.send(
        JSON.stringify({
          envelope_id,
          type: e.type,
          payload: e.payload,
          accepts_response_payload: e.type === 'interactive',
          retry_attempt: e.attempt,
          retry_reason: 'timeout',
        }),
      );
    }
  }

  /** Stops the HTTP and WebSocket servers. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = /^\/api\/([\w.]+)$/.exec(req.url ?? '')?.[1];
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const responseId = /^\/response\/([\w-]+)$/.exec(req.url ?? '')?.[1];
    if (req.method === 'POST' && responseId) {
      let params: Record<string, any>;
      try {
        params = parseParams(req.headers['content-type'] ?? 'application/json', raw);
      } catch {
        return send(400, { ok: false, error: 'invalid_json' });
      }
      const [status, body] = this.respond(responseId, params);
      return send(status, body);
    }
    if (req.method !== 'POST' || !method) return send(404, { ok: false, error: 'unknown_method' });
    const params = parseParams(req.headers['content-type'] ?? '', raw);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? params.token;
    this.calls.push({ method, params });
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      if ('retryAfter' in failure)
        return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      if ('status' in failure) return send(failure.status, { ok: false, error: 'fatal_error' });
      return send(200, { ok: false, error: failure.error });
    }
    const expected = method === 'apps.connections.open' ? this.appToken : this.token;
    if (bearer !== expected) return send(200, { ok: false, error: bearer ? 'invalid_auth' : 'not_authed' });
    send(200, this.handle(method, params));
  }

  /** A POST to a `response_url`: Slack's limits (30 min, 5 uses), then the message it asks for. */
  private respond(id: string, p: Record<string, any>): [number, object] {
    const issued = this.responseUrls.get(id);
    const at = this.now();
    const ageMs = issued ? at - issued.issuedAt : null;
    const call: ResponseUrlCall = {
      id,
      at,
      ageMs,
      expired: ageMs !== null && ageMs > RESPONSE_URL_LIFETIME_MS,
      status: 404,
      body: p,
    };
    this.responseUrlCalls.push(call);
    const refuse = (error: string): [number, object] => {
      call.error = error;
      return [404, { ok: false, error }];
    };
    if (!issued) return refuse('invalid_url');
    if (call.expired) return refuse('expired_url');
    if (issued.uses >= RESPONSE_URL_MAX_USES) return refuse('used_url');
    issued.uses++;
    const original = issued.message && this.message(issued.message.channel, issued.message.ts);
    if (p.delete_original === true || p.delete_original === 'true') {
      if (original) this.messages.delete(`${original.channel}:${original.ts}`);
    } else if (p.replace_original === true || p.replace_original === 'true') {
      if (!original) return refuse('message_not_found');
      const invalid = checkMessage(p);
      if (invalid) {
        call.status = 400;
        call.error = invalid;
        return [400, { ok: false, error: invalid }];
      }
      if (p.text !== undefined) original.text = p.text;
      if (p.blocks !== undefined) original.blocks = p.blocks;
      original.edits++;
    } else if (issued.message) {
      // An ephemeral response by default, like Slack (`response_type: in_channel` posts a message).
      if (p.response_type === 'in_channel') {
        const n = ++this.seq;
        const ts = `${1_700_000_000 + n}.${String(n).padStart(6, '0')}`;
        this.messages.set(`${issued.message.channel}:${ts}`, {
          channel: issued.message.channel,
          ts,
          text: p.text ?? '',
          blocks: p.blocks ?? [],
          user: BOT.user_id,
          bot_id: BOT.bot_id,
          edits: 0,
        });
      } else {
        this.ephemerals.push({ channel: issued.message.channel, user: issued.message.user ?? '', text: p.text ?? '' });
      }
    }
    call.status = 200;
    return [200, { ok: true }];
  }

  private handle(method: string, p: Record<string, any>): object {
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://askgate-test.slack.com/', user: 'askgate', ...BOT };
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/link?ticket=fake` };
      case 'chat.postMessage': {
        if (!this.channels.has(p.channel)) return { ok: false, error: 'channel_not_found' };
        const invalid = checkMessage(p);
        if (invalid) return { ok: false, error: invalid };
        const n = ++this.seq;
        const ts = `${1_700_000_000 + n}.${String(n).padStart(6, '0')}`;
        const message: FakeMessage = {
          channel: p.channel,
          ts,
          text: p.text ?? '',
          blocks: p.blocks ?? [],
          user: BOT.user_id,
          bot_id: BOT.bot_id,
          edits: 0,
          ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
        };
        this.messages.set(`${p.channel}:${ts}`, message);
        return { ok: true, channel: p.channel, ts, message: { type: 'message', ...message } };
      }
      case 'chat.update': {
        if (!this.channels.has(p.channel)) return { ok: false, error: 'channel_not_found' };
        const message = this.message(p.channel, p.ts);
        if (!message) return { ok: false, error: 'message_not_found' };
        const invalid = checkMessage(p);
        if (invalid) return { ok: false, error: invalid };
        if (p.text !== undefined) message.text = p.text;
        // Like Slack: blocks left out are kept; an empty array removes them.
        if (p.blocks !== undefined) message.blocks = p.blocks;
        message.edits++;
        return { ok: true, channel: p.channel, ts: p.ts, text: message.text };
      }
      case 'chat.postEphemeral': {
        if (!this.channels.has(p.channel)) return { ok: false, error: 'channel_not_found' };
        if (!p.user) return { ok: false, error: 'user_not_in_channel' };
        this.ephemerals.push({
          channel: p.channel,
          user: p.user,
          text: p.text ?? '',
          ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
        });
        return { ok: true, message_ts: `${1_800_000_000 + ++this.seq}.000000` };
      }
      case 'views.open':
        return this.openView(p);
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /**
   * views.open as Slack answers it: the trigger_id must be one the fake issued (else
   * `invalid_trigger_id`), unused (`exchanged_trigger_id`) and at most 3 s old on the fake's clock
   * (`expired_trigger_id`); a view breaking a modal limit is `invalid_arguments`. A refused call
   * does not use the trigger up.
   */
  private openView(p: Record<string, any>): object {
    const trigger = typeof p.trigger_id === 'string' ? this.triggers.get(p.trigger_id) : undefined;
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS) return { ok: false, error: 'expired_trigger_id' };
    const problem = checkModal(p.view);
    if (problem)
      return { ok: false, error: 'invalid_arguments', response_metadata: { messages: [`invalid view: ${problem}`] } };
    trigger.used = true;
    const id = `V${String(++this.seq).padStart(8, '0')}`;
    const opened: FakeView = { id, user: trigger.user, trigger_id: p.trigger_id, view: p.view, hash: `${id}.hash` };
    this.views.push(opened);
    return {
      ok: true,
      view: { id, team_id: BOT.team_id, app_id: 'A0001', bot_id: BOT.bot_id, hash: opened.hash, ...p.view },
    };
  }
}

function parseParams(contentType: string, raw: string): Record<string, any> {
  if (contentType.includes('application/json')) return raw ? JSON.parse(raw) : {};
  const params: Record<string, any> = Object.fromEntries(new URLSearchParams(raw));
  // Nested fields arrive JSON-stringified.
  for (const key of ['blocks', 'attachments', 'metadata', 'view']) {
    if (typeof params[key] === 'string') params[key] = JSON.parse(params[key]);
  }
  return params;
}

/** Block Kit limits Slack enforces on chat.postMessage and chat.update; the error code, or null. */
export function checkMessage(p: Record<string, any>): string | null {
  if (p.blocks === undefined && !p.text) return 'no_text';
  const blocks: any[] = p.blocks ?? [];
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  for (const b of blocks) {
    if (b.block_id !== undefined) {
      if (blockIds.has(b.block_id) || String(b.block_id).length > 255) return 'invalid_blocks';
      blockIds.add(b.block_id);
    }
    if (b.type === 'section') {
      // @slack/types SectionBlock: `text` (1-3000), or `fields` alone (1-10, each 1-2000).
      if (b.text === undefined && b.fields === undefined) return 'invalid_blocks';
      if (
        b.text !== undefined &&
        (typeof b.text.text !== 'string' || b.text.text.length === 0 || b.text.text.length > 3000)
      )
        return 'invalid_blocks';
      if (b.fields !== undefined && !fieldsOk(b.fields)) return 'invalid_blocks';
    } else if (b.type === 'rich_text') {
      if (!richTextOk(b)) return 'invalid_blocks';
    } else if (b.type === 'actions') {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 25) return 'invalid_blocks';
      for (const e of b.elements) {
        if (e.type !== 'button' || e.text?.type !== 'plain_text' || typeof e.text.text !== 'string')
          return 'invalid_blocks';
        if (e.text.text.length === 0 || e.text.text.length > 75 || String(e.value ?? '').length > 2000)
          return 'invalid_blocks';
        if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger') return 'invalid_blocks';
        // A URL button (@slack/types Button.url): 1-3000 characters, opened in the person's browser.
        if (e.url !== undefined && (typeof e.url !== 'string' || e.url.length === 0 || e.url.length > 3000))
          return 'invalid_blocks';
        if (!e.action_id || String(e.action_id).length > 255 || actionIds.has(e.action_id)) return 'invalid_blocks';
        actionIds.add(e.action_id);
      }
    } else if (b.type === 'context') {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) return 'invalid_blocks';
      if (b.elements.some((e: any) => typeof e.text !== 'string' || e.text.length > 2000)) return 'invalid_blocks';
    } else {
      return 'invalid_blocks';
    }
  }
  if (typeof p.text === 'string' && p.text.length > 40_000) return 'msg_too_long';
  return null;
}

/** A section's fields as @slack/types declares them: 1 to 10 text objects of 1 to 2000 characters. */
function fieldsOk(fields: any): boolean {
  return (
    Array.isArray(fields) &&
    fields.length > 0 &&
    fields.length <= 10 &&
    fields.every(
      (f: any) =>
        (f?.type === 'mrkdwn' || f?.type === 'plain_text') &&
        typeof f.text === 'string' &&
        f.text.length > 0 &&
        f.text.length <= 2000,
    )
  );
}

/**
 * A rich_text block as @slack/types declares it (RichTextBlock): sections and preformatted blocks of
 * `text` elements (style bold/italic/strike/code). Slack documents no length for them: the fake takes
 * up to 4000 characters a block, more than askgate ever sends.
 */
function richTextOk(b: any): boolean {
  if (!Array.isArray(b.elements) || b.elements.length === 0) return false;
  let length = 0;
  for (const part of b.elements) {
    if (part?.type !== 'rich_text_section' && part?.type !== 'rich_text_preformatted') return false;
    if (!Array.isArray(part.elements) || part.elements.length === 0) return false;
    for (const e of part.elements) {
      if (e?.type !== 'text' || typeof e.text !== 'string' || e.text.length === 0) return false;
      const style = e.style ?? {};
      if (Object.keys(style).some((k) => !['bold', 'italic', 'strike', 'code'].includes(k))) return false;
      length += e.text.length;
    }
  }
  return length <= 4000;
}

/** The text of a rich_text block as a person reads it: a preformatted part fenced with ``` lines. */
function richTextOf(b: any): string {
  return b.elements
    .map((part: any) => {
      const text = part.elements.map((e: any) => e.text).join('');
      return part.type === 'rich_text_preformatted' ? `\`\`\`\n${text}\n\`\`\`` : text;
    })
    .join('\n');
}

/** A stored message as a person sees it: section texts and fields, context texts, rich text (entities decoded) and its buttons (`data`: the value, or a URL button's url). */
export function visibleMessage(message: FakeMessage): { text: string; buttons: { label: string; data: string }[] } {
  const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const texts = message.blocks.flatMap((b: any) =>
    b.type === 'section'
      ? [...(b.text ? [b.text.text] : []), ...(b.fields ?? []).map((f: any) => f.text)]
      : b.type === 'context'
        ? b.elements.map((e: any) => e.text)
        : b.type === 'rich_text'
          ? [richTextOf(b)]
          : [],
  );
  const buttons = message.blocks
    .flatMap((b: any) => (b.type === 'actions' ? b.elements : []))
    .map((e: any) => ({ label: decode(e.text.text), data: e.value ?? e.url }));
  return { text: decode(texts.length > 0 ? texts.join('\n') : message.text), buttons };
}
