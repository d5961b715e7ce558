import { z } from 'zod';
import type { Target } from './core/schemas.js';
import type { TimeoutBounds } from './core/deadline.js';
import type { HostAllowList } from './webhooks/allowed-hosts.js';
import { canonicalLocale, shippedLocale } from './core/i18n/index.js';
import {
  ConfigError,
  defaultTarget,
  int,
  optionalString,
  parseClusterNodes,
  tokenString,
  publicUrl,
  webhookAllowList,
  type RedisClusterConfig,
} from './config-values.js';
import { CHANNEL_ENV, channelsConfig, type ChannelsConfig } from './config-channels.js';
import { AUDIT_ENV, auditConfig, type AuditConfig } from './audit/config.js';

export { ConfigError, parseClusterNodes, parseTargetSpec, type RedisClusterConfig } from './config-values.js';
export type { ChannelsConfig } from './config-channels.js';

/** `LOG_LEVEL`: pino's levels; JSON lines go to stderr. */
const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

const EnvSchema = z.object({
  // First: a variable askgate declares below that a channel also reads (ASKGATE_PUBLIC_URL) keeps askgate's parser.
  ...CHANNEL_ENV,
  PORT: int(7420, 0, 65535),
  HOST: optionalString,
  REDIS_URL: optionalString,
  REDIS_CLUSTER: z.enum(['true', 'false']).default('false'),
  ASKGATE_API_TOKEN: tokenString(16),
  ASKGATE_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .default('askgate'),
  ASKGATE_TIMEOUT_DEFAULT_SECONDS: int(900, 1),
  ASKGATE_TIMEOUT_MIN_SECONDS: int(30, 1),
  ASKGATE_TIMEOUT_MAX_SECONDS: int(3600, 1),
  // Asks with a durable way back (callbackUrl, "async": true, an A2A push config, an MCP task): 30 days.
  ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS: int(2_592_000, 1),
  // An extension never leaves less than this before the new deadline.
  ASKGATE_EXTEND_MIN_SECONDS: int(60, 1, 3600),
  ASKGATE_REMIND_EVERY_MIN_SECONDS: int(3600, 1),
  ASKGATE_RETENTION_SECONDS: int(86_400, 60),
  ASKGATE_MAX_WAIT_SECONDS: int(600, 0, 3600),
  ...AUDIT_ENV,
  ASKGATE_BODY_LIMIT_BYTES: int(65_536, 1024, 10_485_760),
  ASKGATE_REQUEST_TIMEOUT_SECONDS: int(30, 1, 3600),
  ASKGATE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).optional(),
  ASKGATE_RECONCILE_INTERVAL_MS: int(5_000, 10),
  ASKGATE_RECONCILE_GRACE_MS: int(5_000, 0),
  ASKGATE_SWEEP_DELAY_MS: int(30_000, 10),
  ASKGATE_OUTBOX_ATTEMPTS: int(8, 1, 100),
  ASKGATE_OUTBOX_BASE_DELAY_MS: int(1_000, 1),
  ASKGATE_OUTBOX_MAX_DELAY_MS: int(60_000, 1),
  ASKGATE_OUTBOX_INLINE_CONCURRENCY: int(256, 0, 10_000),
  ASKGATE_QUEUE_LOCK_MS: int(10_000, 1_000, 600_000),
  ASKGATE_QUEUE_STALLED_INTERVAL_MS: int(5_000, 500, 600_000),
  ASKGATE_STEP_LEAD_MS: int(2_000, 0, 10_000),
  ASKGATE_EVENT_STREAMS_PER_RUN: int(100, 1, 100_000),
  ASKGATE_EVENT_STREAMS_MAX: int(1000, 1, 1_000_000),
  ASKGATE_ALLOW_EVICTION: z.enum(['true', 'false']).default('false'),
  ASKGATE_WEBHOOK_SECRET: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    'must be at least 16 characters',
  ),
  ASKGATE_WEBHOOK_TIMEOUT_MS: int(10_000, 100, 60_000),
  ASKGATE_WEBHOOK_ALLOWED_HOSTS: optionalString,
  ASKGATE_DEFAULT_TO: optionalString,
  ASKGATE_DEFAULT_LOCALE: optionalString.refine(
    (v) => v === undefined || canonicalLocale(v) !== null,
    'must be a BCP 47 language tag such as "pt-BR"',
  ),
  ASKGATE_MCP_PROGRESS_MS: int(10_000, 50, 600_000),
  // Below the 60 s request timeout MCP clients default to: a call never outlives it.
  ASKGATE_MCP_WAIT_SECONDS: int(50, 1, 55),
  ASKGATE_MCP_MAX_SESSIONS: int(100, 1, 100_000),
  ASKGATE_MCP_MAX_SESSIONS_PER_CALLER: int(25, 1, 100_000),
  ASKGATE_MCP_SESSION_IDLE_SECONDS: int(600, 1, 86_400),
  ASKGATE_CONSOLE_MAX_STREAMS: int(200, 1, 100_000),
  ASKGATE_CONSOLE_STALL_MS: int(30_000, 100, 3_600_000),
  ASKGATE_A2A: z.enum(['on', 'off', 'true', 'false']).default('on'),
  // A blocking A2A SendMessage returns the task still `working` after this long (below fetch's 300 s headers timeout).
  ASKGATE_A2A_WAIT_SECONDS: int(50, 0, 290),
  ASKGATE_A2A_URL: publicUrl('must be the absolute http(s) URL of the /a2a endpoint'),
  ASKGATE_PUBLIC_URL: publicUrl('must be the absolute http(s) URL askgate is reached at'),
  // The answer page's HMAC key (src/links/): required, and checked, only with ASKGATE_PUBLIC_URL.
  ASKGATE_LINK_SECRET: tokenString(32),
  LOG_LEVEL: LogLevelSchema,
});

