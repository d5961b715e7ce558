import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpSettings } from '../config.js';
import type { Gateway } from '../app/gateway.js';
import type { Clock, Logger } from '../core/ports.js';
import type { ModernMcpHttp } from '../mcp/http-modern.js';
import type { AskgateMcp } from '../mcp/server.js';
import { gatewayAsk } from '../mcp/gateway-ask.js';
import { originIsHost } from '../security/http.js';
import { systemClock } from '../system-clock.js';
import { parseJsonBody } from './json-body.js';
import { McpSessionTable, callerOf, type TableSession } from './mcp-sessions.js';

/** Options of {@link registerMcpRoute}. */
export interface McpRouteOptions {
  gateway: Gateway;
  logger: Pick<Logger, 'warn' | 'info'>;
  settings: McpSettings;
  /** Open sessions at most (default 100); when full, the least recently used one with no call in flight is closed. */
  maxSessions?: number;
  /** Open sessions of one caller (peer address) at most (default 25, at most `maxSessions`); likewise. */
  maxSessionsPerCaller?: number;
  /** A session with no request open for this long is closed, in ms (default 10 min; a waiting call keeps it open). */
  idleMs?: number;
  /** Reads the time of session use and idleness, and of progress notifications (default: the system clock). */
  clock?: Clock;
}

interface Session extends TableSession {
  transport: StreamableHTTPServerTransport;
  mcp: AskgateMcp;
}

/** The MCP SDK, loaded on the first `/mcp` request so askgate starts fast when MCP is unused. */
let sdk: Promise<{
  Transport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: (body: unknown) => boolean;
  createAskgateMcpServer: typeof import('../mcp/server.js').createAskgateMcpServer;
  paramsProblem: typeof import('../mcp/params-check.js').paramsProblem;
}> | null = null;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('../mcp/server.js'),
    import('../mcp/params-check.js'),
  ]).then(([http, types, server, check]) => ({
    Transport: http.StreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    createAskgateMcpServer: server.createAskgateMcpServer,
    paramsProblem: check.paramsProblem,
  })));

/** A 2025-era `initialize` (2026-07-28 has none): it needs no look by the v2 SDK, nor its loading. */
const isInitialize = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';

const jsonRpcError = (reply: FastifyReply, status: number, code: number, message: string, id: unknown = null) =>
  reply.code(status).send({
    jsonrpc: '2.0',
    error: { code, message },
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
  });

/**
 * MCP over Streamable HTTP at `/mcp` (POST, GET for the server stream, DELETE to end a session),
 * authenticated like `/v1` (a `bearer` route). A 2026-07-28 request (a `_meta` envelope, no
 * session) is answered statelessly by the v2 SDK (mcp/http-modern.ts). 2025-era traffic uses
 * sessions: each gets its own MCP server (v1 SDK); its id is the default runId of its asks. Sessions live in this process: behind a load balancer, route a
 * session to one replica (the asks themselves are shared through Redis as always).
 *
 * Sessions are bounded: at most `maxSessionsPerCaller` per peer address and `maxSessions` in all
 * (a new one evicts the least recently used session with no call in flight, of its caller when
 * the caller is at its bound, else initialize is refused: 429 for the caller's bound, 503 for the
 * total; see mcp-sessions.ts), closed after `idleMs` without an open request, and ended by
 * `DELETE /mcp`, which also cancels their waiting asks. A body that is not JSON (or nests too
 * deep) is a JSON-RPC parse error (-32700, HTTP 400).
 */
