import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Name of the console's session cookie. */
export const SESSION_COOKIE = 'askgate_session';
/** Request header carrying the per-session CSRF token on every state-changing console request. */
export const CSRF_HEADER = 'x-askgate-csrf';
/** How long a console session lasts (seconds): the operator types the token about once a week. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const SID_OPEN = 'open';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const b64url = (buf: Buffer) => buf.toString('base64url');

/** Constant-time equality of two strings (lengths may differ). */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Console sessions: stateless, HMAC-signed cookies `<sid>.<expires>.<mac>`. The key is derived
 * from `ASKGATE_API_TOKEN`, so every replica accepts the same sessions and rotating the token
 * ends them all; the cookie never holds the token itself. Without a token the console is open
 * (askgate then listens on loopback) and a random per-process key only signs CSRF tokens.
 */
export class ConsoleAuth {
  private readonly key: Buffer;

  constructor(
    readonly apiToken: string | undefined,
    private readonly nowMs: () => number = () => Date.now(),
  ) {
    this.key = apiToken ? createHmac('sha256', apiToken).update('askgate console session v1').digest() : randomBytes(32);
  }

  /** True when no API token is configured: no login, loopback only. */
  get open(): boolean {
    return this.apiToken === undefined;
  }

  private mac(purpose: string, value: string): string {
    return b64url(createHmac('sha256', this.key).update(`${purpose}:${value}`).digest());
  }

  /** A new signed session value for the cookie. */
  issue(): { cookie: string; sid: string } {
    const sid = b64url(randomBytes(18));
    const expires = Math.floor(this.nowMs() / 1000) + SESSION_TTL_SECONDS;
    const payload = `${sid}.${expires}`;
    return { cookie: `${payload}.${this.mac('session', payload)}`, sid };
  }

  /** The session id of a valid, unexpired cookie value, else null. */
  verify(value: string | undefined): string | null {
    const match = /^([A-Za-z0-9_-]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!match) return null;
    const [, sid, expires, mac] = match as unknown as [string, string, string, string];
    if (!safeEqual(mac, this.mac('session', `${sid}.${expires}`))) return null;
    return Number(expires) * 1000 > this.nowMs() ? sid : null;
  }

  /** The session of a request: its sid, `open` without a token, or null when not signed in. */
  sessionOf(headers: IncomingHttpHeaders): string | null {
    if (this.open) return SID_OPEN;
    return this.verify(readCookie(headers.cookie, SESSION_COOKIE));
  }

  /** The CSRF token of session `sid`: derived from the key, so nothing is stored. */
  csrfFor(sid: string): string {
    return this.mac('csrf', sid);
  }

  /** True when `presented` is the CSRF token of session `sid`. */
  csrfMatches(sid: string, presented: string | string[] | undefined): boolean {
    return typeof presented === 'string' && safeEqual(presented, this.csrfFor(sid));
  }
}

/** The value of one cookie in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** True when the request reached askgate over https, directly or through a TLS-terminating proxy. */
export function isHttps(protocol: string, headers: IncomingHttpHeaders): boolean {
  const forwarded = headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return protocol === 'https' || first === 'https';
}

/** The `Set-Cookie` value for a session (or, with `value` null, one that clears it). */
export function sessionCookie(value: string | null, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value ?? ''}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${value ? SESSION_TTL_SECONDS : 0}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * True when the request's `Origin` names this server (its `Host`, or the `X-Forwarded-Host` a
 * proxy set). Browsers send `Origin` on every POST, so a missing one is refused too.
 */
export function originMatches(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  if (!origin || origin === 'null') return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  const forwarded = headers['x-forwarded-host'];
  const candidates = [headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])];
  return candidates.some((c) => c !== undefined && c.split(',')[0]!.trim().toLowerCase() === host);
}

/**
 * True when the `Host` header names a loopback address. The open console (no token) answers only
 * such requests, so a web page cannot reach it through DNS rebinding.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}
