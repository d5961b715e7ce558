import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/ports.js';
import type { AskBackend } from './tool.js';
import type { McpCallOptions } from './calls.js';

/** Options of {@link modernMcpHttp}. */
export interface ModernHttpOptions extends Omit<McpCallOptions, 'backend'> {
  backend: AskBackend;
  logger: Pick<Logger, 'warn'>;
}

/** The 2026-07-28 leg of `/mcp`: answers one request, or says it is a 2025-era one (left to the sessions). */
export interface ModernMcpHttp {
  /** Whether `req` is a 2026-07-28 request (a `_meta` envelope claim), not 2025-era traffic (`initialize`, claim-less). */
  isModern(req: IncomingMessage, body: unknown): Promise<boolean>;
  /** Answers a 2026-07-28 request on `res` (the caller hands over the response). */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
}

/**
 * Builds the stateless 2026-07-28 endpoint on the v2 SDK (`createMcpHandler`, `legacy: 'reject'`):
 * one McpServer per request from one factory, every call its own run unless it names `runId`.
 * Closing the response (the client cancelling the call) aborts the call, which cancels its ask.
 * Loaded on the first `/mcp` POST without a session so askgate starts fast when MCP is unused.
 */
export async function modernMcpHttp(opts: ModernHttpOptions): Promise<ModernMcpHttp> {
  const [{ createMcpHandler, isLegacyRequest }, { createAskgateMcpV2 }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('./server-v2.js'),
  ]);
  const v2 = createAskgateMcpV2({ ...opts, runIdFor: () => `mcp-${randomUUID()}` });
  const handler = createMcpHandler(v2.factory, {
    legacy: 'reject',
    // A refused request is the client's bad input, already answered with its error: not logged.
    onerror: (err) => {
      if (!err.message.startsWith('Rejected inbound request'))
        opts.logger.warn({ err: err.message }, 'mcp request failed');
    },
  });

  return {
    async isModern(req, body) {
      return !(await isLegacyRequest(toWebRequest(req, undefined, new AbortController().signal), body));
    },
    async serve(req, res, body) {
      const abort = new AbortController();
      const request = toWebRequest(req, body, abort.signal);
      res.once('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const response = await handler.fetch(request, { parsedBody: body });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        const reader = response.body.getReader();
        abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            res.write(value);
          }
        } catch {
          // The client went away mid-stream: the abort above ends the call.
        }
      }
      res.end();
    },
  };
}

/** A web `Request` for the SDK from a Node request whose JSON body fastify already parsed. */
function toWebRequest(req: IncomingMessage, body: unknown, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The route already checked Host; the SDK reads only the path, so a fixed origin keeps odd Host values out.
  return new Request(new URL(req.url ?? '/mcp', 'http://localhost'), {
    method: req.method ?? 'POST',
    headers,
    signal,
    ...(body !== undefined && req.method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
}
