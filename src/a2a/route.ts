import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isLegacyJsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import type { Gateway } from '../app/gateway.js';
import type { Logger } from '../core/ports.js';
import type { Target } from '../core/schemas.js';
import type { RouteConfig } from '../api/auth.js';
import { parseJsonBody } from '../api/json-body.js';
import { validHost } from '../security/http.js';
import { agentCard, agentCardJson, legacyAgentCardJson, type CardOptions } from './card.js';
import { ABORT_SIGNAL_KEY, AskgateA2AHandler } from './handler.js';
import { markUnreadParams } from './errors.js';

/** Where the JSON-RPC endpoint is served. */
export const A2A_PATH = '/a2a';
/** Where the agent card is served (A2A's well-known path). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Options of {@link registerA2ARoutes}. */
export interface A2ARouteOptions {
  gateway: Pick<Gateway, 'ask' | 'get' | 'cancel' | 'wait' | 'run' | 'isStopping'>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Set when `/v1` needs a token: the card then names the bearer scheme. */
  apiToken?: string;
  /**
   * Public URL of the endpoint (`ASKGATE_A2A_URL`, else `ASKGATE_PUBLIC_URL` + `/a2a`); by default
   * built from the request's `Host` when it is a plain host[:port], else from the listening address.
   */
  url?: string;
  defaultTo?: Target;
  pushEnabled: boolean;
  /** The longest a blocking SendMessage waits, in s (`ASKGATE_A2A_WAIT_SECONDS`). */
  waitSeconds: number;
  isStoreUnavailable: (error: unknown) => boolean;
  /** Interval of `: keep-alive` comments on streams, in ms (default 15 000). */
  heartbeatMs?: number;
}

const VERSIONS = new Set(['0.3', '1.0']);

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The request's id as a response may echo it: a string or a number, else null. */
const rpcId = (id: unknown): string | number | null => (typeof id === 'string' || typeof id === 'number' ? id : null);

const rpcError = (id: unknown, code: number, message: string) => ({
  jsonrpc: '2.0',
  id: rpcId(id),
  error: { code, message },
});

/**
 * askgate as an A2A agent: the agent card at `/.well-known/agent-card.json` (public: it is how
 * agents discover askgate; a v0.3-shaped card unless `A2A-Version` asks for 1.0, as the SDK's
 * own compatibility layer does) and JSON-RPC at `POST /a2a` (a `bearer` route, like `/v1`).
 * v0.3 method names (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, …) go to the
 * SDK's v0.3 handler, every other method to its 1.0 handler; both call one
 * {@link AskgateA2AHandler}. Streams are server-sent events with keep-alive comments.
 */
