import { Redis, Cluster } from 'ioredis';

/** Which side of a queue a connection serves. */
export type RedisRole = 'producer' | 'worker';

/**
 * Builds a fresh Redis connection for a queue producer or a worker. Each call must return a new
 * connection: the queue adapter that asked for it owns it and closes it.
 * Producers must use `enableOfflineQueue: false` (fail fast on the HTTP path); workers
 * `maxRetriesPerRequest: null` (BullMQ refuses blocking connections otherwise).
 */
export type RedisFactory = (role: RedisRole) => Redis | Cluster;

/** Options of {@link redisFactoryFromUrl}. */
export interface RedisFactoryOptions {
  /** Producer command timeout, so a Redis that accepts connections but never answers fails fast. */
  commandTimeoutMs?: number;
}

/** Default producer command timeout in ms. */
export const PRODUCER_COMMAND_TIMEOUT_MS = 1500;

/** A {@link RedisFactory} for a standalone Redis at `url` with the producer/worker options above. */
export function redisFactoryFromUrl(url: string, opts: RedisFactoryOptions = {}): RedisFactory {
  const commandTimeout = opts.commandTimeoutMs ?? PRODUCER_COMMAND_TIMEOUT_MS;
  return (role) =>
    role === 'producer'
      ? new Redis(url, { enableOfflineQueue: false, commandTimeout, connectionName: 'askgate-producer' })
      : // No commandTimeout here: workers issue blocking commands (BZPOPMIN) that legitimately wait.
        new Redis(url, { maxRetriesPerRequest: null, connectionName: 'askgate-worker' });
}

/** Closes a connection this process owns: QUIT with a short deadline, then a hard disconnect. */
export async function closeConnection(conn: Redis | Cluster, deadlineMs = 1000): Promise<void> {
  if (conn.status === 'end') return;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      conn.quit().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
        timer.unref();
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
    // quit() moves the status on; re-read it rather than trusting the narrowed type above.
    if ((conn.status as string) !== 'end') conn.disconnect();
  }
}

/** Default deadline of a producer call (add/remove), in ms. */
export const PRODUCER_DEADLINE_MS = 2000;

/**
 * Rejects when `work` has not settled within `ms`. BullMQ waits for a producer connection's first
 * 'ready' before sending anything, so while Redis has never been reachable `enableOfflineQueue:
 * false` alone does not fail fast. The late outcome of `work` is dropped (queue adds are idempotent).
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms (Redis unreachable?)`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
