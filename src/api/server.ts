import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyError,
  type FastifyReply,
} from 'fastify';
import { AskgateError } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import type { ConsoleFeed, ConsoleStreamLimits } from '../console/hub.js';
import type { ConsoleSessionStore } from '../console/session.js';
import type { Logger } from '../core/ports.js';
import { lazyChild } from '../logger.js';
import { installRouteAuth, type RouteConfig } from './auth.js';
import { answerClientError } from './client-error.js';
import {
  defaultMaxConnections,
  installConnectionLimits,
  openFileLimit,
  requestTimeoutOptions,
  type HttpLimits,
} from './connection-limits.js';
import { parseJsonBody } from './json-body.js';
import type { PrometheusMetrics } from './metrics.js';
import { registerAskRoutes } from './routes.js';
import { registerInsightsRoute } from './insights-routes.js';
import { registerAnswerPage } from '../links/page-routes.js';
import { registerLinkRoute } from '../links/links-api.js';
import type { LinkSettings } from '../links/answer-link.js';
import type { ChannelNames } from '../core/i18n/index.js';
import type { ChannelDirectory, Clock } from '../core/ports.js';

/**
 * Connections the kernel may hold for askgate before it accepts them (capped by the system's
 * `net.core.somaxconn`). Node's default, 511, overflowed when thousands of agents opened their
 * waiting calls at once (10,000 in the tap bench: hundreds of connections reset now and then), as
 * agents reconnecting after a restart would.
 */
export const LISTEN_BACKLOG = 4096;

/** What the HTTP server needs. */
export interface ServerDeps {
  gateway: Gateway;
  /** What the console's event stream reads. */
  consoleFeed: ConsoleFeed;
  /** The console's stream caps and stall limit. */
  consoleLimits: ConsoleStreamLimits;
  metrics: PrometheusMetrics;
  logger: Logger;
  /** fastify's own logger (a pino child); without it fastify logs nothing. Request lines are always off. */
  fastifyLogger?: FastifyBaseLogger;
  apiToken?: string;
  /** Console sign-outs, shared by every replica. */
  consoleSessions: ConsoleSessionStore;
  bodyLimitBytes: number;
  /** The request deadline and the connection cap (`ASKGATE_REQUEST_TIMEOUT_SECONDS`, `ASKGATE_MAX_CONNECTIONS`). */
  http: HttpLimits;
  maxWaitSeconds: number;
  /** True for errors meaning the store is unreachable or hung (answered with 503). */
  isStoreUnavailable: (error: unknown) => boolean;
  /** Readiness: throws when askgate cannot serve (store down, workers stopped). */
  ready: () => Promise<void>;
  /**
   * The answer page and its links (src/links/), when `ASKGATE_PUBLIC_URL` and `ASKGATE_LINK_SECRET`
   * are set: `/a/:token` and `POST /v1/asks/:id/links`; absent, neither route exists.
   */
  links?: LinkSettings & { clock: Clock; defaultLocale?: string; channelNames?: ChannelNames };
  /** Conversations the channels learned (Teams' references), listed at `GET /v1/channels/:channel/conversations`. */
  directory?: ChannelDirectory;
}

/** Builds the fastify server with every route, auth and JSON errors; channels may add routes before listen. */
export function buildServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({
    // Request logging stays off: URLs, headers and bodies may carry tokens or answers.
    // `request.log` is made only when a request writes a line (lazyChild): most requests log nothing.
    ...(deps.fastifyLogger
      ? {
          loggerInstance: deps.fastifyLogger,
          logController: new LogController({ disableRequestLogging: true }),
          childLoggerFactory: (logger, bindings, options) => lazyChild(logger, bindings, options),
        }
      : { logger: false }),
    bodyLimit: deps.bodyLimitBytes,
    ...requestTimeoutOptions(deps.http.requestTimeoutMs),
    return503OnClosing: true,
    // Run ids are up to 128 characters; the router's default of 100 refused longer ones with 414.
    routerOptions: { maxParamLength: 256 },
    // Malformed URLs and over-long path parameters get the API's JSON error shape too.
    frameworkErrors: (error, _request, reply) =>
      void (reply as FastifyReply)
        .code(error.statusCode ?? 400)
        .send({ error: { code: 'invalid_request', message: error.message.slice(0, 300) } }),
    // Requests node's HTTP parser refuses (bad request line, headers too large) get it as well.
    clientErrorHandler: answerClientError,
  });

  // First: a connection beyond the cap is answered (probes) or refused before anything else runs.
  installConnectionLimits(app, deps.http.maxConnections ?? defaultMaxConnections(openFileLimit()), deps.logger);
  // Before any route: every route added from here on is authenticated by its declaration.
  installRouteAuth(app, deps.apiToken);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AskgateError) return reply.code(error.httpStatus).send(error.toJSON());
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply
        .code(413)
        .send(new AskgateError('payload_too_large', `body is larger than ${deps.bodyLimitBytes} bytes`).toJSON());
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: { code: 'invalid_request', message: error.message } });
    }
    if (deps.isStoreUnavailable(error)) {
      deps.logger.warn({ url: request.url, err: error.message }, 'store unavailable');
      return reply
        .code(503)
        .header('retry-after', '1')
        .send(new AskgateError('store_unavailable', 'storage is unavailable; retry shortly').toJSON());
    }
    deps.logger.error({ url: request.url, err: error.message, stack: error.stack }, 'unhandled error');
    return reply.code(500).send(new AskgateError('internal', 'internal error').toJSON());
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(new AskgateError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`).toJSON()),
  );

  app.get('/healthz', { config: { auth: 'public' } satisfies RouteConfig }, async () => ({ ok: true }));
  app.get('/readyz', { config: { auth: 'public' } satisfies RouteConfig }, async (_request, reply) => {
    try {
      await deps.ready();
      return { ok: true };
    } catch (error) {
      return reply.code(503).send({
        ok: false,
        error: { code: 'not_ready', message: error instanceof Error ? error.message : String(error) },
      });
    }
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.scrape(deps.consoleFeed.store.insights, deps.consoleFeed.clock.now());
    return reply.type('text/plain; version=0.0.4').send(text);
  });

  registerAskRoutes(app, deps);
  registerInsightsRoute(app, { source: deps.consoleFeed.store.insights, clock: deps.consoleFeed.clock });
  registerLinkRoute(app, { gateway: deps.gateway, clock: deps.consoleFeed.clock, links: deps.links });
  if (deps.links) {
    const { secret, clock, defaultLocale, channelNames } = deps.links;
    registerAnswerPage(app, {
      gateway: deps.gateway,
      secret,
      clock,
      logger: deps.logger,
      ...(defaultLocale !== undefined && { defaultLocale }),
      ...(channelNames !== undefined && { channelNames }),
      isStoreUnavailable: deps.isStoreUnavailable,
    });
  }
  void app.register(import('../console/routes.js'), {
    gateway: deps.gateway,
    feed: deps.consoleFeed,
    apiToken: deps.apiToken,
    sessions: deps.consoleSessions,
    limits: deps.consoleLimits,
  });
  return app;
}