export function registerA2ARoutes(app: FastifyInstance, opts: A2ARouteOptions): void {
  const version = packageVersion();
  const cardOptions = (request: FastifyRequest): CardOptions => ({
    url: opts.url ?? `${request.protocol}://${requestHost(request)}${A2A_PATH}`,
    version,
    bearer: opts.apiToken !== undefined,
    pushNotifications: opts.pushEnabled,
  });
  const handler = new AskgateA2AHandler({
    gateway: opts.gateway,
    card: agentCard({
      url: opts.url ?? `http://localhost${A2A_PATH}`,
      version,
      bearer: false,
      pushNotifications: opts.pushEnabled,
    }),
    logger: opts.logger,
    blockingWaitMs: opts.waitSeconds * 1000,
    defaultTo: opts.defaultTo,
    pushEnabled: opts.pushEnabled,
    isStoreUnavailable: opts.isStoreUnavailable,
  });
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const open = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const abort of open) abort.abort();
  });

  app.get(AGENT_CARD_PATH, { config: { auth: 'public' } satisfies RouteConfig }, async (request, reply) => {
    const asked = request.headers['a2a-version'];
    const wanted = typeof asked === 'string' && asked.trim() !== '' ? asked.trim() : '0.3';
    const options = cardOptions(request);
    return reply
      .header('vary', 'A2A-Version')
      .header('cache-control', 'no-cache')
      .send(wanted.startsWith('0.') ? legacyAgentCardJson(options) : agentCardJson(options));
  });

  void app.register(async (scope) => {
    // The body is parsed here so that bad JSON gets a JSON-RPC parse error, not /v1's error shape.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['application/json', 'application/a2a+json'], { parseAs: 'buffer' }, (_r, body, done) =>
      done(null, body),
    );
    scope.post(A2A_PATH, async (request, reply) => {
      if (!Buffer.isBuffer(request.body))
        return rpcError(null, -32700, 'send one JSON-RPC request as the body (content-type: application/json)');
      let body: unknown;
      try {
        body = parseJsonBody(request.body);
      } catch (error) {
        return rpcError(null, -32700, (error as Error).message);
      }
      const method = body !== null && typeof body === 'object' ? (body as { method?: unknown }).method : undefined;
      const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
      const asked = request.headers['a2a-version'];
      const requested = typeof asked === 'string' && asked.trim() !== '' ? asked.trim() : undefined;
      const useLegacy = isLegacyJsonRpcMethod(method);
      if (requested !== undefined && !VERSIONS.has(requested)) {
        const error = new VersionNotSupportedError(`A2A-Version ${requested.slice(0, 20)} is not supported (0.3, 1.0)`);
        return useLegacy
          ? { jsonrpc: '2.0', id: rpcId(id), error: LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) }
          : { jsonrpc: '2.0', id: rpcId(id), error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
      }
      const abort = new AbortController();
      const onClose = () => abort.abort();
      reply.raw.once('close', onClose);
      const context = new ServerCallContext({
        requestedVersion: useLegacy ? '0.3' : (requested ?? '1.0'),
        state: new Map<string, unknown>([[ABORT_SIGNAL_KEY, abort.signal]]),
      });
      const answer = await (useLegacy ? legacy : v1).handle(body as Record<string, unknown>, context);
      if (!isStream(answer)) {
        reply.raw.off('close', onClose);
        // Bad input, answered as such and not logged.
        markUnreadParams(answer);
        return answer;
      }
      return stream(reply, answer, abort, id, useLegacy);
    });
  });

  /** Sends a JSON-RPC stream as server-sent events; its first event decides between SSE and a JSON error. */
  async function stream(
    reply: FastifyReply,
    events: AsyncGenerator<unknown, void, undefined>,
    abort: AbortController,
    id: unknown,
    useLegacy: boolean,
  ): Promise<unknown> {
    const mapError = (error: unknown) =>
      useLegacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : JsonRpcTransportHandler.mapToJSONRPCError(error);
    let first: IteratorResult<unknown, void>;
    try {
      first = await events.next();
    } catch (error) {
      return { jsonrpc: '2.0', id: rpcId(id), error: mapError(error) };
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    open.add(abort);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    try {
      if (!first.done) res.write(formatSSEEvent(first.value));
      for (;;) {
        if (abort.signal.aborted) break;
        const next = await events.next();
        if (next.done) break;
        res.write(formatSSEEvent(next.value));
      }
    } catch (error) {
      opts.logger.warn({ err: (error as Error).message }, 'a2a stream ended with an error');
      if (!res.writableEnded) res.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: rpcId(id), error: mapError(error) }));
    } finally {
      clearInterval(heartbeat);
      open.delete(abort);
      await events.return(undefined).catch(() => undefined);
      if (!res.writableEnded) res.end();
    }
    return reply;
  }
}

/** The request's `Host` when it is a plain host[:port]; else the address and port the connection came in on. */
function requestHost(request: FastifyRequest): string {
  const host = validHost(request.headers.host);
  if (host !== null) return host;
  const address = (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/i, '');
  return `${address.includes(':') ? `[${address}]` : address}:${request.socket.localPort ?? 80}`;
}

function isStream(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}
