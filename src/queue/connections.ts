import type { Worker } from 'bullmq';
import { Redis, Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { STORE_SOCKET_TIMEOUT_MS } from '../store/redis-setup.js';

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
  /** Socket timeouts per role (defaults {@link SOCKET_TIMEOUT_MS}); tests shorten them. */
  socketTimeoutMs?: Partial<Record<RedisRole, number>>;
}

/** Default producer command timeout in ms. */
export const PRODUCER_COMMAND_TIMEOUT_MS = 1500;

/**
 * How long a connection may wait for any byte while it has a command outstanding before its
 * socket is destroyed and ioredis reconnects (ioredis `socketTimeout`). This is what recovers a
 * link that accepts and then goes silent: a reconnect's handshake made through a hung proxy or
 * into a blackhole never completes, and neither ioredis nor BullMQ time out a handshake, so
 * without it the connection (a worker's fetch loop with it) waits forever, even after the network
 * heals. A producer's is the store's; a worker's is above BullMQ's longest BZPOPMIN (10 s) and its
 * 1 s watchdog.
 */
export const SOCKET_TIMEOUT_MS: Readonly<Record<RedisRole, number>> = {
  producer: STORE_SOCKET_TIMEOUT_MS,
  worker: 15_000,
};

/** A {@link RedisFactory} for a standalone Redis at `url` with the producer/worker options above. */
export function redisFactoryFromUrl(url: string, opts: RedisFactoryOptions = {}): RedisFactory {
  const commandTimeout = opts.commandTimeoutMs ?? PRODUCER_COMMAND_TIMEOUT_MS;
  const socketTimeout = (role: RedisRole) => opts.socketTimeoutMs?.[role] ?? SOCKET_TIMEOUT_MS[role];
  return (role) =>
    role === 'producer'
      ? new Redis(url, {
          enableOfflineQueue: false,
          commandTimeout,
          socketTimeout: socketTimeout(role),
          connectionName: 'askgate-producer',
          // No auto-pipelining (as on the Cluster producer): each auto-pipeline is a new ioredis
          // Pipeline, which copies every script BullMQ defined on the connection (~50, twice over),
          // while a producer sends about one command per request (add or remove a job).
        })
      : // No commandTimeout here: workers issue blocking commands (BZPOPMIN) that legitimately wait.
        // BullMQ's blocking connection is a duplicate of this one, so it has the socket timeout too.
        new Redis(url, {
          maxRetriesPerRequest: null,
          socketTimeout: socketTimeout(role),
          connectionName: 'askgate-worker',
        });
}

/** Seed nodes of a Redis Cluster and the options every node connection shares (credentials, TLS). */
export interface ClusterSeeds {
  nodes: { host: string; port: number }[];
  /** Options applied to every node connection, e.g. `{ username, password, tls }`. */
  redisOptions?: RedisOptions;
}

/**
 * Builds an ioredis `Cluster` over `seeds`. `request` = the fail-fast options of the HTTP path
 * (no offline queue, command timeout); otherwise the options of a long-lived blocking or
 * subscriber connection (`maxRetriesPerRequest: null`).
 */
export function clusterConnection(
  seeds: ClusterSeeds,
  kind:
    | { request: true; commandTimeoutMs: number; lazyConnect?: boolean; connectionName?: string }
    | { request: false; connectionName?: string },
): Cluster {
  const base = {
    ...seeds.redisOptions,
    socketTimeout: SOCKET_TIMEOUT_MS[kind.request ? 'producer' : 'worker'],
    ...(kind.connectionName && { connectionName: kind.connectionName }),
  };
  const options: ClusterOptions = kind.request
    ? {
        enableOfflineQueue: false,
        enableReadyCheck: false,
        lazyConnect: kind.lazyConnect ?? false,
        redisOptions: { ...base, commandTimeout: kind.commandTimeoutMs, maxRetriesPerRequest: 1 },
      }
    : { redisOptions: { ...base, maxRetriesPerRequest: null } };
  return new Cluster(seeds.nodes, options);
}

/**
 * A {@link RedisFactory} for a Redis Cluster: the same producer/worker split as
 * {@link redisFactoryFromUrl}. The queues' BullMQ prefix must be a hash tag (`{askgate}`), so
 * every key of a queue lands in one slot.
 */
export function redisFactoryFromCluster(seeds: ClusterSeeds, opts: RedisFactoryOptions = {}): RedisFactory {
  const commandTimeoutMs = opts.commandTimeoutMs ?? PRODUCER_COMMAND_TIMEOUT_MS;
  return (role) =>
    role === 'producer'
      ? clusterConnection(seeds, { request: true, commandTimeoutMs, connectionName: 'askgate-producer' })
      : clusterConnection(seeds, { request: false, connectionName: 'askgate-worker' });
}

/** Closes a connection this process owns: QUIT with a short deadline, then a hard disconnect. */
export async function closeConnection(conn: Redis | Cluster, deadlineMs = 1000): Promise<void> {
  if (conn.status === 'end') return;
  // Not connected (Redis down, reconnecting): a QUIT could only wait in the offline queue.
  if (conn.status !== 'ready') {
    conn.disconnect();
    return;
  }
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

/** Longest a graceful worker close waits for running jobs before giving up, in ms. */
export const WORKER_CLOSE_DEADLINE_MS = 10_000;

/**
 * Closes a BullMQ worker. A graceful close waits for the running jobs, and BullMQ needs Redis to
 * finish them: while Redis is unreachable it would wait forever (askgate never exiting on
 * SIGTERM). So the close is forced when `conn` does not answer a PING within 1 s, and a graceful
 * one that takes longer than `deadlineMs` rejects. Jobs cut off this way keep their lock until it
 * expires and are then re-run by another worker as stalled, exactly as after a crash.
 */
export async function closeWorker(
  worker: Worker,
  conn: Redis | Cluster,
  force: boolean,
  deadlineMs = WORKER_CLOSE_DEADLINE_MS,
): Promise<void> {
  // A Cluster reports "ready" until a command fails, so ask the server rather than trust the status.
  const reachable =
    !force &&
    conn.status === 'ready' &&
    (await withDeadline(conn.ping(), 1000, 'ping').then(
      () => true,
      () => false,
    ));
  if (!reachable) return worker.close(true);
  await withDeadline(worker.close(false), deadlineMs, 'graceful worker close');
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
