import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AskgateError } from '../core/errors.js';
import type { Logger } from '../core/ports.js';

// Limits against clients that hold connections open: every request (headers and body) has a
// deadline, a refused request loses its connection, and the number of connections is capped
// below the process's open-file limit, with a small lane beyond the cap where health probes are
// still answered (a full process that cannot accept() at all looks dead to its orchestrator).

/** The HTTP server's limits (`ASKGATE_REQUEST_TIMEOUT_SECONDS`, `ASKGATE_MAX_CONNECTIONS`). */
export interface HttpLimits {
  /** The longest one request may take to arrive, headers and body; a response may stay open longer. */
  requestTimeoutMs: number;
  /** Connections served at once; unset: {@link defaultMaxConnections} of the open-file limit. */
  maxConnections?: number;
}

/**
 * Refusals after which the connection is closed, so a refused client cannot keep it (408 and
 * 431 come from node's parser: api/client-error.ts answers them and destroys the socket).
 */
const REFUSALS: ReadonlySet<number> = new Set([401, 403, 413]);

/** Routes a connection beyond the limit may still reach. */
const PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** Connections beyond the limit accepted at once (each gets a health answer or a 503, then is closed). */
export const PROBE_LANE = 64;

/** How long a connection beyond the limit may take to send its request before it is closed. */
const PROBE_LANE_MS = 2000;

/** File descriptors the default limit leaves for everything else: Redis and queue links, node's own, the probe lane. */
const RESERVED_FDS = 256;

/** The default limit where the open-file limit cannot be read (not Linux). */
const FALLBACK_MAX_CONNECTIONS = 1000;

/** The default limit's ceiling: beyond it, memory rather than descriptors runs out first. */
const DEFAULT_MAX_CONNECTIONS_CEILING = 65_536;

/** The process's soft open-file limit (RLIMIT_NOFILE) from `/proc/self/limits`, or undefined. */
export function openFileLimit(read = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(read());
    if (!match) return undefined;
    return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * The connection limit when `ASKGATE_MAX_CONNECTIONS` is unset: the open-file limit (node raises
 * its soft limit to the hard one at startup) less {@link RESERVED_FDS}, between 64 and 65,536;
 * 1,000 where the limit cannot be read.
 */
export function defaultMaxConnections(openFiles: number | undefined): number {
  if (openFiles === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(PROBE_LANE, Math.min(DEFAULT_MAX_CONNECTIONS_CEILING, openFiles - RESERVED_FDS));
}

/**
 * fastify's options that bound each request in time. node checks its open requests every
 * `connectionsCheckingInterval` (30 s by default, so a 30 s limit could let one run 60 s):
 * checked every second here. Only a request still arriving counts: once its body is read, its
 * response (a `?wait` long poll, an event stream) may stay open as long as it needs.
 */
export function requestTimeoutOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    },
  };
}

/**
 * Caps the connections of `app` at `maxConnections`. Up to {@link PROBE_LANE} more are accepted
 * for at most {@link PROBE_LANE_MS}: `/healthz` and `/readyz` are answered there, anything else
 * gets 503 `too_many_connections`; either way the connection is then closed. Beyond the lane a
 * connection is closed at once. Also closes the connection after a refusal (401, 403, 413) and
 * after any answer sent before the request's body was read.
 */
export function installConnectionLimits(app: FastifyInstance, maxConnections: number, logger: Logger): void {
  const beyond = new WeakSet<Socket>();
  let open = 0;
  let lane = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;
  app.server.on('connection', (socket: Socket) => {
    if (open < maxConnections) {
      open += 1;
      socket.once('close', () => (open -= 1));
      return;
    }
    if (Date.now() - warnedAt > 60_000) {
      warnedAt = Date.now();
      logger.warn({ maxConnections }, 'connection limit reached: new connections get 503 (health probes are answered)');
    }
    if (lane >= PROBE_LANE) return void socket.destroy();
    lane += 1;
    beyond.add(socket);
    const timer = setTimeout(() => socket.destroy(), PROBE_LANE_MS);
    socket.once('close', () => {
      lane -= 1;
      clearTimeout(timer);
    });
  });

  app.addHook('onRequest', (request, reply, done) => {
    if (!beyond.has(request.raw.socket)) return done();
    reply.header('connection', 'close');
    if (PROBES.has(request.routeOptions.url ?? '')) return done();
    void reply
      .code(503)
      .header('retry-after', '1')
      .send(
        new AskgateError(
          'too_many_connections',
          `askgate has ${maxConnections} connections open (ASKGATE_MAX_CONNECTIONS); retry shortly`,
        ).toJSON(),
      );
  });

  // With `Connection: close` node ends the socket once the answer is written; a body not read
  // yet is dropped with it (otherwise node would wait for the rest of it on a kept-alive socket).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (REFUSALS.has(reply.statusCode) || !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}
