import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { assemble, type AppPorts } from './app/assemble.js';
import type { Gateway } from './app/gateway.js';
import type { AskIndexes, AskStore, Channel, Clock, Logger } from './core/ports.js';
import { startAudit } from './audit/start.js';
import { buildServer, LISTEN_BACKLOG } from './api/server.js';
import { registerChannelRoutes } from './api/channel-routes.js';
import { registerEventRoutes } from './api/events-routes.js';
import { registerMcpRoute } from './api/mcp-route.js';
import { HttpWebhookSender, type ResolveHost } from './webhooks/http-sender.js';
import { PrometheusMetrics } from './api/metrics.js';
import { newAskId } from './ids.js';
import { createLogger, forComponent, isPino } from './logger.js';
import type { FormDraftStore } from './core/form-draft-store.js';
import { Reconciler, RECONCILER_TUNING } from './queue/reconciler.js';
import { isRedisUnavailable } from './store/redis-setup.js';
import { systemClock } from './system-clock.js';
import { memoryBackend, redisBackend } from './backend.js';
import { buildChannels } from './channels/index.js';
import { CHANNEL_DISPLAY_NAMES } from './channels/registry.js';
import { deliveryLink } from './links/answer-link.js';

/** A running askgate: the HTTP server, the gateway and a way to stop it all. */
export interface RunningAskgate {
  server: FastifyInstance;
  gateway: Gateway;
  /** The ask store (tests read records through it). */
  store: AskStore;
  /** The indexes beside the records (tests look at the sweep set through them). */
  indexes: AskIndexes;
  /** The ports the shell was built over (tests rebuild a piece with one swapped, see app/assemble.ts). */
  ports: AppPorts;
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
  /** The drafts of forms answered on a message, instead of the backend's (tests: a slow or counting store). */
  drafts?: FormDraftStore;
}

/** How long requests in flight may take to finish at shutdown before their connections are closed. */
const SHUTDOWN_GRACE_MS = 3000;

/** The composition root: builds the concrete adapters from config and starts API, workers and channels. */
export async function startAskgate(config: Config, options: StartOptions = {}): Promise<RunningAskgate> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const backend = config.redisUrl
    ? await redisBackend(config, config.redisUrl, logger, clock)
    : memoryBackend(config, clock, logger);
  const built = options.channels ?? (await buildChannels(config, logger, clock, backend.directory));
  const channels = new Map(built.map((c) => [c.name, c]));
  const metrics = new PrometheusMetrics();
  const links =
    config.publicUrl && config.linkSecret ? { publicUrl: config.publicUrl, secret: config.linkSecret } : null;
  const ports: AppPorts = {
    store: backend.store,
    indexes: backend.indexes,
    bus: backend.bus,
    steps: backend.steps,
    outbox: backend.outbox,
    ...(backend.queuedOutbox && { queuedOutbox: backend.queuedOutbox }),
    drafts: options.drafts ?? backend.drafts,
    clock,
    channels,
    newId: () => newAskId(),
    metrics,
    logger: forComponent(logger, 'gateway'),
    webhooks: config.webhook.secret
      ? new HttpWebhookSender({
          secret: config.webhook.secret,
          timeoutMs: config.webhook.timeoutMs,
          allowedHosts: config.webhook.allowedHosts,
          resolve: options.resolveWebhookHost,
          clock,
        })
      : undefined,
    // Loaded on the first push only: the A2A SDK stays out of a process that never pushes.
    renderPush: async (record) => (await import('./a2a/push.js')).renderPush(record),
    ...(links && { pageLink: deliveryLink(links, () => clock.now()) }),
    settings: {
      timeouts: config.timeouts,
      retentionMs: config.retentionMs,
      defaultLocale: config.defaultLocale,
      channelNames: CHANNEL_DISPLAY_NAMES,
      graceMs: config.reconciler.graceMs,
      sweepDelayMs: config.reconciler.sweepDelayMs,
    },
  };
  const app = assemble(ports);
  const { gateway, work } = app;
  await backend.steps.start(app.steps);
  await backend.outbox.start(work);
  const reconciler = new Reconciler({
    ...RECONCILER_TUNING,
    intervalMs: config.reconciler.intervalMs,
    due: (now, limit) => backend.indexes.dueForSweep(now, limit),
    sweep: (entry) => work.sweep(entry.askId, entry.at),
    sweepMany: (entries) => work.sweepMany(entries),
    now: () => clock.now(),
    logger: forComponent(logger, 'reconciler'),
  });
  const httpLog = forComponent(logger, 'http');
  const server = buildServer({
    gateway,
    consoleFeed: { store: backend.store, bus: backend.bus, clock, logger: httpLog },
    consoleLimits: config.console,
    metrics,
    logger: httpLog,
    ...(isPino(httpLog) && { fastifyLogger: httpLog }),
    apiToken: config.apiToken,
    consoleSessions: backend.consoleSessions,
    bodyLimitBytes: config.bodyLimitBytes,
    http: config.http,
    maxWaitSeconds: config.maxWaitSeconds,
    isStoreUnavailable: isRedisUnavailable,
    ready: () => backend.store.ping(),
    directory: backend.directory,
    ...(links && {
      links: { ...links, clock, defaultLocale: config.defaultLocale, channelNames: CHANNEL_DISPLAY_NAMES },
    }),
  });
  registerChannelRoutes(
    server,
    [...channels.values()].flatMap((c) => c.routes?.() ?? []),
  );
  registerEventRoutes(server, {
    gateway,
    store: backend.store,
    bus: backend.bus,
    logger: httpLog,
    limits: config.eventStreams,
  });
  startAudit({ server, config, store: backend.store, bus: backend.bus, logger: forComponent(logger, 'audit'), clock });
  registerMcpRoute(server, {
    gateway,
    logger: httpLog,
    settings: config.mcp,
    maxSessions: config.mcpSessions.max,
    maxSessionsPerCaller: config.mcpSessions.perCaller,
    idleMs: config.mcpSessions.idleMs,
    clock,
  });
  if (config.a2a.enabled) {
    const { registerA2ARoutes } = await import('./a2a/route.js');
    registerA2ARoutes(server, {
      gateway,
      logger: httpLog,
      apiToken: config.apiToken,
      url: config.a2a.url,
      defaultTo: config.mcp.defaultTo,
      pushEnabled: ports.webhooks !== undefined,
      waitSeconds: config.a2a.waitSeconds,
      isStoreUnavailable: isRedisUnavailable,
    });
  }

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    gateway.stopWaiting();
    // A socket that never sent a request (a client's pre-opened pooled connection) is not idle to
    // node, so server.close() would wait out the request timeout (30 s by default) on it: close what is left
    // once the requests in flight had a grace period to finish.
    const force = setTimeout(() => server.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await server.close().finally(() => clearTimeout(force));
    await reconciler.stop();
    for (const channel of channels.values()) await channel.stop().catch(() => {});
    await backend.outbox.close();
    await backend.steps.close();
    await backend.close();
  };
  try {
    const inbound = app.inbound({}, backend.seen);
    for (const channel of channels.values()) await channel.start(inbound);
    const url = await server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
    reconciler.start(); // after listening: a backlog of due asks does not hold up serving
    return {
      server,
      gateway,
      store: backend.store,
      indexes: backend.indexes,
      ports,
      storeMode: config.redisUrl ? 'redis' : 'memory',
      url,
      channels: [...channels.keys()],
      close,
    };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
