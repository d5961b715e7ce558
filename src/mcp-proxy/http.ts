// `askgate mcp-proxy --listen <port>`: the proxy over Streamable HTTP at /mcp, both eras, stateless
// (the v2 SDK's createMcpHandler: 2026-07-28 natively, 2025-11-25 through its stateless fallback).
// Loopback by default, where requests must name a loopback Host (DNS rebinding); with
// ASKGATE_MCP_PROXY_TOKEN every request must carry it as a bearer token (required off loopback).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/server';
import { bearerToken, isLoopbackHost, tokenMatches } from '../security/http.js';

/** A listening proxy endpoint. */
export interface ProxyHttp {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Serves `factory`'s servers at http://host:port/mcp until closed; `token`: the bearer token every request needs. */
export async function serveHttp(
  factory: () => Server,
  at: { port: number; host: string },
  onerror: (error: Error) => void,
  token?: string,
): Promise<ProxyHttp> {
  const { createMcpHandler } = await import('@modelcontextprotocol/server');
  const handler = createMcpHandler(() => factory(), { legacy: 'stateless', onerror });
  const loopbackOnly = at.host === '127.0.0.1' || at.host === '::1' || at.host === 'localhost';

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') return void res.writeHead(404).end();
    if (loopbackOnly && !isLoopbackHost(req.headers.host)) return void res.writeHead(403).end();
    if (token !== undefined && !tokenMatches(bearerToken(req.headers.authorization), token))
      return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (req.method === 'POST' && body === undefined) return void res.writeHead(413).end();
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && name !== 'content-length')
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const request = new Request(new URL(req.url ?? '/mcp', 'http://localhost'), {
      method: req.method ?? 'GET',
      headers,
      signal: abort.signal,
      ...(body !== undefined ? { body: new Uint8Array(body) } : {}),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      } catch {
        // The host went away mid-stream: the abort above ends the call.
      }
    }
    res.end();
  };
  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      onerror(error as Error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      await handler.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
