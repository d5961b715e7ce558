import { Redis, type Cluster } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { Gateway } from './core/gateway.js';
import { InboundHandler } from './core/inbound.js';
import { OutboxWork } from './core/outbox-work.js';
import type { AskStore, Channel, Clock, Logger, Outbox, ResultBus, SeenEvents, TimeoutScheduler } from './core/ports.js';
import type { ConsoleSessionStore } from './console/session.js';
import { buildServer } from './api/server.js';
import { registerChannelRoutes } from './api/channel-routes.js';
import { registerEventRoutes } from './api/events-routes.js';
import { registerMcpRoute } from './api/mcp-route.js';
import { HttpWebhookSender, type ResolveHost } from './webhooks/http-sender.js';
import { PrometheusMetrics } from './api/metrics.js';
import { newAskId } from './ids.js';
import { createLogger } from './logger.js';
import { RedisAskStore } from './store/redis-store.js';
import { RedisResultBus } from './store/redis-bus.js';
import { MemoryAskStore } from './store/memory-store.js';
import { MemoryResultBus } from './store/memory-bus.js';
import { MemoryConsoleSessions, RedisConsoleSessions } from './store/console-sessions.js';
import { MemorySeenEvents, RedisSeenEvents } from './store/seen-events.js';
import { BullTimeoutScheduler } from './queue/bull-timeouts.js';
import { BullOutbox } from './queue/bull-outbox.js';
import { MemoryTimeoutScheduler } from './queue/memory-timeouts.js';
import { MemoryOutbox } from './queue/memory-outbox.js';
import { Reconciler } from './queue/reconciler.js';
import { closeConnection, clusterConnection, redisFactoryFromCluster, redisFactoryFromUrl } from './queue/connections.js';
import { checkRedisPolicy, connectWithRetry, createStoreConnection, isRedisUnavailable, STORE_COMMAND_TIMEOUT_MS, watchConnection } from './store/redis-setup.js';

/** A running askgate: the HTTP server, the gateway and a way to stop it all. */
export interface RunningAskgate {
  server: FastifyInstance;
  gateway: Gateway;
  /** `redis` (durable) or `memory` (embedded, nothing survives a restart). */
  storeMode: 'redis' | 'memory';
  /** The base URL the server listens on. */
  url: string;
  channels: string[];
  close(): Promise<void>;
}

/** Extra parts for tests and embedding: channels built elsewhere, a logger, a clock. */
export interface StartOptions {
  channels?: Channel[];
  logger?: Logger;
  clock?: Clock;
  /** Resolver of webhook host names (tests: a name that resolves to a refused address). */
  resolveWebhookHost?: ResolveHost;
}

interface Backend {
  store: AskStore;
  bus: ResultBus;
  timeouts: TimeoutScheduler;
  outbox: Outbox;
  consoleSessions: ConsoleSessionStore;
  /** Platform event ids seen by every replica (re-sent events have no second visible effect). */
  seen: SeenEvents;
  close(): Promise<void>;
}

async function redisBackend(config: Config, url: string, logger: Logger): Promise<Backend> {
  const cluster = config.redisCluster;
  const seeds = cluster && {
    nodes: cluster.nodes,
    redisOptions: { username: cluster.username, password: cluster.password, ...(cluster.tls && { tls: {} }) },
  };
  // The request path fails fast: no offline queue, and a command timeout for a hung Redis.
  const main: Redis | Cluster = seeds
    ? clusterConnection(seeds, { request: true, commandTimeoutMs: STORE_COMMAND_TIMEOUT_MS, lazyConnect: true })
    : createStoreConnection(url);
  watchConnection(main, 'store', logger);
  await connectWithRetry(main, logger);
  // On a cluster every primary must be safe: each holds part of the asks and queues.
  for (const node of main instanceof Redis ? [main] : main.nodes('master')) await checkRedisPolicy(node, config.allowEviction, logger);
  const subscriber = seeds ? clusterConnection(seeds, { request: false }) : new Redis(url, { maxRetriesPerRequest: null });
  watchConnection(subscriber, 'subscriber', logger);
  const store = new RedisAskStore(main, { prefix: config.keyPrefix });
  const bus = await RedisResultBus.create(subscriber, main, { prefix: config.keyPrefix });
  const connect = seeds ? redisFactoryFromCluster(seeds) : redisFactoryFromUrl(url);
  const queuePrefix = `{${config.keyPrefix}}`;
  const timeouts = new BullTimeoutScheduler({ connect, prefix: queuePrefix, ...config.queue });
  const outbox = new BullOutbox({ connect, prefix: queuePrefix, ...config.outbox, ...config.queue });
  return {
    store,
    bus,
    timeouts,
    outbox,
    consoleSessions: new RedisConsoleSessions(main, { prefix: config.keyPrefix }),
    seen: new RedisSeenEvents(main, { prefix: config.keyPrefix }),
    async close() {
      await bus.close();
      await closeConnection(subscriber);
      await closeConnection(main);
    },
  };
}

