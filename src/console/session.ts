import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { tokenMatches } from '../security/http.js';
import type { Clock } from '../core/ports.js';
import { systemClock } from '../system-clock.js';

/** Name of the console's session cookie. */
export const SESSION_COOKIE = 'askgate_session';
/** Request header carrying the per-session CSRF token on every state-changing console request. */
export const CSRF_HEADER = 'x-askgate-csrf';
/** How long a console session lasts (seconds): the operator types the token about once a week. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** The session id of every request to the open console (no token). */
export const SID_OPEN = 'open';

const b64url = (buf: Buffer) => buf.toString('base64url');

/**
 * Console sessions ended by "Sign out" before their cookie expires. Shared by every replica
 * (Redis), so a copied cookie stops working everywhere at once; implementations: store/console-sessions.ts.
 */
export interface ConsoleSessionStore {
  /** Records session `sid` as ended until `untilMs` (epoch ms, the cookie's own expiry). */
  revoke(sid: string, untilMs: number): Promise<void>;
  /** The ids among `sids` that were revoked. */
  revoked(sids: readonly string[]): Promise<Set<string>>;
}

/**
 * Console sessions: HMAC-signed cookies `<sid>.<expires>.<mac>`. The key is derived from
 * `ASKGATE_API_TOKEN`, so every replica accepts the same sessions and rotating the token ends
 * them all; the cookie never holds the token itself. Signing out records the sid as revoked in
 * the shared {@link ConsoleSessionStore} until the cookie expires. Without a token the console is
 * open (askgate then listens on loopback) and a random per-process key only signs CSRF tokens.
 */
export class ConsoleAuth {
  private readonly key: Buffer;

  constructor(
    readonly apiToken: string | undefined,
    private readonly sessions: ConsoleSessionStore,
    private readonly clock: Clock = systemClock,
  ) {
    this.key = apiToken
      ? createHmac('sha256', apiToken).update('askgate console session v1').digest()
      : randomBytes(32);
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
    const expires = Math.floor(this.clock.now() / 1000) + SESSION_TTL_SECONDS;
    const payload = `${sid}.${expires}`;
    return { cookie: `${payload}.${this.mac('session', payload)}`, sid };
  }

  /** The session id of a validly signed, unexpired cookie value, else null (revocation not checked). */
  verify(value: string | undefined): string | null {
    return this.signed(value)?.sid ?? null;
  }

  private signed(value: string | undefined): { sid: string; expiresMs: number } | null {
    const match = /^([A-Za-z0-9_-]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!match) return null;
    const [, sid, expires, mac] = match as unknown as [string, string, string, string];
    if (!tokenMatches(mac, this.mac('session', `${sid}.${expires}`))) return null;
    const expiresMs = Number(expires) * 1000;
    return expiresMs > this.clock.now() ? { sid, expiresMs } : null;
  }

  /** The session of a request: its sid, `open` without a token, or null when not signed in or signed out. */
  async sessionOf(headers: IncomingHttpHeaders): Promise<string | null> {
    const sid = this.sidOf(headers);
    if (sid === null || this.open) return sid;
    return (await this.sessions.revoked([sid])).has(sid) ? null : sid;
  }

  /** The sid a request's cookie names (`open` without a token), without the revocation check of {@link sessionOf}. */
  sidOf(headers: IncomingHttpHeaders): string | null {
    return this.open ? SID_OPEN : this.verify(readCookie(headers.cookie, SESSION_COOKIE));
  }

  /** Ends the request's session on every replica (until its cookie expires); returns its sid, if it had one. */
  async end(headers: IncomingHttpHeaders): Promise<string | null> {
    if (this.open) return null;
    const session = this.signed(readCookie(headers.cookie, SESSION_COOKIE));
    if (!session) return null;
    await this.sessions.revoke(session.sid, session.expiresMs);
    return session.sid;
  }

  /** The ids among `sids` that were signed out (none without a token). */
  async revoked(sids: readonly string[]): Promise<Set<string>> {
    return this.open || sids.length === 0 ? new Set() : this.sessions.revoked(sids);
  }

  /** The CSRF token of session `sid`: derived from the key, so nothing is stored. */
  csrfFor(sid: string): string {
    return this.mac('csrf', sid);
  }

  /** True when `presented` is the CSRF token of session `sid`. */
  csrfMatches(sid: string, presented: string | string[] | undefined): boolean {
    return typeof presented === 'string' && tokenMatches(presented, this.csrfFor(sid));
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
  const parts = [
    `${SESSION_COOKIE}=${value ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${value ? SESSION_TTL_SECONDS : 0}`,
  ];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
