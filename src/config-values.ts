import { z } from 'zod';
import { ChannelNameSchema, type Target } from './core/schemas.js';
import { HostAllowList } from './webhooks/allowed-hosts.js';

/** Parsers of the configuration values that are more than a number or a string (config.ts uses them). */

/** A whole number from the environment between `min` and `max`, `def` when unset. */
export const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** A string from the environment, trimmed; unset when empty. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined));

/**
 * A token or secret askgate sends in an HTTP header or URL, or compares with one a platform sent:
 * printable ASCII without spaces, or it can never authenticate (a space ends the bearer token,
 * and HTTP carries header bytes, not UTF-8 text). The message never shows the value.
 */
export const tokenString = (minLength = 1) =>
  optionalString
    .refine((v) => v === undefined || v.length >= minLength, `must be at least ${minLength} characters`)
    .refine(
      (v) => v === undefined || !/[\s\p{Cc}]/u.test(v),
      'contains a space or a control character: it could never authenticate (the value is not shown)',
    )
    .refine(
      (v) => v === undefined || /^[\x21-\x7e]*$/.test(v),
      'contains a non-ASCII character: it could never authenticate, tokens are sent as ASCII (the value is not shown)',
    );

/**
 * An absolute http(s) URL from the environment, with no credentials, query or fragment (it is
 * handed out to clients as is), kept without a trailing slash; unset when empty.
 */
export const publicUrl = (message: string) =>
  optionalString
    .refine((v) => v === undefined || publicUrlProblem(v) === null, {
      error: (issue) => `${message}: ${publicUrlProblem(String(issue.input))}`,
    })
    .transform((v) => v?.replace(/\/+$/, ''));

function publicUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the scheme is not http or https';
  if (url.username !== '' || url.password !== '') return 'it holds credentials';
  if (url.search !== '' || value.includes('?')) return 'it has a query';
  if (url.hash !== '' || value.includes('#')) return 'it has a fragment';
  if (/\s/.test(value)) return 'it has white space';
  return null;
}

/** Thrown for invalid configuration; the message names each bad variable. */
export class ConfigError extends Error {}

/** Seed nodes and shared credentials of a Redis Cluster (every node uses the same ones). */
export interface RedisClusterConfig {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  /** `rediss://` seeds: connect to every node over TLS. */
  tls: boolean;
}

/**
 * Parses `REDIS_URL` in cluster mode: one or more comma-separated seed nodes, each `redis://`,
 * `rediss://` or a bare `host:port`. Credentials and the scheme must be the same on every seed.
 */
export function parseClusterNodes(list: string): RedisClusterConfig {
  const seeds = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (seeds.length === 0) throw new ConfigError('invalid configuration: REDIS_URL lists no cluster node');
  const parsed = seeds.map((seed) => {
    let url: URL;
    try {
      url = new URL(seed.includes('://') ? seed : `redis://${seed}`);
    } catch {
      throw new ConfigError(
        `invalid configuration: REDIS_URL: "${seed.replace(/\/\/[^@/]*@/, '//***@')}" is not a Redis URL`,
      );
    }
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
      throw new ConfigError(
        `invalid configuration: REDIS_URL: cluster nodes must be redis://host:port or rediss://host:port`,
      );
    }
    if (url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0') {
      throw new ConfigError('invalid configuration: REDIS_URL: a Redis Cluster has only database 0');
    }
    return {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? 6379 : Number(url.port),
      auth: `${url.protocol}${url.username}:${url.password}`,
      username: url.username === '' ? undefined : decodeURIComponent(url.username),
      password: url.password === '' ? undefined : decodeURIComponent(url.password),
      tls: url.protocol === 'rediss:',
    };
  });
  if (new Set(parsed.map((p) => p.auth)).size > 1) {
    throw new ConfigError(
      'invalid configuration: REDIS_URL: every cluster node must use the same scheme and credentials',
    );
  }
  const first = parsed[0]!;
  return {
    nodes: parsed.map(({ host, port }) => ({ host, port })),
    username: first.username,
    password: first.password,
    tls: first.tls,
  };
}

/** Parses `<channel>:<chat>` (e.g. `telegram:123456`) into a target; throws a readable message otherwise. */
export function parseTargetSpec(spec: string): Target {
  const at = spec.indexOf(':');
  const channel = ChannelNameSchema.safeParse(spec.slice(0, Math.max(0, at)));
  const chat = spec.slice(at + 1).trim();
  if (at <= 0 || !channel.success || chat === '' || chat.length > 128) {
    throw new Error(`"${spec.slice(0, 80)}" is not <channel>:<chat>, e.g. telegram:123456`);
  }
  return { channel: channel.data, chat };
}

/** `ASKGATE_DEFAULT_TO`, parsed. */
export function defaultTarget(spec: string | undefined): Target | undefined {
  if (spec === undefined) return undefined;
  try {
    return parseTargetSpec(spec);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ASKGATE_DEFAULT_TO: ${(error as Error).message}`);
  }
}

/** `ASKGATE_WEBHOOK_ALLOWED_HOSTS`, parsed (default `external`). */
export function webhookAllowList(spec: string | undefined): HostAllowList {
  try {
    return HostAllowList.parse(spec ?? 'external');
  } catch (error) {
    throw new ConfigError(`invalid configuration: ASKGATE_WEBHOOK_ALLOWED_HOSTS: ${(error as Error).message}`);
  }
}
