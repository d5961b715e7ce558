import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpSettings } from '../config.js';
import type { Logger } from '../core/ports.js';
import { AskgateClient } from '../client/index.js';
import { createAskgateMcpServer } from './server.js';
import { httpAsk } from './http-ask.js';

/** Options of {@link runStdioMcpServer}. */
export interface StdioMcpOptions {
  /** Base URL of the askgate to ask through (`ASKGATE_URL`). */
  url: string;
  token?: string;
  settings: McpSettings;
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  stdout?: NodeJS.WritableStream;
  /** Receives transport and protocol errors; it must write to stderr, never to stdout (the protocol's). */
  logger?: Logger;
}

/**
 * `askgate mcp`: an MCP server on stdin/stdout that asks through a running askgate over HTTP.
 * One process is one session: its runId is generated at start. Nothing but protocol messages
 * is written to stdout. Resolves when the client closes stdin, after its waiting asks were cancelled.
 */
export async function runStdioMcpServer(opts: StdioMcpOptions): Promise<void> {
  const client = new AskgateClient({ url: opts.url, token: opts.token });
  const runId = `mcp-${randomBytes(9)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
  const mcp = createAskgateMcpServer({
    backend: httpAsk(client),
    defaultTo: opts.settings.defaultTo,
    runIdFor: () => runId,
    progressIntervalMs: opts.settings.progressIntervalMs,
    waitMs: opts.settings.waitSeconds * 1000,
  });
  const stdin = opts.stdin ?? process.stdin;
  const transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    (opts.stdout ?? process.stdout) as typeof process.stdout,
  );
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    transport.onclose = () => resolve();
  });
  const logger = opts.logger;
  if (logger) mcp.server.server.onerror = (err) => logger.warn({ err }, 'mcp stdio error');
  await mcp.server.connect(transport);
  await ended;
  // The client went away: its waiting calls are over, and so are their asks (bounded, then exit).
  await Promise.race([mcp.cancelAll(), new Promise((r) => setTimeout(r, 5_000).unref())]);
  await mcp.server.close().catch(() => undefined);
}