function memoryBackend(config: Config, clock: Clock): Backend {
  const bus = new MemoryResultBus();
  return {
    store: new MemoryAskStore(bus, clock),
    consoleSessions: new MemoryConsoleSessions(clock),
    seen: new MemorySeenEvents(clock),
    bus,
    timeouts: new MemoryTimeoutScheduler(),
    outbox: new MemoryOutbox(config.outbox),
    close: async () => {},
  };
}

/**
 * Builds the chat channels enabled in config. Each SDK is loaded only when its platform is
 * configured, so the embedded default starts fast.
 */
async function buildChannels(config: Config, logger: Logger): Promise<Channel[]> {
  const { telegram, slack, discord } = config.channels;
  const channels: Channel[] = [];
  if (telegram) {
    const { TelegramChannel } = await import('./channels/telegram/telegram-channel.js');
    channels.push(new TelegramChannel({ ...telegram, logger }));
  }
  if (slack) {
    const { SlackChannel } = await import('./channels/slack/slack-channel.js');
    channels.push(new SlackChannel({ ...slack, logger }));
  }
  if (discord) {
    const { DiscordChannel } = await import('./channels/discord/discord-channel.js');
    channels.push(new DiscordChannel({ ...discord, logger }));
  }
  return channels;
}

/** The composition root: builds the concrete adapters from config and starts API, workers and channels. */
export async function startAskgate(config: Config, options: StartOptions = {}): Promise<RunningAskgate> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? { now: () => Date.now() };
  const backend = config.redisUrl ? await redisBackend(config, config.redisUrl, logger) : memoryBackend(config, clock);
  const channels = new Map((options.channels ?? (await buildChannels(config, logger))).map((c) => [c.name, c]));
  const metrics = new PrometheusMetrics();
  const gateway = new Gateway({
    store: backend.store,
    bus: backend.bus,
    timeouts: backend.timeouts,
    outbox: backend.outbox,
    clock,
    channels,
    newId: () => newAskId(),
    metrics,
    logger,
    webhooks: config.webhook.secret
      ? new HttpWebhookSender({ secret: config.webhook.secret, timeoutMs: config.webhook.timeoutMs, allowedHosts: config.webhook.allowedHosts, resolve: options.resolveWebhookHost })
      : undefined,
    settings: {
      defaultTimeoutSeconds: config.timeouts.defaultSeconds,
      minTimeoutSeconds: config.timeouts.minSeconds,
      maxTimeoutSeconds: config.timeouts.maxSeconds,
      retentionMs: config.retentionMs,
      graceMs: config.reconciler.graceMs,
      sweepDelayMs: config.reconciler.sweepDelayMs,
    },
  });
  const work = new OutboxWork(gateway);
  await backend.timeouts.start((askId) => gateway.expire(askId));
  await backend.outbox.start(work);
  const reconciler = new Reconciler({
    intervalMs: config.reconciler.intervalMs,
    batch: 100,
    due: (now, limit) => backend.store.dueForSweep(now, limit),
    sweep: (entry) => work.sweep(entry.askId, entry.at),
    now: () => clock.now(),
    onError: (err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'reconciler tick failed'),
  });
  reconciler.start();

  const server = buildServer({
    gateway,
    metrics,
    logger,
    apiToken: config.apiToken,
    consoleSessions: backend.consoleSessions,
    bodyLimitBytes: config.bodyLimitBytes,
    maxWaitSeconds: config.maxWaitSeconds,
    isStoreUnavailable: isRedisUnavailable,
    ready: () => backend.store.ping(),
  });
  registerChannelRoutes(server, [...channels.values()].flatMap((c) => c.routes?.() ?? []));
  registerEventRoutes(server, { gateway });
  registerMcpRoute(server, { gateway, settings: config.mcp, maxSessions: config.mcpSessions.max, idleMs: config.mcpSessions.idleMs });

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    gateway.stopWaiting();
    await server.close();
    await reconciler.stop();
    for (const channel of channels.values()) await channel.stop().catch(() => {});
    await backend.outbox.close();
    await backend.timeouts.close();
    await backend.close();
  };
  try {
    const inbound = new InboundHandler(gateway, {}, backend.seen);
    for (const channel of channels.values()) await channel.start(inbound);
    const url = await server.listen({ port: config.port, host: config.host });
    return { server, gateway, storeMode: config.redisUrl ? 'redis' : 'memory', url, channels: [...channels.keys()], close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
