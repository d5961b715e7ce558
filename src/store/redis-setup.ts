import type { Redis } from 'ioredis';
import type { Logger } from '../core/ports.js';

/** Raised when Redis is configured in a way that can lose asks. */
export class UnsafeRedisError extends Error {}

/** Connects, retrying for up to `totalMs` (Redis may start after askgate, e.g. in compose). */
export async function connectWithRetry(redis: Redis, logger: Logger, totalMs = 30_000): Promise<void> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await redis.connect();
      return;
    } catch (error) {
      if (Date.now() - started > totalMs) throw new Error(`cannot connect to Redis: ${(error as Error).message}`);
      logger.warn({ attempt, err: (error as Error).message }, 'Redis not reachable yet; retrying');
      redis.disconnect();
      await new Promise((r) => setTimeout(r, Math.min(2000, 200 * attempt)));
    }
  }
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

const UNAVAILABLE = [/Stream isn't writeable/i, /Connection is closed/i, /Command timed out/i, /max retries per request/i, /ECONNREFUSED/, /ECONNRESET/, /ETIMEDOUT/, /enableOfflineQueue/i];

/** True for errors meaning Redis is unreachable or hung, which the API answers with 503. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return UNAVAILABLE.some((re) => re.test(error.message));
}
