import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request askgate made to a platform fake, as the interposer saw it. */
export interface Exchange {
  id: number;
  /** Platform call name: `sendMessage`, `chat.update`, `PATCH /channels/:id/messages/:id`. */
  call: string;
  method: string;
  /** Request path (may contain a bot token: never log it). */
  path: string;
  /** Parsed JSON or form parameters ({} when neither). */
  params: Record<string, any>;
  /** When the request arrived (epoch ms). */
  at: number;
}

/** The fake's answer to an exchange. */
export interface Reply {
  status: number;
  body: any;
  ms: number;
}

/** What to do before forwarding: nothing (forward), answer instead of the fake, reset, or never answer. */
export type BeforeVerdict =
  void | { respond: { status: number; body: unknown; headers?: Record<string, string> } } | 'reset' | 'hang';
/** What to do with the fake's answer: pass it on (default) or reset the connection instead. */
export type AfterVerdict = void | 'reset';

/** Fault and crash-point hooks; both may await (a stall, a kill of askgate). */
export interface InterposerHooks {
  before?: (ex: Exchange) => BeforeVerdict | Promise<BeforeVerdict>;
  after?: (ex: Exchange, reply: Reply) => AfterVerdict | Promise<AfterVerdict>;
}

/** How a request maps to a platform call name. */
export type CallNamer = (method: string, path: string) => string;

/** Telegram: `POST /bot<token>/<method>`. */
export const telegramCall: CallNamer = (_m, path) => /^\/bot[^/]+\/([A-Za-z]+)/.exec(path)?.[1] ?? path;
/** Slack: `POST /api/<method>`. */
export const slackCall: CallNamer = (_m, path) => /^\/api\/([\w.]+)/.exec(path)?.[1] ?? path;
/** Discord: `METHOD /route` with snowflakes and tokens replaced. */
export const discordCall: CallNamer = (m, path) =>
  `${m} ${path
    .replace(/^\/api\/v\d+/, '')
    .replace(/\?.*$/, '')
    .replace(/\/interactions\/\d+\/[^/]+/, '/interactions/:id/:token')
    .replace(/\/webhooks\/\d+\/[^/]+/, '/webhooks/:id/:token')
    .replace(/\d{5,}/g, ':id')}`;

function parse(raw: string, type: string): Record<string, any> {
  try {
    if (type.includes('json')) return raw ? (JSON.parse(raw) as Record<string, any>) : {};
    if (type.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  } catch {
    // not parseable: hooks see {}
  }
  return {};
}

/**
 * An HTTP interposer between askgate and a platform fake: forwards every request, reports each
 * exchange, and lets a test inject faults (a 429 or 5xx instead of the fake's answer, a reset,
 * a stall) or crash askgate at an exact point (e.g. after the fake applied an edit, before
 * askgate hears back). A client that goes away aborts the forwarded request, so the fake sees
 * what Telegram would (a long poll whose caller died keeps its updates).
 */
export class Interposer {
  /** Active hooks: the first `before` verdict wins; any `after` reset wins. Tests add and remove their own. */
  readonly hooks = new Set<InterposerHooks>();
  /** Called for every finished exchange (status 0 when reset or hung). */
  onExchange: (ex: Exchange, reply: Reply | null, note: string) => void = () => {};
  private seq = 0;
  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    private readonly namer: CallNamer,
  ) {}

  /** Starts an interposer on a free loopback port in front of `upstreamUrl` (origin only). */
  static async start(upstreamUrl: string, namer: CallNamer): Promise<Interposer> {
    let self: Interposer | null = null;
    const server = createServer((req, res) => void self!.handle(req, res));
    self = new Interposer(server, new URL(upstreamUrl), namer);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return self;
  }

  /** Origin askgate should use instead of the fake's. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops the server and drops its connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '/';
    const ex: Exchange = {
      id: ++this.seq,
      call: this.namer(req.method ?? 'GET', path),
      method: req.method ?? 'GET',
      path,
      params: parse(raw.toString('utf8'), String(req.headers['content-type'] ?? '')),
      at: Date.now(),
    };
    let verdict: BeforeVerdict = undefined;
    for (const hook of [...this.hooks]) {
      verdict = await hook.before?.(ex);
      if (verdict) break;
    }
    if (verdict === 'reset') {
      res.socket?.resetAndDestroy();
      return this.onExchange(ex, null, 'reset before forwarding');
    }
    if (verdict === 'hang') return this.onExchange(ex, null, 'hung');
    if (verdict && typeof verdict === 'object') {
      const { status, body, headers } = verdict.respond;
      if (!res.destroyed)
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      return this.onExchange(ex, { status, body, ms: Date.now() - ex.at }, 'injected');
    }
    const forwarded = await this.forward(req, res, raw, path);
    if (!forwarded) return this.onExchange(ex, null, 'client went away');
    const reply: Reply = {
      status: forwarded.status,
      body: parse(forwarded.body.toString('utf8'), 'json'),
      ms: Date.now() - ex.at,
    };
    let after: AfterVerdict = undefined;
    for (const hook of [...this.hooks]) after = (await hook.after?.(ex, reply)) ?? after;
    if (after === 'reset') {
      res.socket?.resetAndDestroy();
      return this.onExchange(ex, reply, 'reset after the fake answered');
    }
    if (!res.destroyed) res.writeHead(forwarded.status, forwarded.headers).end(forwarded.body);
    this.onExchange(ex, reply, '');
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    raw: Buffer,
    path: string,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer } | null> {
    return new Promise((resolve) => {
      const headers = { ...req.headers, host: this.upstream.host, 'content-length': String(raw.length) };
      const upstream = httpRequest(
        { host: this.upstream.hostname, port: this.upstream.port, method: req.method, path, headers },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(up.headers))
              if (typeof v === 'string' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
            resolve({ status: up.statusCode ?? 502, headers: out, body: Buffer.concat(body) });
          });
          up.on('error', () => resolve(null));
        },
      );
      upstream.on('error', () => resolve(null));
      // The caller died (kill -9) or gave up: abort, so the fake sees the close.
      res.on('close', () => {
        if (!res.writableEnded) upstream.destroy();
      });
      upstream.end(raw);
    });
  }
}