/** Every setting of askgate, parsed and defaulted. */
export interface Config {
  port: number;
  /** Address to listen on. Without an API token only loopback is allowed. */
  host: string;
  redisUrl?: string;
  /** Set when `REDIS_CLUSTER=true`: `REDIS_URL` lists seed nodes of a Redis Cluster. */
  redisCluster?: RedisClusterConfig;
  apiToken?: string;
  /** `ASKGATE_PUBLIC_URL`: the externally reachable base URL (no trailing slash), when the operator set it. */
  publicUrl?: string;
  /** `ASKGATE_LINK_SECRET`: the answer links' HMAC key (at least 32 printable characters); set whenever `publicUrl` is. */
  linkSecret?: string;
  keyPrefix: string;
  /** The audit trail (src/audit, docs/audit.md). */
  audit: AuditConfig;
  /** The bounds of an ask's wait (core/deadline.ts). */
  timeouts: TimeoutBounds;
  retentionMs: number;
  /** ASKGATE_DEFAULT_LOCALE (canonical BCP 47; default `en`): the language of asks that name none. */
  defaultLocale: string;
  maxWaitSeconds: number;
  bodyLimitBytes: number;
  /** The whole request's deadline, and the connection cap (unset: from the open-file limit, api/connection-limits.ts). */
  http: { requestTimeoutMs: number; maxConnections?: number };
  reconciler: { intervalMs: number; graceMs: number; sweepDelayMs: number };
  /**
   * `inlineConcurrency`: outbox jobs run in-process right after the commit that queued them, at
   * most this many at once (beyond it, and for retries, BullMQ); 0 queues every job. Optional so
   * hand-built configs keep the default.
   */
  outbox: { attempts: number; baseDelayMs: number; maxDelayMs: number; inlineConcurrency?: number };
  /**
   * How fast a queue job of a crashed process is taken over: its lock lapses after `lockDurationMs`
   * (renewed every half of it while the job runs) and workers look for lapsed locks every
   * `stalledIntervalMs` (BullMQ's 30 s + 30 s left jobs stuck ~60 s after a kill -9). `leadMs`
   * (steps only, optional): how far ahead of its time a step's job is queued.
   */
  queue: { lockDurationMs: number; stalledIntervalMs: number; leadMs?: number };
  /** Escape hatch for a Redis whose eviction policy cannot be changed (not for production). */
  allowEviction: boolean;
  logLevel: z.output<typeof EnvSchema>['LOG_LEVEL'];
  /** Signed webhooks; without a secret, asks with a `callbackUrl` are refused. */
  webhook: { secret?: string; timeoutMs: number; allowedHosts: HostAllowList };
  /** The MCP server at `/mcp`: default target of `ask_user` and how often it reports progress. */
  mcp: McpSettings;
  /** Sessions of `/mcp`: how many at most, in all and per caller (peer address), and when an idle one closes. */
  mcpSessions: { max: number; perCaller: number; idleMs: number };
  /** The web console's event streams (console/hub.ts): how many at most, and when an unread one is closed. */
  console: { maxStreams: number; stallMs: number };
  /** Open event streams: at most `perKey` of one run or ask, `total` in the process. */
  eventStreams?: { perKey: number; total: number };
  /** askgate as an A2A agent (`/a2a`, `/.well-known/agent-card.json`); see src/a2a/route.ts. */
  a2a: A2ASettings;
  /** Chat platforms; a platform is enabled when its bot token is set. */
  channels: ChannelsConfig;
  /** Notes for the operator, printed at startup (e.g. a host forced to loopback). */
  notices: string[];
}

