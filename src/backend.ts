// The store, bus, queues and shared state askgate runs on: Redis (standalone or Cluster) when
// configured, else process memory (the embedded default). main.ts composes the app over it.
import { Redis, type Cluster } from 'ioredis';
import type { Config } from './config.js';
import type {
  AskIndexes,
  AskStore,
  ChannelDirectory,
  Clock,
  Logger,
  Outbox,
  ResultBus,
  SeenEvents,
  StepScheduler,
} from './core/ports.js';
import type { ConsoleSessionStore } from './console/session.js';
import { forComponent } from './logger.js';
import { RedisAskStore } from './store/redis-store.js';
import { RedisResultBus } from './store/redis-bus.js';
import { MemoryAskStore } from './store/memory-store.js';
import { MemoryResultBus } from './store/memory-bus.js';
import { MemoryConsoleSessions, RedisConsoleSessions } from './store/console-sessions.js';
import { MemorySeenEvents, RedisSeenEvents } from './store/seen-events.js';
import { MemoryChannelDirectory, RedisChannelDirectory } from './store/channel-directory.js';
import { RedisFormDrafts } from './store/form-drafts.js';
import { MemoryFormDrafts } from './store/memory-form-drafts.js';
import type { FormDraftStore } from './core/form-draft-store.js';
import { BullStepScheduler } from './queue/bull-steps.js';
import { BullOutbox } from './queue/bull-outbox.js';
import { InlineOutbox } from './queue/inline-outbox.js';
import { MemoryStepScheduler } from './queue/memory-steps.js';
import { MemoryOutbox } from './queue/memory-outbox.js';
import {
  closeConnection,
  clusterConnection,
  redisFactoryFromCluster,
  redisFactoryFromUrl,
} from './queue/connections.js';
import {
  checkRedisPolicy,
  connectWithRetry,
  createStoreConnection,
  createSubscriberConnection,
  STORE_COMMAND_TIMEOUT_MS,
  watchConnection,
} from './store/redis-setup.js';

/** What askgate runs on: the ask store and its indexes, the result bus, the queues and the shared state of the inbound side. */
export interface Backend {
  store: AskStore;
  indexes: AskIndexes;
  bus: ResultBus;
  steps: StepScheduler;
  outbox: Outbox;
  /** The reconciler's re-drives: to the durable queue, deduplicated by job id (see AppPorts). */
  queuedOutbox?: Pick<Outbox, 'enqueue'>;
  consoleSessions: ConsoleSessionStore;
  /** Platform event ids seen by every replica (re-sent events have no second visible effect). */
  seen: SeenEvents;
  /** Forms answered on the message itself (Telegram drafts). */
  drafts: FormDraftStore;
  /** Conversations the channels learned (Teams' references). */
  directory: ChannelDirectory;
  close(): Promise<void>;
}

/** The Redis backend (standalone or Cluster, from config) at `url`: connects, checks the eviction policy, builds queues. */
export async function redisBackend(config: Config, url: string, logger: Logger, clock: Clock): Promise<Backend> {
  const cluster = config.redisCluster;
  const seeds = cluster && {
    nodes: cluster.nodes,
    redisOptions: { username: cluster.username, password: cluster.password, ...(cluster.tls && { tls: {} }) },
  };
  // The request path fails fast: no offline queue, and a command timeout for a hung Redis.
  const main: Redis | Cluster = seeds
    ? clusterConnection(seeds, { request: true, commandTimeoutMs: STORE_COMMAND_TIMEOUT_MS, lazyConnect: true })
    : createStoreConnection(url);
  const storeLog = forComponent(logger, 'store');
  watchConnection(main, 'store', storeLog);
  await connectWithRetry(main, storeLog);
  // On a cluster every primary must be safe: each holds part of the asks and queues.
  for (const node of main instanceof Redis ? [main] : main.nodes('master'))
    await checkRedisPolicy(node, config.allowEviction, storeLog);
  const subscriber = seeds ? clusterConnection(seeds, { request: false }) : createSubscriberConnection(url);
  watchConnection(subscriber, 'subscriber', storeLog);
  const store = new RedisAskStore(main, { prefix: config.keyPrefix, clock });
  const bus = await RedisResultBus.create(subscriber, main, { prefix: config.keyPrefix });
  const connect = seeds ? redisFactoryFromCluster(seeds) : redisFactoryFromUrl(url);
  const queuePrefix = `{${config.keyPrefix}}`;
  const queueLog = forComponent(logger, 'queue');
  const steps = new BullStepScheduler({ connect, prefix: queuePrefix, ...config.queue, logger: queueLog, clock });
  const { inlineConcurrency, ...outboxTuning } = config.outbox;
  const queued = new BullOutbox({ connect, prefix: queuePrefix, ...outboxTuning, ...config.queue, logger: queueLog });
  // A job that fails in-process and cannot be handed to the queue: the reconciler re-drives it.
  const onLost = (job: { askId: string }) => store.indexes.markForSweep(job.askId, clock.now());
  const outbox = new InlineOutbox({ queue: queued, concurrency: inlineConcurrency, logger: queueLog, onLost });
  return {
    store,
    indexes: store.indexes,
    bus,
    steps,
    outbox,
    queuedOutbox: { enqueue: (job) => outbox.requeue(job) },
    consoleSessions: new RedisConsoleSessions(main, { prefix: config.keyPrefix, clock }),
    seen: new RedisSeenEvents(main, { prefix: config.keyPrefix, clock }),
    directory: new RedisChannelDirectory(main, { prefix: config.keyPrefix }),
    drafts: new RedisFormDrafts(main, { prefix: config.keyPrefix, clock, retentionMs: config.retentionMs }),
    async close() {
      await bus.close();
      await closeConnection(subscriber);
      await closeConnection(main);
    },
  };
}

/** The in-process backend (the embedded default): nothing survives a restart. */
export function memoryBackend(config: Config, clock: Clock, logger: Logger): Backend {
  const bus = new MemoryResultBus();
  const queueLog = forComponent(logger, 'queue');
  const store = new MemoryAskStore(bus, clock);
  return {
    store,
    indexes: store.indexes,
    consoleSessions: new MemoryConsoleSessions(clock),
    seen: new MemorySeenEvents(clock),
    directory: new MemoryChannelDirectory(),
    drafts: new MemoryFormDrafts({ clock, retentionMs: config.retentionMs }),
    bus,
    steps: new MemoryStepScheduler({ logger: queueLog, clock }),
    outbox: new MemoryOutbox({ ...config.outbox, logger: queueLog }),
    close: async () => {},
  };
}
