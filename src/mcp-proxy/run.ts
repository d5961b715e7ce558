// `askgate mcp-proxy`: connects to the upstream MCP server, then serves it to the host on stdio
// (or, with --listen, Streamable HTTP), asking a running askgate (ASKGATE_URL, ASKGATE_API_TOKEN)
// for approval of the gated tools' calls. askgate is reached over HTTP only, so it can restart
// under a waiting call: the proxy keeps polling the same ask.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadMcpClientConfig } from '../config.js';
import { askgateUrl } from '../cli-ask.js';
import { AskgateClient } from '../client/index.js';
import { approvalGate } from './gate.js';
import { PROXY_USAGE, parseProxyArgs, type ProxyOptions } from './options.js';
import { UsageError } from '../cli-ask-policy.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
import { proxyServerFactory } from './server.js';
import { connectUpstream } from './upstream.js';

/**
 * Whether a tool's calls need approval: its name matches an `--approve` glob, or, with
 * `--approve-destructive`, it may be destructive as MCP defines it (`destructiveHint` defaults to
 * true and only counts when the tool is not `readOnlyHint`): an unannotated tool is gated.
 */
export function isGated(opts: Pick<ProxyOptions, 'approve' | 'approveDestructive'>, tool: Tool): boolean {
  if (opts.approve.some((glob) => glob.test(tool.name))) return true;
  const hints = tool.annotations ?? {};
  return opts.approveDestructive && hints.readOnlyHint !== true && hints.destructiveHint !== false;
}

/** Runs the proxy until the host leaves (stdio) or a signal ends it (--listen); resolves with the exit code. */
export async function runMcpProxy(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(PROXY_USAGE);
    return 0;
  }
  const { token, mcp, logLevel } = loadMcpClientConfig(env);
  const opts = parseProxyArgs(argv, { ...(mcp.defaultTo ? { to: mcp.defaultTo } : {}), waitSeconds: mcp.waitSeconds });
  const listenToken = env.ASKGATE_MCP_PROXY_TOKEN || undefined;
  if (opts.listen && !LOOPBACK.has(opts.listen.host) && listenToken === undefined)
    throw new UsageError('--host off loopback needs ASKGATE_MCP_PROXY_TOKEN: every request must then carry it');
  if (listenToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(listenToken))
    throw new UsageError('ASKGATE_MCP_PROXY_TOKEN must be at least 16 printable ASCII characters without spaces');
  const url = askgateUrl(undefined, env);
  const { createLogger } = await import('../logger.js');
  const logger = createLogger(logLevel).child({ component: 'mcp-proxy' });
  const upstream = await connectUpstream(opts.upstream);
  const gate = approvalGate({
    client: new AskgateClient({ url, token, requestTimeoutMs: 10_000 }),
    upstream,
    runId: opts.runId,
    ...(opts.to ? { to: opts.to } : {}),
    timeoutSeconds: opts.timeoutSeconds,
    waitMs: opts.waitMs,
  });
  const factory = proxyServerFactory({ upstream, gate, gated: (tool) => isGated(opts, tool) });
  const onerror = (err: Error) => logger.warn({ err }, 'mcp-proxy error');

  if (opts.listen) {
    const { serveHttp } = await import('./http.js');
    const server = await serveHttp(factory, opts.listen, onerror, listenToken);
    console.error(`askgate mcp-proxy listening on ${server.url}/mcp`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    await server.close();
  } else {
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    let current: ReturnType<typeof factory> | undefined;
    // The upstream's own notifications (list changes, resource updates, log messages) reach a
    // 2025-era host on the pinned connection; a 2026-era host re-reads on its next request.
    upstream.onNotification = (n) => void current?.notification(n as never).catch(() => undefined);
    const ended = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    const handle = serveStdio(() => (current = factory()), { onerror });
    await ended;
    await handle.close().catch(() => undefined);
  }
  // The host left: questions nobody decided are withdrawn (bounded), then the upstream is closed.
  await Promise.race([gate.close(), new Promise((r) => setTimeout(r, 5_000).unref())]);
  await upstream.close();
  return 0;
}
