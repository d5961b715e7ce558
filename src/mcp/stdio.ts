import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { McpSettings } from '../config.js';
import type { Logger } from '../core/ports.js';
import { AskgateClient } from '../client/index.js';
import type { McpCallOptions } from './calls.js';
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

/** The first message of a connection decides its era: 2025 clients open with `initialize`. */
const opensWithInitialize = (line: string): boolean => {
  try {
    const message = JSON.parse(line) as { method?: unknown };
    return message.method === 'initialize';
  } catch {
    return true; // Not JSON: let the 2025 server answer the parse error as it always did.
  }
};

/**
 * `askgate mcp`: an MCP server on stdin/stdout that asks through a running askgate over HTTP.
 * One process is one connection: its runId is generated at start. A connection that opens with
 * `initialize` (protocol 2025-11-25 and earlier) is served by the v1 SDK as before; any other
 * opening (`server/discover`, a 2026-07-28 request) by the v2 SDK's `serveStdio`. Nothing but
 * protocol messages is written to stdout. Resolves when the client closes stdin, after its waiting
 * asks were cancelled.
 */
export async function runStdioMcpServer(opts: StdioMcpOptions): Promise<void> {
  const client = new AskgateClient({ url: opts.url, token: opts.token });
  const runId = `mcp-${randomBytes(9)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
  const calls: McpCallOptions = {
    backend: httpAsk(client),
    defaultTo: opts.settings.defaultTo,
    progressIntervalMs: opts.settings.progressIntervalMs,
    waitMs: opts.settings.waitSeconds * 1000,
  };
  const stdin = (opts.stdin ?? process.stdin) as Readable;
  const stdout = opts.stdout ?? process.stdout;
  const first = await firstLine(stdin);
  if (first === undefined) return;
  const ended = new Promise<void>((resolve) => {
    first.stream.once('end', resolve);
    first.stream.once('close', resolve);
    stdin.once('close', resolve);
  });
  const logger = opts.logger;
  let end: { cancelAll(): Promise<void>; close(): Promise<void> };
  if (opensWithInitialize(first.line)) {
    const [{ StdioServerTransport }, { createAskgateMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('./server.js'),
    ]);
    const mcp = createAskgateMcpServer({ ...calls, runIdFor: () => runId });
    const transport = new StdioServerTransport(first.stream, stdout as typeof process.stdout);
    transport.onclose = () => first.stream.destroy();
    if (logger) mcp.server.server.onerror = (err) => logger.warn({ err }, 'mcp stdio error');
    await mcp.server.connect(transport);
    end = { cancelAll: () => mcp.cancelAll(), close: () => mcp.server.close() };
  } else {
    const [{ serveStdio, StdioServerTransport }, { createAskgateMcpV2 }] = await Promise.all([
      import('@modelcontextprotocol/server/stdio'),
      import('./server-v2.js'),
    ]);
    const v2 = createAskgateMcpV2({ ...calls, runIdFor: () => runId });
    const transport = new StdioServerTransport(first.stream, stdout as NodeJS.WritableStream as never);
    const handle = serveStdio(v2.factory, {
      transport,
      ...(logger ? { onerror: (err: Error) => logger.warn({ err }, 'mcp stdio error') } : {}),
    });
    end = { cancelAll: () => v2.cancelAll(), close: () => handle.close() };
  }
  await ended;
  // The client went away: its waiting calls are over, and so are their asks (bounded, then exit).
  await Promise.race([end.cancelAll(), new Promise((r) => setTimeout(r, 5_000).unref())]);
  await end.close().catch(() => undefined);
}

const PEEK_LIMIT = 4 * 1024 * 1024;

/**
 * Reads `stdin` up to its first newline; resolves with that line and a stream that replays
 * everything read so far and then the rest, or undefined when stdin ends first.
 */
function firstLine(stdin: Readable): Promise<{ line: string; stream: PassThrough } | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(buffer);
      size += buffer.length;
      // No newline in the first 4 MB: stop looking (the 2025 server reads on as it always did).
      if (!buffer.includes(0x0a) && size <= PEEK_LIMIT) return;
      stdin.off('data', onData).off('end', onEnd);
      stdin.pause();
      const all = Buffer.concat(chunks);
      const stream = new PassThrough();
      stream.write(all);
      stdin.pipe(stream);
      const newline = all.indexOf(0x0a);
      resolve({ line: newline < 0 ? '' : all.subarray(0, newline).toString('utf8'), stream });
    };
    const onEnd = () => {
      stdin.off('data', onData);
      resolve(undefined);
    };
    stdin.on('data', onData).once('end', onEnd);
  });
}
