import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import {
  ChannelError,
  type Clock,
  type RenderedWebhook,
  type WebhookPayload,
  type WebhookSender,
} from '../core/ports.js';
import { WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, signWebhook } from './signing.js';
import { ALLOWED_HOSTS_SETTING, EXTERNAL_ONLY, type HostAllowList } from './allowed-hosts.js';
import { systemClock } from '../system-clock.js';

/** Resolves a host name to its addresses (default: the system resolver, like `dns.lookup`). */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** Options of {@link HttpWebhookSender}. */
export interface HttpWebhookSenderOptions {
  /** HMAC-SHA256 key (`ASKGATE_WEBHOOK_SECRET`). */
  secret: string;
  /** Deadline of one POST (resolution, connection and response headers), in ms (default 10 000). */
  timeoutMs?: number;
  /** Where webhooks may go (`ASKGATE_WEBHOOK_ALLOWED_HOSTS`, default `external`). */
  allowedHosts?: HostAllowList;
  /** Host name resolver (tests: a name that resolves to a refused address). */
  resolve?: ResolveHost;
  /** Source of the signing time and of `Retry-After` dates (default: the system clock). */
  clock?: Clock;
}

/** Longest `Retry-After` honoured, so a receiver cannot park a job for days. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** The one failure recorded for a refused target: nothing about what answered there. */
const REFUSED = `webhook refused by ${ALLOWED_HOSTS_SETTING}`;

/** The addresses a connection may use: all of them for a name matching a host pattern, else the allowed ones. */
export function allowedAddresses<T extends { address: string; family: number }>(
  hostname: string,
  addresses: T[],
  allowed: HostAllowList,
  family?: number,
): T[] {
  const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
  return allowed.matchesName(hostname) ? usable : usable.filter((a) => allowed.allowsAddress(a.address));
}

/**
 * POSTs signed webhook payloads. Each attempt is signed afresh (a new timestamp), redirects are
 * not followed, and the response body is never read. The target must pass the allow list twice:
 * on the URL (IP literals) and on the addresses its name resolves to, inside the connection's own
 * lookup, so the address checked is the address connected to (no DNS rebinding). 2xx is success;
 * 408, 429, 5xx and network errors are retried by the outbox; any other status, and a refused
 * target, is permanent. Errors never carry the URL (it may hold a secret) nor what a refused
 * target answered.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;
  private readonly allowed: HostAllowList;
  private readonly resolve: ResolveHost;
  private readonly clock: Clock;

  constructor(private readonly opts: HttpWebhookSenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.allowed = opts.allowedHosts ?? EXTERNAL_ONLY;
    this.resolve = opts.resolve ?? ((hostname) => dnsLookup(hostname, { all: true }));
    this.clock = opts.clock ?? systemClock;
  }

  /** Why `url` may not be a callbackUrl (a refused literal address or `localhost`), or undefined. */
  refusal(url: URL): string | undefined {
    return this.allowed.refusal(url);
  }

  /**
   * Signs and POSTs one payload (or its rendering in another protocol's format, whose own headers
   * come first so none can replace the signature); throws {@link ChannelError} unless the receiver
   * answered 2xx.
   */
  async send(url: string, payload: WebhookPayload, rendered?: RenderedWebhook): Promise<{ status: number }> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ChannelError('webhook refused: the callbackUrl is not a valid URL', true);
    }
    if (target.username !== '' || target.password !== '')
      throw new ChannelError('webhook refused: the callbackUrl carries credentials', true);
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new ChannelError('webhook refused: the callbackUrl is not http(s)', true);
    if (this.allowed.refusal(target)) throw new ChannelError(REFUSED, true);
    const body = rendered ? rendered.body : JSON.stringify(payload);
    const timestamp = Math.floor(this.clock.now() / 1000);
    const headers = {
      ...(rendered ? lowerCased(rendered.headers) : {}),
      'content-type': rendered ? rendered.contentType : 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'askgate-webhook/1',
      [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(this.opts.secret, timestamp, body),
    };
    let response: { status: number; headers: IncomingHttpHeaders };
    try {
      response = await this.post(target, headers, body);
    } catch (error) {
      // A refused address and the timeout reach here already as the ChannelError to throw.
      if (error instanceof ChannelError) throw error;
      throw new ChannelError(
        `webhook request failed: ${String((error as { code?: unknown }).code ?? 'network error')}`,
        false,
      );
    }
    const { status } = response;
    if (status >= 200 && status < 300) return { status };
    const retryable = status === 408 || status === 429 || status >= 500;
    const header = response.headers['retry-after'];
    throw new ChannelError(
      `webhook answered HTTP ${status}`,
      !retryable,
      retryAfterMs(typeof header === 'string' ? header : null, this.clock.now()),
    );
  }

  /** One POST without following redirects; resolves on the response headers and drops the body unread. */
  private post(
    target: URL,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; headers: IncomingHttpHeaders }> {
    const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      // IP literals skip the lookup: refusal() above already checked them.
      const req = request(
        {
          hostname,
          port: target.port || undefined,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers,
          agent: false,
          lookup: this.lookup(),
        },
        (res) => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers });
          res.destroy();
        },
      );
      const timer = setTimeout(
        () => req.destroy(new ChannelError(`webhook request failed: no response within ${this.timeoutMs} ms`, false)),
        this.timeoutMs,
      );
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(body);
    });
  }

  /** A `net` lookup that resolves the name and hands the socket only allowed addresses. */
  private lookup(): LookupFunction {
    return (hostname, options, callback) => {
      const done = callback as (
        err: Error | null,
        address: string | { address: string; family: number }[],
        family?: number,
      ) => void;
      this.resolve(hostname).then(
        (all) => {
          const usable = allowedAddresses(
            hostname,
            all,
            this.allowed,
            options.family === 4 || options.family === 6 ? options.family : undefined,
          );
          if (usable.length === 0) done(new ChannelError(REFUSED, true), '');
          else if (options.all) done(null, usable);
          else done(null, usable[0]!.address, usable[0]!.family);
        },
        (error: Error) => done(error, ''),
      );
    };
  }
}

function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
