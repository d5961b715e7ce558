import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// HTTP request checks shared by the API, /mcp and the console: the bearer token, the Host rule
// (DNS rebinding) and the Origin rule (cross-site requests). No framework types: plain headers.

/**
 * The one constant-time comparison of askgate (bearer tokens, console MACs and CSRF tokens,
 * channel webhook secrets and signatures): both sides are hashed first, so neither the content
 * nor the length of the secret leaks through timing.
 */
export function tokenMatches(presented: string | Buffer | undefined, expected: string | Buffer): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Extracts the token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** A `Host` value: a name, an IPv4 address or a bracketed IPv6 address, with an optional port. */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** The host name of a `Host` value, normalised by the URL parser (lower case, canonical IP), or null. */
function hostName(host: string | undefined): string | null {
  if (!host || !HOST_VALUE.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

/**
 * A `Host` value fit to build a URL from: a host name, an IPv4 address or a bracketed IPv6
 * address with an optional port (1–65535), nothing else (no credentials, path, query or
 * space), lower-cased; null otherwise.
 */
export function validHost(host: string | undefined): string | null {
  if (hostName(host) === null) return null;
  const port = /:(\d+)$/.exec(host!.replace(/^\[[^\]]*\]/, ''))?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  return host!.toLowerCase();
}

/**
 * True when a `Host` header names this machine's loopback: `localhost`, a name under
 * `.localhost` (RFC 6761: never resolved through DNS), an address in 127.0.0.0/8 or `[::1]`,
 * with or without a port. A web page that rebinds its own DNS name to 127.0.0.1 still sends its
 * own name, so refusing every other Host defeats DNS rebinding.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  const name = hostName(host);
  if (name === null) return false;
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/** The `host[:port]` of a browser's serialized Origin (`scheme://host[:port]`), or null (also for `null`). */
function originHost(origin: string | undefined): string | null {
  if (!origin || origin === 'null') return null;
  try {
    const url = new URL(origin);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase()) return null;
    return url.host;
  } catch {
    return null;
  }
}

const first = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]!.trim().toLowerCase();

/**
 * True when the request's `Origin` is this server as the request addressed it (its `Host`).
 * A missing or `null` Origin is false: callers decide whether Origin is required.
 */
export function originIsHost(headers: IncomingHttpHeaders): boolean {
  const host = originHost(headers.origin);
  return host !== null && host === first(headers.host);
}

/**
 * True when the request's `Origin` names this server (its `Host`, or the `X-Forwarded-Host` a
 * proxy set). Browsers send `Origin` on every POST, so a missing one is refused too.
 */
export function originMatches(headers: IncomingHttpHeaders): boolean {
  const host = originHost(headers.origin);
  if (host === null) return false;
  const forwarded = headers['x-forwarded-host'];
  const candidates = [headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])];
  return candidates.some((c) => c !== undefined && first(c) === host);
}
