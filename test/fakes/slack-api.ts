import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

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

const BOT = { user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0001', team: 'askgate-test' };

/**
 * A fake Slack Web API and Socket Mode endpoint on 127.0.0.1: `POST /api/<method>` with
 * form-urlencoded or JSON bodies, bearer-token checks, Block Kit limit checks, error and 429
 * injection, a call log, and a WebSocket server that sends `hello` and envelopes and records acks.
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
  private readonly failures = new Map<string, FakeFailure[]>();
  private readonly sockets = new Set<WebSocket>();
  private seq = 0;
  private envelopeSeq = 0;
  private wss!: WebSocketServer;

  private constructor(private readonly server: Server) {}

  /** Starts the fake on a free loopback port. */
  static async start(): Promise<FakeSlackApi> {
    const server = createServer();
    const fake = new FakeSlackApi(server);
    server.on('request', (req, res) => void fake.onRequest(req, res));
    fake.wss = new WebSocketServer({ server, path: '/link' });
    fake.wss.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
      socket.on('message', (data) => {
        const msg = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
        if (msg.envelope_id) fake.acks.set(msg.envelope_id, msg.payload);
      });
      socket.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0001' } }));
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

  /** Ephemeral notices shown to a user. */
  ephemeralsFor(user: string): FakeEphemeral[] {
    return this.ephemerals.filter((e) => e.user === user);
  }

  /** Sends a Socket Mode envelope to every connection; resolves with the envelope id once acked. */
  async sendEnvelope(type: 'interactive' | 'events_api', payload: object, extra: { retry_attempt?: number; retry_reason?: string } = {}): Promise<string> {
    const envelope_id = `env-${++this.envelopeSeq}`;
    const frame = JSON.stringify({ envelope_id, type, payload, accepts_response_payload: type === 'interactive', ...extra });
    for (const socket of this.sockets) socket.send(frame);
    const until = Date.now() + 5000;
    while (!this.acks.has(envelope_id)) {
      if (Date.now() > until) throw new Error(`envelope ${envelope_id} was not acked`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return envelope_id;
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
    if (req.method !== 'POST' || !method) return send(404, { ok: false, error: 'unknown_method' });
    const params = parseParams(req.headers['content-type'] ?? '', raw);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? params.token;
    this.calls.push({ method, params });
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      if ('retryAfter' in failure) return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      if ('status' in failure) return send(failure.status, { ok: false, error: 'fatal_error' });
      return send(200, { ok: false, error: failure.error });
    }
    const expected = method === 'apps.connections.open' ? this.appToken : this.token;
    if (bearer !== expected) return send(200, { ok: false, error: bearer ? 'invalid_auth' : 'not_authed' });
    send(200, this.handle(method, params));
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
        const message: FakeMessage = { channel: p.channel, ts, text: p.text ?? '', blocks: p.blocks ?? [], user: BOT.user_id, bot_id: BOT.bot_id, edits: 0, ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}) };
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
        this.ephemerals.push({ channel: p.channel, user: p.user, text: p.text ?? '', ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}) });
        return { ok: true, message_ts: `${1_800_000_000 + ++this.seq}.000000` };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

function parseParams(contentType: string, raw: string): Record<string, any> {
  if (contentType.includes('application/json')) return raw ? JSON.parse(raw) : {};
  const params: Record<string, any> = Object.fromEntries(new URLSearchParams(raw));
  // Nested fields arrive JSON-stringified.
  for (const key of ['blocks', 'attachments', 'metadata']) {
    if (typeof params[key] === 'string') params[key] = JSON.parse(params[key]);
  }
  return params;
}

/** Block Kit limits Slack enforces on chat.postMessage and chat.update; the error code, or null. */
function checkMessage(p: Record<string, any>): string | null {
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
      if (!b.text || typeof b.text.text !== 'string' || b.text.text.length === 0 || b.text.text.length > 3000) return 'invalid_blocks';
    } else if (b.type === 'actions') {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 25) return 'invalid_blocks';
      for (const e of b.elements) {
        if (e.type !== 'button' || e.text?.type !== 'plain_text' || typeof e.text.text !== 'string') return 'invalid_blocks';
        if (e.text.text.length === 0 || e.text.text.length > 75 || String(e.value ?? '').length > 2000) return 'invalid_blocks';
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

/** A stored message as a person sees it: section and context texts (entities decoded) and its buttons. */
export function visibleMessage(message: FakeMessage): { text: string; buttons: { label: string; data: string }[] } {
  const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const texts = message.blocks.flatMap((b: any) =>
    b.type === 'section' ? [b.text.text] : b.type === 'context' ? b.elements.map((e: any) => e.text) : [],
  );
  const buttons = message.blocks.flatMap((b: any) => (b.type === 'actions' ? b.elements : [])).map((e: any) => ({ label: decode(e.text.text), data: e.value }));
  return { text: decode(texts.length > 0 ? texts.join('\n') : message.text), buttons };
}
