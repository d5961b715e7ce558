// The proxy's side towards the host: one low-level v2 SDK Server per connection (stdio) or request
// (HTTP), serving both eras (serveStdio and createMcpHandler pin 2025-11-25 openings to a
// 2025-era instance of the same factory). Tool calls go through the gate when their tool is
// gated; everything else (other tools, resources, prompts) is the upstream's answer as it is.
import { z } from 'zod';
import { ProtocolError, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { declaresTasks, TASKS_EXTENSION } from '../mcp/server-v2.js';
import { MCP_SERVER_VERSION } from '../mcp/server.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { AWAIT_APPROVAL_TOOL } from './options.js';
import { AWAIT_APPROVAL_DEFINITION, gatedDefinition, gateError } from './results.js';
import type { ApprovalGate } from './gate.js';
import type { PassMethod, UpstreamConnection } from './upstream.js';

/** What the host-facing servers need. */
export interface ProxyServerOptions {
  upstream: UpstreamConnection;
  gate: ApprovalGate;
  /** Whether a tool's calls need approval. */
  gated: (tool: Tool) => boolean;
  /** `pollIntervalMs` suggested to task clients (default 2 s). */
  pollIntervalMs?: number;
}

const TaskParams = z.object({ taskId: z.string().max(200) });

/** JSON-RPC "Internal error": how an upstream that is gone, or failed, reaches the host. */
const INTERNAL = -32603;

/** An upstream failure as the host's error: the upstream's own JSON-RPC error as it was, else internal. */
function hostError(error: unknown): ProtocolError {
  if (error instanceof McpError) return new ProtocolError(error.code, error.message, error.data);
  return new ProtocolError(INTERNAL, `upstream MCP server: ${(error as Error).message}`);
}

const relay = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    throw hostError(error);
  }
};

/** A task as `tasks/get` and a task-creating `tools/call` report it (SEP-2663, task id = ask id). */
function taskView(
  askId: string,
  state: { ask?: { createdAt: string; expiresAt: string }; result?: CallToolResult },
  pollIntervalMs: number,
) {
  const createdAt = state.ask?.createdAt ?? new Date().toISOString();
  const ttlMs = state.ask ? Math.max(0, Date.parse(state.ask.expiresAt) - Date.parse(createdAt)) : 0;
  const base = { taskId: askId, createdAt, ttlMs, pollIntervalMs, lastUpdatedAt: createdAt };
  if (!state.result) return { ...base, status: 'working' as const, statusMessage: 'Waiting for a person to approve' };
  const cancelled = (state.result.structuredContent as { reason?: unknown } | undefined)?.reason === 'cancelled';
  if (cancelled) return { ...base, status: 'cancelled' as const, statusMessage: 'The approval was cancelled' };
  return {
    ...base,
    status: 'completed' as const,
    statusMessage: state.result.isError ? 'Not run' : 'Approved and run',
    lastUpdatedAt: new Date().toISOString(),
    result: { ...state.result },
  };
}

