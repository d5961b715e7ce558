import type { Redis, Cluster } from 'ioredis';
import type { Logger } from '../core/ports.js';

/** Raised when Redis is configured in a way that can lose asks. */
export class UnsafeRedisError extends Error {}

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
    logger.warn({ err: (error as Error).message }, 'cannot read the Redis configuration (CONFIG disabled?); make sure maxmemory-policy is noeviction');
    return;
  }
  if (policy !== 'noeviction') {
    const message = `Redis maxmemory-policy is "${policy}"; askgate needs "noeviction" (an evicting Redis silently drops pending asks and queue locks). Run: CONFIG SET maxmemory-policy noeviction`;
    if (!allowEviction) throw new UnsafeRedisError(message);
    logger.warn({ policy }, `${message} (continuing: ASKGATE_ALLOW_EVICTION=true)`);
  }
  if (aof !== 'yes') logger.warn({ appendonly: aof }, 'Redis AOF is off: pending asks will not survive a Redis restart; use appendonly yes, appendfsync everysec');
}

const UNAVAILABLE = [/Stream isn't writeable/i, /Connection is closed/i, /Command timed out/i, /max retries per request/i, /ECONNREFUSED/, /ECONNRESET/, /ETIMEDOUT/, /enableOfflineQueue/i,
  // Redis Cluster: a primary down (its slots unreachable, or the cluster marked failed) or no node reachable.
  /Too many Cluster redirections/i, /CLUSTERDOWN/, /Failed to refresh slots cache/i, /None of startup nodes is available/i, /Cluster is ended/i];

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
