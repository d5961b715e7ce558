import { McpServer, ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { askgateCalls, type CallContext, type McpCallOptions, type ToolResult } from './calls.js';
import { MCP_SERVER_VERSION, TOOL_ANNOTATIONS } from './server.js';
import { taskOf, type TaskView } from './tasks.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import {
  AWAIT_DESCRIPTION,
  AWAIT_TOOL_NAME,
  AskUserInputShape,
  AskUserOutputShape,
  AwaitAnswerInputShape,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  UnknownAskError,
  type CreatedAsk,
} from './tool.js';
import { APPROVAL_DESCRIPTION, APPROVAL_TOOL_NAME, RequestApprovalInputShape } from './approval-tool.js';

/** The protocol revision the v2 SDK serves here (stateless: `server/discover`, a `_meta` envelope per request). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** The Tasks extension (SEP-2663): `ask_user` returns a task at once for a client that declares it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** JSON-RPC code of "Missing required client capability" (2026-07-28). */
const MISSING_CAPABILITY = -32021;

/** Options of {@link createAskgateMcpV2}. */
export interface AskgateMcpV2Options extends McpCallOptions {
  /**
   * runId when a call gives none. 2026-07-28 has no sessions: the `/mcp` route gives each call its
   * own run (`mcp-<uuid>`), `askgate mcp` its process's run.
   */
  runIdFor: () => string;
  /** `pollIntervalMs` suggested to task clients (default 5 s). */
  pollIntervalMs?: number;
}

/** The v2 servers of one endpoint: a factory (one McpServer per request or connection) over shared calls. */
export interface AskgateMcpV2 {
  factory: () => McpServer;
  /** Aborts every waiting call of every instance (their asks are cancelled) and waits for them. */
  cancelAll(): Promise<void>;
}

/** Whether this request's per-request capabilities declare the Tasks extension. */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const caps = Object.hasOwn(envelope, CLIENT_CAPABILITIES) ? envelope[CLIENT_CAPABILITIES] : undefined;
  const extensions = (caps as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}

const contextOf = (ctx: ServerContext): CallContext => {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    signal: ctx.mcpReq.signal,
    ...(typeof token === 'string' || typeof token === 'number' ? { progressToken: token } : {}),
    notify: (n) => ctx.mcpReq.notify(n),
  };
};

const TaskParams = z.object({ taskId: z.string().max(200) });

/**
 * Builds the 2026-07-28 server (v2 SDK) with the same `ask_user`, `await_answer` and
 * `request_approval` as the 2025 one, plus the Tasks extension: for a client that declares
 * `io.modelcontextprotocol/tasks` on the call, `ask_user` (and `request_approval`) creates the ask and returns a task at once (task id = ask id); `tasks/get`
 * reports `working` until the ask ends, then `completed` with the usual tool result; `tasks/cancel`
 * cancels the ask. Other clients get the bounded waits (`pending` + `await_answer`).
 */
export function createAskgateMcpV2(opts: AskgateMcpV2Options): AskgateMcpV2 {
  const calls = askgateCalls(opts);
  const pollIntervalMs = opts.pollIntervalMs ?? 5_000;

  /** The task of an ask, read without waiting; an unknown id is -32602 as SEP-2663 asks. */
  const readTask = async (taskId: string): Promise<TaskView> => {
    if (!ASK_ID_PATTERN.test(taskId))
      throw new ProtocolError(-32602, `Failed to retrieve task: "${taskId.slice(0, 40)}" is not a task id`);
    try {
      const { outcome, questions, createdAt, expiresAt } = await opts.backend.await(taskId, {
        signal: new AbortController().signal,
        waitMs: 0,
      });
      return taskOf({ taskId, createdAt, expiresAt, outcome, questions, pollIntervalMs });
    } catch (error) {
      if (error instanceof UnknownAskError)
        throw new ProtocolError(-32602, `Failed to retrieve task: ${error.message}`);
      throw error;
    }
  };
  const requireTasks = (ctx: ServerContext) => {
    if (!declaresTasks(ctx))
      throw new ProtocolError(MISSING_CAPABILITY, 'Missing required client capability', {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
  };

  /** A CreateTaskResult for a created ask (or the tool error that prevented it). */
  const taskResult = async (created: CreatedAsk | ToolResult): Promise<ToolResult> => {
    if ('content' in created) return created;
    const task = await readTask(created.id);
    // The pending structured content keeps the tool's output schema satisfied.
    return {
      ...task,
      resultType: 'task',
      content: [{ type: 'text', text: `Asked (ask ${created.id}); poll tasks/get with this taskId.` }],
      structuredContent: { status: 'pending', askId: created.id, expiresAt: created.expiresAt },
    } as ToolResult;
  };

  const factory = () => {
    const server = new McpServer(
      { name: 'askgate', version: MCP_SERVER_VERSION },
      { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
    );
    server.registerTool(
      TOOL_NAME,
      {
        title: 'Ask the user',
        description: TOOL_DESCRIPTION,
        inputSchema: z.object(AskUserInputShape),
        outputSchema: z.object(AskUserOutputShape),
        annotations: TOOL_ANNOTATIONS,
      },
      async (args, ctx): Promise<ToolResult> =>
        declaresTasks(ctx)
          ? taskResult(await calls.createOnly(args, opts.runIdFor()))
          : calls.askUser(args, opts.runIdFor(), contextOf(ctx)),
    );
    server.registerTool(
      AWAIT_TOOL_NAME,
      {
        title: 'Wait for the answer',
        description: AWAIT_DESCRIPTION,
        inputSchema: z.object(AwaitAnswerInputShape),
        outputSchema: z.object(AskUserOutputShape),
        annotations: { ...TOOL_ANNOTATIONS, readOnlyHint: true },
      },
      async ({ askId }, ctx) => calls.awaitAnswer(askId, contextOf(ctx)),
    );
    server.registerTool(
      APPROVAL_TOOL_NAME,
      {
        title: 'Request approval of an action',
        description: APPROVAL_DESCRIPTION,
        inputSchema: z.object(RequestApprovalInputShape),
        outputSchema: z.object(AskUserOutputShape),
        annotations: TOOL_ANNOTATIONS,
      },
      async (args, ctx): Promise<ToolResult> =>
        declaresTasks(ctx)
          ? taskResult(await calls.createApprovalOnly(args, opts.runIdFor()))
          : calls.requestApproval(args, opts.runIdFor(), contextOf(ctx)),
    );
    server.server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      return { ...(await readTask(taskId)) };
    });
    server.server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      if (!ASK_ID_PATTERN.test(taskId))
        throw new ProtocolError(-32602, `Failed to cancel task: "${taskId.slice(0, 40)}" is not a task id`);
      try {
        await opts.backend.cancel(taskId);
      } catch (error) {
        if (error instanceof UnknownAskError)
          throw new ProtocolError(-32602, `Failed to cancel task: ${error.message}`);
        throw error;
      }
      return {};
    });
    return server;
  };

  return { factory, cancelAll: () => calls.cancelAll() };
}