/** The factory of host-facing servers over one upstream and one gate. */
export function proxyServerFactory(opts: ProxyServerOptions): () => Server {
  const { upstream, gate } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? 2_000;
  const caps = upstream.capabilities;
  const capabilities = {
    tools: { ...(caps.tools?.listChanged ? { listChanged: true } : {}) },
    ...(caps.resources ? { resources: caps.resources } : {}),
    ...(caps.prompts ? { prompts: caps.prompts } : {}),
    ...(caps.completions ? { completions: {} } : {}),
    // The upstream's log messages reach the host (filtered by the level the host sets here).
    ...(caps.logging ? { logging: {} } : {}),
    extensions: { [TASKS_EXTENSION]: {} },
  };

  const readTask = (taskId: string) => {
    const state = ASK_ID_PATTERN.test(taskId) ? gate.task(taskId) : undefined;
    if (!state)
      throw new ProtocolError(-32602, `Failed to retrieve task: "${taskId.slice(0, 40)}" is not a task of this proxy`);
    return taskView(taskId, state, pollIntervalMs);
  };

  const callTool = async (
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ServerContext,
  ): Promise<Record<string, unknown>> => {
    const signal = ctx.mcpReq.signal;
    if (name === AWAIT_APPROVAL_TOOL) {
      const askId = args?.askId;
      if (typeof askId !== 'string')
        return gateError(`${AWAIT_APPROVAL_TOOL} needs {"askId": "<the pending result's askId>"}`);
      return gate.awaitApproval(askId, signal);
    }
    const tool = await relay(() => upstream.tool(name));
    if (!tool || !opts.gated(tool)) {
      const token = ctx.mcpReq._meta?.progressToken;
      // Progress relayed before the result: a host drops progress that arrives after it.
      const relayed: Promise<unknown>[] = [];
      const result = await relay(() =>
        upstream.callTool(name, args, {
          signal,
          ...(token !== undefined
            ? {
                meta: { progressToken: token },
                onprogress: (p) =>
                  void relayed.push(
                    ctx.mcpReq
                      .notify({ method: 'notifications/progress', params: { ...p, progressToken: token } })
                      .catch(() => undefined),
                  ),
              }
            : {}),
        }),
      );
      await Promise.all(relayed);
      return result;
    }
    // Never an approval for a call the upstream could not take (a stdio child gone, an HTTP server down).
    await relay(() => upstream.ping());
    const callArgs = args ?? {};
    if (!declaresTasks(ctx)) return gate.call(tool, callArgs, signal);
    const created = await gate.createTask(tool, callArgs);
    if ('content' in created) return created;
    return {
      ...taskView(created.id, { ask: created }, pollIntervalMs),
      resultType: 'task',
      content: [
        { type: 'text', text: `Waiting for a person to approve ${name} (task ${created.id}); poll tasks/get.` },
      ],
    };
  };

  return () => {
    const server = new Server({ name: 'askgate-mcp-proxy', version: MCP_SERVER_VERSION }, { capabilities });
    server.setRequestHandler('tools/list', async (request, ctx) => {
      const { _meta: _envelope, ...params } = (request.params ?? {}) as { cursor?: string; _meta?: unknown };
      const page = (await relay(() => upstream.request('tools/list', params, ctx.mcpReq.signal))) as {
        tools: Tool[];
        nextCursor?: string;
      };
      const tools = page.tools.map((t) => (opts.gated(t) ? gatedDefinition(t) : t));
      // The follow-up tool once, on the first page.
      return { ...page, tools: params.cursor ? tools : [...tools, AWAIT_APPROVAL_DEFINITION] } as never;
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params as { name: string; arguments?: Record<string, unknown> };
      return (await callTool(name, args, ctx)) as never;
    });
    const pass = (method: PassMethod) =>
      server.setRequestHandler(method as 'resources/list', async (request, ctx) => {
        const { _meta: _envelope, ...params } = (request.params ?? {}) as Record<string, unknown>;
        return (await relay(() => upstream.request(method, params, ctx.mcpReq.signal))) as never;
      });
    if (caps.resources)
      for (const m of ['resources/list', 'resources/templates/list', 'resources/read'] as const) pass(m);
    if (caps.resources?.subscribe) for (const m of ['resources/subscribe', 'resources/unsubscribe'] as const) pass(m);
    if (caps.prompts) for (const m of ['prompts/list', 'prompts/get'] as const) pass(m);
    if (caps.completions) pass('completion/complete');
    server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }) => ({ ...readTask(taskId) }));
    server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }) => {
      if (!ASK_ID_PATTERN.test(taskId) || !(await gate.cancel(taskId)))
        throw new ProtocolError(-32602, `Failed to cancel task: "${taskId.slice(0, 40)}" is not a task of this proxy`);
      return {};
    });
    return server;
  };
}
