// The proxy's side towards the server it fronts: a v1 SDK Client over stdio (a child process) or
// Streamable HTTP. Requests pass through with the SDK's own result schemas; the tool list is kept
// (refreshed on `notifications/tools/list_changed`) because gating needs each tool's annotations,
// description and inputSchema. Once the connection is gone every request fails at once: a crashed
// upstream is an error for the host, never something to approve.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import {
  type CallToolResult,
  type Notification,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Upstream } from './options.js';
import { MCP_SERVER_VERSION } from '../mcp/server.js';

/** The upstream is gone (exited, crashed, closed its stream): nothing reaches it any more. */
export class UpstreamClosedError extends Error {}

/**
 * Results pass through as the upstream sent them: only "a JSON object" is checked here (the host's
 * SDK checks the shape, and the host-facing server the tool results). The SDK's own result schemas
 * would re-parse every result for nothing (most of a pass-through call's cost in the bench).
 */
const AnyResult = z.looseObject({});
/** The methods that pass through unchanged. */
export type PassMethod =
  | 'tools/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'resources/unsubscribe'
  | 'prompts/list'
  | 'prompts/get'
  | 'completion/complete';

/** A connected upstream. */
export interface UpstreamConnection {
  capabilities: ServerCapabilities;
  /** Whether it is still connected. */
  alive(): boolean;
  /** One pass-through request (no tool call). */
  request(method: PassMethod, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<unknown>;
  /** One tool call, with the upstream's progress relayed to `onprogress`. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    opts: { signal?: AbortSignal; onprogress?: RequestOptions['onprogress']; meta?: Record<string, unknown> },
  ): Promise<CallToolResult>;
  /** Fails unless the upstream answers a ping within a few seconds (before asking a person about a call). */
  ping(): Promise<void>;
  /** The upstream's tool of that name (the list is read on first use and after a list_changed). */
  tool(name: string): Promise<Tool | undefined>;
  /** Receives the upstream's notifications (list_changed, resources/updated, log messages). */
  onNotification?: (notification: Notification) => void;
  close(): Promise<void>;
}

/** askgate's own secrets, never handed to the upstream. */
const KEPT_FROM_UPSTREAM = new Set(['ASKGATE_API_TOKEN', 'ASKGATE_MCP_PROXY_TOKEN']);

/**
 * The upstream's environment: the proxy's own (the host's `env` entry is meant for the server
 * behind the proxy, e.g. its API key), without askgate's secrets.
 */
function upstreamEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !KEPT_FROM_UPSTREAM.has(name)) env[name] = value;
  return env;
}

/** How long one forwarded request may take (the SDK's default is 60 s; an upstream tool may be slow). */
const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

/** Connects to the upstream server (spawning it for stdio; its stderr goes to ours). */
export async function connectUpstream(upstream: Upstream): Promise<UpstreamConnection> {
  const client = new Client({ name: 'askgate-mcp-proxy', version: MCP_SERVER_VERSION });
  const transport =
    upstream.kind === 'stdio'
      ? new StdioClientTransport({
          command: upstream.command,
          args: upstream.args,
          env: upstreamEnv(),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(upstream.url, { requestInit: { headers: upstream.headers } });
  let open = true;
  let tools: Promise<Map<string, Tool>> | undefined;
  const connection: UpstreamConnection = {
    capabilities: {},
    alive: () => open,
    async request(method, params, signal) {
      if (!open) throw new UpstreamClosedError('the upstream MCP server is not running');
      return client.request({ method, ...(params ? { params } : {}) } as never, AnyResult, {
        signal,
        timeout: UPSTREAM_TIMEOUT_MS,
      });
    },
    async callTool(name, args, { signal, onprogress, meta }) {
      if (!open) throw new UpstreamClosedError('the upstream MCP server is not running');
      const params = { name, ...(args ? { arguments: args } : {}), ...(meta ? { _meta: meta } : {}) };
      return (await client.request({ method: 'tools/call', params }, AnyResult, {
        signal,
        timeout: UPSTREAM_TIMEOUT_MS,
        ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
      })) as CallToolResult;
    },
    async ping() {
      if (!open) throw new UpstreamClosedError('the upstream MCP server is not running');
      await client.ping({ timeout: 5_000 });
    },
    tool: async (name) => {
      tools ??= listAll().catch((error: unknown) => {
        tools = undefined;
        throw error;
      });
      return (await tools).get(name);
    },
    close: async () => {
      open = false;
      await client.close().catch(() => undefined);
    },
  };
  const listAll = async () => {
    const all = new Map<string, Tool>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: UPSTREAM_TIMEOUT_MS });
      for (const t of page.tools) all.set(t.name, t);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  };
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/tools/list_changed') tools = undefined;
    connection.onNotification?.(notification);
  };
  client.onclose = () => {
    open = false;
  };
  await client.connect(transport);
  connection.capabilities = client.getServerCapabilities() ?? {};
  return connection;
}