export function registerMcpRoute(app: FastifyInstance, opts: McpRouteOptions): void {
  const { gateway, settings, logger } = opts;
  const idleMs = opts.idleMs ?? 10 * 60_000;
  const maxSessions = opts.maxSessions ?? 100;
  const maxPerCaller = Math.min(opts.maxSessionsPerCaller ?? 25, maxSessions);
  /** Open sessions, least recently used first (a request moves its session to the end). */
  const sessions = new McpSessionTable<Session>({ max: maxSessions, perCaller: maxPerCaller }, (s, why) => {
    logger.info({ why, sessions: sessions.size }, 'mcp session closed');
    void s.transport.close().catch(() => undefined);
  });
  const backend = gatewayAsk(gateway);
  const clock = opts.clock ?? systemClock;
  /** The 2026-07-28 leg (v2 SDK, stateless), loaded on the first POST without a session. */
  let modern: Promise<ModernMcpHttp> | undefined;
  const loadModern = () =>
    (modern ??= import('../mcp/http-modern.js').then((m) =>
      m.modernMcpHttp({
        backend,
        logger,
        defaultTo: settings.defaultTo,
        progressIntervalMs: settings.progressIntervalMs,
        waitMs: settings.waitSeconds * 1000,
        clock,
      }),
    ));

  const sweeper = setInterval(() => sessions.sweep(clock.now(), idleMs), Math.min(60_000, idleMs));
  sweeper.unref();
  app.addHook('preClose', async () => {
    clearInterval(sweeper);
    const all = sessions.clear();
    // A shutdown does not cancel asks: they stay in the store and resolve as usual.
    await Promise.allSettled(all.map((s) => s.transport.close()));
  });

  /** Marks a request of `session` as open until its response closes, and the session as just used. */
  const track = (id: string | undefined, session: Session, kind: 'calls' | 'streams', reply: FastifyReply) => {
    session[kind] += 1;
    session.lastSeen = clock.now();
    if (id !== undefined) sessions.touch(id, session);
    reply.raw.once('close', () => {
      session[kind] -= 1;
      session.lastSeen = clock.now();
    });
  };

  /** Answers a hijacked request that threw with a JSON-RPC internal error (when nothing was sent yet). */
  const failed = (reply: FastifyReply, error: unknown) => {
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'mcp request failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    if (!reply.raw.writableEnded)
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // The route auth already checked the token (and, without one, Host and Origin). A browser
    // page of another origin is refused in every mode, as the MCP transport spec requires.
    if (request.headers.origin !== undefined && !originIsHost(request.headers)) {
      return jsonRpcError(reply, 403, -32000, 'cross-origin requests to /mcp are not allowed');
    }
    if (Buffer.isBuffer(request.body)) {
      try {
        request.body = parseJsonBody(request.body);
      } catch (error) {
        return jsonRpcError(reply, 400, -32700, `parse error: ${(error as Error).message}`);
      }
    }
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    // 2026-07-28 requests (a `_meta` envelope, no session) go to the v2 SDK; 2025-era ones to the sessions below.
    if (request.method === 'POST' && sessionId === undefined && !isInitialize(request.body)) {
      const leg = await loadModern();
      if (await leg.isModern(request.raw, request.body)) {
        reply.hijack();
        await leg.serve(request.raw, reply.raw, request.body).catch((error: unknown) => failed(reply, error));
        return reply;
      }
    }
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return jsonRpcError(reply, 404, -32001, 'session not found; initialize a new one');
    if (session && request.method === 'POST') {
      // A response to the request itself (HTTP 200): the client's SDK hands it to the pending call.
      const problem = (await loadSdk()).paramsProblem(request.body);
      if (problem !== null)
        return jsonRpcError(reply, 200, -32602, `invalid params: ${problem}`, (request.body as { id?: unknown }).id);
    }
    let admitted: string | undefined;
    if (!session) {
      if (request.method !== 'POST' || !(await loadSdk()).isInitializeRequest(request.body)) {
        return jsonRpcError(
          reply,
          400,
          -32000,
          'no session: send an initialize request first (without Mcp-Session-Id)',
        );
      }
      const caller = callerOf(request.socket.remoteAddress);
      const refused = sessions.admit(caller);
      if (refused !== null) {
        const limit = refused === 'caller' ? maxPerCaller : maxSessions;
        logger.warn(
          { sessions: sessions.size, limit, bound: refused },
          'mcp session refused: every session has a call in flight',
        );
        reply.header('retry-after', '5');
        return jsonRpcError(
          reply,
          refused === 'caller' ? 429 : 503,
          -32000,
          refused === 'caller'
            ? `too many MCP sessions from this address (${limit}), each with a call in flight; retry later or end one (DELETE /mcp)`
            : `too many MCP sessions (${limit}), each with a call in flight; retry later or end one (DELETE /mcp)`,
        );
      }
      admitted = caller;
      try {
        session = await openSession(caller);
      } catch (error) {
        sessions.opened(caller);
        throw error;
      }
    }
    track(sessionId, session, request.method === 'GET' ? 'streams' : 'calls', reply);
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      failed(reply, error);
    } finally {
      // By now an initialize either registered its session or failed (and never will).
      if (admitted !== undefined) sessions.opened(admitted);
    }
    return reply;
  };

  const openSession = async (caller: string): Promise<Session> => {
    const { Transport, createAskgateMcpServer } = await loadSdk();
    const mcp = createAskgateMcpServer({
      backend,
      defaultTo: settings.defaultTo,
      runIdFor: (id) => id ?? `mcp-${randomUUID()}`,
      progressIntervalMs: settings.progressIntervalMs,
      waitMs: settings.waitSeconds * 1000,
      clock,
    });
    const session: Session = {
      mcp,
      caller,
      lastSeen: clock.now(),
      calls: 0,
      streams: 0,
      transport: new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add(id, session),
        // The client ended the session (DELETE): its waiting calls are over, so are their asks.
        onsessionclosed: (id) => {
          sessions.delete(id);
          void mcp.cancelAll();
        },
      }),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    await mcp.server.connect(session.transport);
    return session;
  };

  void app.register(async (scope) => {
    // The body is parsed in the handler, so that bad JSON gets a JSON-RPC parse error, not /v1's error shape.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_r, body, done) => done(null, body));
    scope.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler });
  });
}