/** Settings of the A2A agent. */
export interface A2ASettings {
  /** `ASKGATE_A2A` (on by default; `off` removes the routes). */
  enabled: boolean;
  /** The longest a blocking SendMessage waits for the answer, in s (`ASKGATE_A2A_WAIT_SECONDS`, 0–290, default 50). */
  waitSeconds: number;
  /** The endpoint's public URL for the agent card (`ASKGATE_A2A_URL`); by default `ASKGATE_PUBLIC_URL` + `/a2a`. */
  url?: string;
}

/** Settings of an MCP server (the `/mcp` route or `askgate mcp`). */
export interface McpSettings {
  /** Target of `ask_user` calls that give no `to` (`ASKGATE_DEFAULT_TO`). */
  defaultTo?: Target;
  /** Interval of progress notifications while a call waits, in ms. */
  progressIntervalMs: number;
  /** The longest one `ask_user`/`await_answer` call waits before returning `pending`, in s (`ASKGATE_MCP_WAIT_SECONDS`). */
  waitSeconds: number;
}

const ClientEnvSchema = z.object({
  PORT: int(7420, 0, 65535),
  ASKGATE_URL: optionalString,
  ASKGATE_API_TOKEN: tokenString(),
  ASKGATE_DEFAULT_TO: optionalString,
  ASKGATE_MCP_PROGRESS_MS: int(10_000, 50, 600_000),
  // Below the 60 s request timeout MCP clients default to: a call never outlives it.
  ASKGATE_MCP_WAIT_SECONDS: int(50, 1, 55),
  // `askgate mcp` never refused to start over LOG_LEVEL, and an unknown value still does not stop it.
  LOG_LEVEL: LogLevelSchema.catch('info'),
});

