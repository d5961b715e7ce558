import { Redis, type Cluster } from 'ioredis';
import { TurnBatchedRedis } from './turn-batched-redis.js';
import type { Logger } from '../core/ports.js';

/** Command timeout of the store's request connection: a Redis that accepts connections but never answers fails fast. */
export const STORE_COMMAND_TIMEOUT_MS = 1500;

/**
 * Socket timeout of the store's connections (ioredis `socketTimeout`): a socket that gets no byte
 * for this long while a command is outstanding is destroyed and reconnected. It recovers a
 * reconnect whose handshake a hung proxy or a blackhole accepted and never answers: ioredis has
 * no handshake timeout, and without this the connection stayed in that handshake, refusing
 * every command (503), after the network had healed. The queue producers use it too.
 */
export const STORE_SOCKET_TIMEOUT_MS = 5000;

/** Upper bound of {@link storeRetryDelayMs}, before jitter. */
export const STORE_RETRY_MAX_DELAY_MS = 1000;

/**
 * Delay before the store connection's `attempt`-th reconnect (1-based): 50 ms doubling up to
 * {@link STORE_RETRY_MAX_DELAY_MS}, plus up to 100 ms of jitter. ioredis's default grows to 5 s,
 * so after a longer outage the request path stayed refused for up to 5 s after Redis was back;
 * with this cap it is back within about a second. Never returns null: the connection never gives
 * up on its own.
 */
export function storeRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(50 * 2 ** Math.max(0, Math.min(attempt - 1, 10)), STORE_RETRY_MAX_DELAY_MS);
  return base + Math.floor(random() * 100);
}

/**
 * askgate's request-path connection to a standalone Redis (the store and the result bus's
 * publisher), built here so that `main.ts` and the reconnect test use the same options. It fails
 * fast: no offline queue (a command while the link is down is refused at once with "Stream isn't
 * writeable", which the API answers with 503), a command timeout for a hung Redis, one retry per
 * request, and a socket timeout for a link gone silent. `lazyConnect`: {@link connectWithRetry} makes the first connection. Commands
 * issued in the same turn of the event loop share one socket write ({@link TurnBatchedRedis}; the
 * auto-pipelining it replaced took the bench from ~39 to ~4 writes per cycle under load). Reconnects
 * follow {@link storeRetryDelayMs}.
 */
export function createStoreConnection(
  url: string,
  opts: { commandTimeoutMs?: number; socketTimeoutMs?: number } = {},
): Redis {
  return new TurnBatchedRedis(url, {
    enableOfflineQueue: false,
    commandTimeout: opts.commandTimeoutMs ?? STORE_COMMAND_TIMEOUT_MS,
    socketTimeout: opts.socketTimeoutMs ?? STORE_SOCKET_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    retryStrategy: (attempt) => storeRetryDelayMs(attempt),
  });
}

/**
 * The result bus's subscriber connection to a standalone Redis. It has no command timeout (a
 * subscribed connection waits for messages), so the socket timeout is what recovers a reconnect
 * whose handshake is never answered; without it the bus stayed deaf after the network healed.
 */
export function createSubscriberConnection(url: string, opts: { socketTimeoutMs?: number } = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, socketTimeout: opts.socketTimeoutMs ?? STORE_SOCKET_TIMEOUT_MS });
}

/**
 * Connects, retrying for up to `totalMs` (Redis may start after askgate, e.g. in compose). A
 * Redis Cluster must also report `cluster_state:ok` with its slots known (one still forming is
 * retried like an unreachable one).
 */
export async function connectWithRetry(redis: Redis | Cluster, logger: Logger, totalMs = 30_000): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await redis.connect();
      if (redis.isCluster) await assertClusterOk(redis as Cluster);
      return;
    } catch (error) {
      if (Date.now() - started > totalMs) throw new Error(`cannot connect to Redis: ${(error as Error).message}`);
      logger.warn({ attempt, err: (error as Error).message }, 'Redis not reachable yet; retrying');
      redis.disconnect();
      await new Promise((r) => setTimeout(r, Math.min(2000, 200 * attempt)));
    }
  }
}

async function assertClusterOk(cluster: Cluster): Promise<void> {
  const primaries = cluster.nodes('master');
  if (primaries.length === 0) throw new Error('Redis Cluster has no slots assigned yet');
  const info = String(await primaries[0]!.call('CLUSTER', 'INFO'));
  if (!/cluster_state:ok/.test(info)) throw new Error('Redis Cluster state is not ok');
}

/**
 * Refuses a Redis that may evict keys (pending asks and BullMQ locks would vanish) and warns when
 * it does not persist (AOF off: a restart loses pending asks).
 */
export async function checkRedisPolicy(redis: Redis, allowEviction: boolean, logger: Logger): Promise<void> {
  let policy: string | undefined;
  let aof: string | undefined;
  try {
    policy = ((await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[])[1];
    aof = ((await redis.call('CONFIG', 'GET', 'appendonly')) as string[])[1];
  } catch (error) {
    logger.warn(
      { err: (error as Error).message },
      'cannot read the Redis configuration (CONFIG disabled?); make sure maxmemory-policy is noeviction',
    );
    return;
  }
  if (policy !== 'noeviction') {
    const message = `Redis maxmemory-policy is "${policy}"; askgate needs "noeviction" (an evicting Redis silently drops pending asks and queue locks). Run: CONFIG SET maxmemory-policy noeviction`;
    if (!allowEviction) throw new Error(message);
    logger.warn({ policy }, `${message} (continuing: ASKGATE_ALLOW_EVICTION=true)`);
  }
  if (aof !== 'yes')
    logger.warn(
      { appendonly: aof },
      'Redis AOF is off: pending asks will not survive a Redis restart; use appendonly yes, appendfsync everysec',
    );
}

const UNAVAILABLE = [
  /Stream isn't writeable/i,
  /Connection is closed/i,
  /Command timed out/i,
  /max retries per request/i,
  /ECONNREFUSED/,
  /ECONNRESET/,
  /ETIMEDOUT/,
  /EPIPE/,
  // ioredis's socketTimeout: the link went silent with commands outstanding.
  /Socket timeout/i,
  /enableOfflineQueue/i,
  // ioredis's AbortError: a command sent and not yet answered (or part of a pipeline) when the connection dropped.
  /Command aborted due to connection close/i,
  // Redis Cluster: a primary down (its slots unreachable, or the cluster marked failed) or no node reachable.
  /Too many Cluster redirections/i,
  /CLUSTERDOWN/,
  /Failed to refresh slots cache/i,
  /None of startup nodes is available/i,
  /Cluster is ended/i,
];

/** True for errors meaning Redis is unreachable or hung, which the API answers with 503. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE.some((re) => re.test(error.message));
}

/**
 * Logs a connection's errors (at most one line per 10 s per connection) instead of letting
 * ioredis print "Unhandled error event" on every reconnect attempt during an outage.
 */
export function watchConnection(conn: Redis | Cluster, name: string, logger: Logger): void {
  let lastLogged = 0;
  conn.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    lastLogged = now;
    logger.warn({ connection: name, err: error.message }, 'Redis connection error; reconnecting');
  });
}
