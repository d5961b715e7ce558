import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpSettings } from '../config.js';
import { AskgateError } from '../core/errors.js';
import type { Gateway } from '../core/gateway.js';
import type { AskgateMcp } from '../mcp/server.js';
import { gatewayAsk } from '../mcp/gateway-ask.js';
import { bearerToken, tokenMatches } from './auth.js';

/** Options of {@link registerMcpRoute}. */
export interface McpRouteOptions {
  gateway: Gateway;
  apiToken?: string;
  settings: McpSettings;
  /** Sessions idle longer than this are closed, in ms (default 2 h: longer than the longest ask). */
  idleMs?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  mcp: AskgateMcp;
  lastSeen: number;
}

/** The MCP SDK, loaded on the first `/mcp` request so askgate starts fast when MCP is unused. */
let sdk: Promise<{
  Transport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: (body: unknown) => boolean;
  createAskgateMcpServer: typeof import('../mcp/server.js').createAskgateMcpServer;
}> | null = null;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('../mcp/server.js'),
  ]).then(([http, types, server]) => ({ Transport: http.StreamableHTTPServerTransport, isInitializeRequest: types.isInitializeRequest, createAskgateMcpServer: server.createAskgateMcpServer })));

const jsonRpcError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * MCP over Streamable HTTP at `/mcp` (POST, GET for the server stream, DELETE to end a session),
 * with the same bearer auth as `/v1`. Each session gets its own MCP server; its id is the
 * default runId of its asks. Sessions live in this process: behind a load balancer, route a
 * session to one replica (the asks themselves are shared through Redis as always).
 */
export function registerMcpRoute(app: FastifyInstance, opts: McpRouteOptions): void {
  const { gateway, settings } = opts;
  const { logger } = gateway.deps;
  const idleMs = opts.idleMs ?? 2 * 3600_000;
  const sessions = new Map<string, Session>();
  const ask = gatewayAsk(gateway);

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (now - s.lastSeen <= idleMs) continue;
      sessions.delete(id);
      void s.transport.close().catch(() => undefined);
    }
  }, 60_000);
  sweeper.unref();
  app.addHook('preClose', async () => {
    clearInterval(sweeper);
    const all = [...sessions.values()];
    sessions.clear();
    // A shutdown does not cancel asks: they stay in the store and resolve as usual.
    await Promise.allSettled(all.map((s) => s.transport.close()));
  });

  /** Rejects requests without the token, and browser requests from another origin (DNS rebinding). */
  const guard = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (opts.apiToken && !tokenMatches(bearerToken(request.headers.authorization), opts.apiToken)) {
      void reply.code(401).header('www-authenticate', 'Bearer').send(new AskgateError('unauthorized', 'missing or invalid bearer token').toJSON());
      return false;
    }
    const origin = request.headers.origin;
    if (origin) {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        // an unparsable Origin is refused below
      }
      if (host !== request.headers.host) {
        void jsonRpcError(reply, 403, -32000, 'cross-origin requests to /mcp are not allowed');
        return false;
      }
    }
    return true;
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!guard(request, reply)) return reply;
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return jsonRpcError(reply, 404, -32001, 'session not found; initialize a new one');
    if (!session) {
      if (request.method !== 'POST' || !(await loadSdk()).isInitializeRequest(request.body)) {
        return jsonRpcError(reply, 400, -32000, 'no session: send an initialize request first (without Mcp-Session-Id)');
      }
      session = await openSession();
    }
    session.lastSeen = Date.now();
    reply.hijack();
    try {
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'mcp request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
      if (!reply.raw.writableEnded) reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    }
    return reply;
  };

  const openSession = async (): Promise<Session> => {
    const { Transport, createAskgateMcpServer } = await loadSdk();
    const mcp = createAskgateMcpServer({
      ask,
      defaultTo: settings.defaultTo,
      runIdFor: (id) => id ?? `mcp-${randomUUID()}`,
      progressIntervalMs: settings.progressIntervalMs,
    });
    const session: Session = {
      mcp,
      lastSeen: Date.now(),
      transport: new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, session),
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

  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler });
}