/** What `askgate mcp` (stdio) needs: where askgate runs, its token, and the MCP settings. */
export function loadMcpClientConfig(env: NodeJS.ProcessEnv = process.env): {
  url: string;
  token?: string;
  mcp: McpSettings;
  logLevel: Config['logLevel'];
} {
  const parsed = ClientEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid configuration:\n  ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n  ')}`,
    );
  }
  const e = parsed.data;
  return {
    url: (e.ASKGATE_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
    token: e.ASKGATE_API_TOKEN,
    mcp: {
      defaultTo: defaultTarget(e.ASKGATE_DEFAULT_TO),
      progressIntervalMs: e.ASKGATE_MCP_PROGRESS_MS,
      waitSeconds: e.ASKGATE_MCP_WAIT_SECONDS,
    },
    logLevel: e.LOG_LEVEL,
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Parses the environment into a {@link Config}; throws {@link ConfigError} naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.ASKGATE_TIMEOUT_MIN_SECONDS > e.ASKGATE_TIMEOUT_MAX_SECONDS)
    throw new ConfigError('invalid configuration: ASKGATE_TIMEOUT_MIN_SECONDS is above ASKGATE_TIMEOUT_MAX_SECONDS');
  if (e.ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS < e.ASKGATE_TIMEOUT_MAX_SECONDS)
    throw new ConfigError(
      'invalid configuration: ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS is below ASKGATE_TIMEOUT_MAX_SECONDS (an ask with a way back may wait at least as long as one without)',
    );
  if (e.REDIS_CLUSTER === 'true' && !e.REDIS_URL)
    throw new ConfigError(
      'invalid configuration: REDIS_CLUSTER=true needs REDIS_URL with the seed nodes, e.g. redis://10.0.0.1:6379,redis://10.0.0.2:6379',
    );
  if (e.REDIS_CLUSTER !== 'true' && e.REDIS_URL?.includes(',')) {
    throw new ConfigError(
      'invalid configuration: REDIS_URL lists several nodes; set REDIS_CLUSTER=true for a Redis Cluster',
    );
  }
  if (e.ASKGATE_RECONCILE_GRACE_MS >= e.ASKGATE_RETENTION_SECONDS * 1000) {
    // A pending record lives until deadline + retention; the reconciler acts at deadline + grace.
    throw new ConfigError(
      'invalid configuration: ASKGATE_RECONCILE_GRACE_MS must be shorter than ASKGATE_RETENTION_SECONDS, or an ask whose timeout job was lost expires before the reconciler ends it',
    );
  }
  if (e.ASKGATE_PUBLIC_URL && !e.ASKGATE_LINK_SECRET) {
    throw new ConfigError(
      'invalid configuration: ASKGATE_PUBLIC_URL is set, so ASKGATE_LINK_SECRET must be set too (at least 32 printable characters): it signs the answer page links',
    );
  }
  const redisCluster = e.REDIS_CLUSTER === 'true' ? parseClusterNodes(e.REDIS_URL!) : undefined;
  const notices: string[] = [];
  let host = e.HOST ?? (e.ASKGATE_API_TOKEN ? '0.0.0.0' : '127.0.0.1');
  if (!e.ASKGATE_API_TOKEN && !LOOPBACK.has(host)) {
    notices.push(`HOST=${host} ignored: without ASKGATE_API_TOKEN askgate listens on 127.0.0.1 only`);
    host = '127.0.0.1';
  }
  if (!e.ASKGATE_API_TOKEN)
    notices.push('no ASKGATE_API_TOKEN: the API is open to local processes, listening on loopback only');
  const defaultLocale = canonicalLocale(e.ASKGATE_DEFAULT_LOCALE ?? 'en') ?? 'en';
  if (!shippedLocale(defaultLocale))
    notices.push(
      `ASKGATE_DEFAULT_LOCALE=${defaultLocale} is not a language askgate ships: English is used (docs/locales.md)`,
    );
  return {
    port: e.PORT,
    host,
    redisUrl: e.REDIS_URL,
    ...(redisCluster && { redisCluster }),
    apiToken: e.ASKGATE_API_TOKEN,
    publicUrl: e.ASKGATE_PUBLIC_URL,
    ...(e.ASKGATE_PUBLIC_URL && { linkSecret: e.ASKGATE_LINK_SECRET }),
    keyPrefix: e.ASKGATE_KEY_PREFIX,
    audit: auditConfig(e),
    timeouts: {
      defaultSeconds: e.ASKGATE_TIMEOUT_DEFAULT_SECONDS,
      minSeconds: e.ASKGATE_TIMEOUT_MIN_SECONDS,
      maxSeconds: e.ASKGATE_TIMEOUT_MAX_SECONDS,
      asyncMaxSeconds: e.ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS,
      extendMinSeconds: e.ASKGATE_EXTEND_MIN_SECONDS,
      remindEveryMinSeconds: e.ASKGATE_REMIND_EVERY_MIN_SECONDS,
    },
    retentionMs: e.ASKGATE_RETENTION_SECONDS * 1000,
    defaultLocale,
    maxWaitSeconds: e.ASKGATE_MAX_WAIT_SECONDS,
    bodyLimitBytes: e.ASKGATE_BODY_LIMIT_BYTES,
    http: { requestTimeoutMs: e.ASKGATE_REQUEST_TIMEOUT_SECONDS * 1000, maxConnections: e.ASKGATE_MAX_CONNECTIONS },
    reconciler: {
      intervalMs: e.ASKGATE_RECONCILE_INTERVAL_MS,
      graceMs: e.ASKGATE_RECONCILE_GRACE_MS,
      sweepDelayMs: e.ASKGATE_SWEEP_DELAY_MS,
    },
    outbox: {
      attempts: e.ASKGATE_OUTBOX_ATTEMPTS,
      baseDelayMs: e.ASKGATE_OUTBOX_BASE_DELAY_MS,
      maxDelayMs: e.ASKGATE_OUTBOX_MAX_DELAY_MS,
      inlineConcurrency: e.ASKGATE_OUTBOX_INLINE_CONCURRENCY,
    },
    queue: {
      lockDurationMs: e.ASKGATE_QUEUE_LOCK_MS,
      stalledIntervalMs: e.ASKGATE_QUEUE_STALLED_INTERVAL_MS,
      leadMs: e.ASKGATE_STEP_LEAD_MS,
    },
    allowEviction: e.ASKGATE_ALLOW_EVICTION === 'true',
    logLevel: e.LOG_LEVEL,
    webhook: {
      secret: e.ASKGATE_WEBHOOK_SECRET,
      timeoutMs: e.ASKGATE_WEBHOOK_TIMEOUT_MS,
      allowedHosts: webhookAllowList(e.ASKGATE_WEBHOOK_ALLOWED_HOSTS),
    },
    mcp: {
      defaultTo: defaultTarget(e.ASKGATE_DEFAULT_TO),
      progressIntervalMs: e.ASKGATE_MCP_PROGRESS_MS,
      waitSeconds: e.ASKGATE_MCP_WAIT_SECONDS,
    },
    mcpSessions: {
      max: e.ASKGATE_MCP_MAX_SESSIONS,
      perCaller: e.ASKGATE_MCP_MAX_SESSIONS_PER_CALLER,
      idleMs: e.ASKGATE_MCP_SESSION_IDLE_SECONDS * 1000,
    },
    console: { maxStreams: e.ASKGATE_CONSOLE_MAX_STREAMS, stallMs: e.ASKGATE_CONSOLE_STALL_MS },
    eventStreams: { perKey: e.ASKGATE_EVENT_STREAMS_PER_RUN, total: e.ASKGATE_EVENT_STREAMS_MAX },
    a2a: {
      enabled: e.ASKGATE_A2A === 'on' || e.ASKGATE_A2A === 'true',
      waitSeconds: e.ASKGATE_A2A_WAIT_SECONDS,
      url: e.ASKGATE_A2A_URL ?? (e.ASKGATE_PUBLIC_URL && `${e.ASKGATE_PUBLIC_URL}/a2a`),
    },
    channels: channelsConfig(e),
    notices,
  };
}
