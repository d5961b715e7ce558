import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { askgateCalls, type CallContext, type McpCallOptions } from './calls.js';
import {
  AWAIT_DESCRIPTION,
  AWAIT_TOOL_NAME,
  AskUserInputShape,
  AskUserOutputShape,
  AwaitAnswerInputShape,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from './tool.js';
import { APPROVAL_DESCRIPTION, APPROVAL_TOOL_NAME, RequestApprovalInputShape } from './approval-tool.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Version reported in the MCP handshake. */
export const MCP_SERVER_VERSION = '0.1.0';

/** The title, description and hints of each tool, shared by the 2025 (v1 SDK) and 2026 (v2 SDK) servers. */
export const TOOL_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/** Options of {@link createAskgateMcpServer}. */
export interface AskgateMcpOptions extends McpCallOptions {
  /** runId when a call gives none: the MCP session. */
  runIdFor: (sessionId: string | undefined) => string;
}

/** An MCP server with the `ask_user`, `await_answer` and `request_approval` tools, plus a way to cancel the calls still waiting. */
export interface AskgateMcp {
  server: McpServer;
  /** Aborts every waiting call (their asks are cancelled) and waits until they have finished. */
  cancelAll(): Promise<void>;
}

/** The SDK-neutral view of a v1 request's `extra`. */
const contextOf = (extra: Extra): CallContext => ({
  signal: extra.signal,
  progressToken: extra._meta?.progressToken,
  notify: (n) => extra.sendNotification(n as ServerNotification),
});

/**
 * Builds the MCP server (v1 SDK: protocol 2025-11-25 and earlier, sessions) offering `ask_user`,
 * `await_answer` and `request_approval`; one per session (an McpServer serves one transport). A call returns within
 * `waitMs`, `pending` when the ask is still open: it stays open, and only an explicit cancel of a
 * waiting call (or of the session) cancels it.
 */
export function createAskgateMcpServer(opts: AskgateMcpOptions): AskgateMcp {
  const server = new McpServer({ name: 'askgate', version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  const calls = askgateCalls(opts);

  server.registerTool(
    TOOL_NAME,
    {
      title: 'Ask the user',
      description: TOOL_DESCRIPTION,
      inputSchema: AskUserInputShape,
      outputSchema: AskUserOutputShape,
      annotations: TOOL_ANNOTATIONS,
    },
    async (args, extra) => calls.askUser(args, opts.runIdFor(extra.sessionId), contextOf(extra)),
  );

  server.registerTool(
    AWAIT_TOOL_NAME,
    {
      title: 'Wait for the answer',
      description: AWAIT_DESCRIPTION,
      inputSchema: AwaitAnswerInputShape,
      outputSchema: AskUserOutputShape,
      annotations: { ...TOOL_ANNOTATIONS, readOnlyHint: true },
    },
    async ({ askId }, extra) => calls.awaitAnswer(askId, contextOf(extra)),
  );

  server.registerTool(
    APPROVAL_TOOL_NAME,
    {
      title: 'Request approval of an action',
      description: APPROVAL_DESCRIPTION,
      inputSchema: RequestApprovalInputShape,
      outputSchema: AskUserOutputShape,
      annotations: TOOL_ANNOTATIONS,
    },
    async (args, extra) => calls.requestApproval(args, opts.runIdFor(extra.sessionId), contextOf(extra)),
  );

  return { server, cancelAll: () => calls.cancelAll() };
}
