import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Target } from '../core/schemas.js';
import { isAbortError } from '../client/errors.js';
import type { AskInput } from '../client/index.js';
import { AskUserInputShape, AskUserOutputShape, TOOL_DESCRIPTION, TOOL_NAME, ToolInputError, renderResult, toAskInput, toolError, type AskFn } from './tool.js';

/** Version reported in the MCP handshake. */
export const MCP_SERVER_VERSION = '0.1.0';

/** Options of {@link createAskgateMcpServer}. */
export interface AskgateMcpOptions {
  /** How asks are made: through the HTTP API (stdio) or the gateway (the `/mcp` route). */
  ask: AskFn;
  /** Target when a call gives no `to` (`ASKGATE_DEFAULT_TO`). */
  defaultTo?: Target;
  /** runId when a call gives none: the MCP session. */
  runIdFor: (sessionId: string | undefined) => string;
  /** Interval of progress notifications while waiting, in ms. */
  progressIntervalMs: number;
}

/** An MCP server with the `ask_user` tool, plus a way to cancel the calls still waiting. */
export interface AskgateMcp {
  server: McpServer;
  /** Aborts every waiting call (their asks are cancelled) and waits until they have finished. */
  cancelAll(): Promise<void>;
}

/** Builds the MCP server offering `ask_user`; one per session (an McpServer serves one transport). */
export function createAskgateMcpServer(opts: AskgateMcpOptions): AskgateMcp {
  const server = new McpServer({ name: 'askgate', version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  const session = new AbortController();
  const waiting = new Set<Promise<unknown>>();

  server.registerTool(
    TOOL_NAME,
    {
      title: 'Ask the user',
      description: TOOL_DESCRIPTION,
      inputSchema: AskUserInputShape,
      outputSchema: AskUserOutputShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra) => {
      let input: AskInput;
      try {
        input = toAskInput(args, { runId: opts.runIdFor(extra.sessionId), to: opts.defaultTo });
      } catch (error) {
        if (error instanceof ToolInputError) return toolError(`Invalid ask_user arguments: ${error.message}`);
        throw error;
      }
      const token = extra._meta?.progressToken;
      const started = Date.now();
      let total = input.timeoutSeconds ?? 900;
      let timer: NodeJS.Timeout | undefined;
      const progress = (message: string) => {
        if (token === undefined) return;
        const elapsed = Math.round((Date.now() - started) / 100) / 10;
        void extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: elapsed, total, message } })
          .catch(() => undefined);
      };
      const signal = AbortSignal.any([extra.signal, session.signal]);
      const call = opts.ask(input, {
        signal,
        onCreated: (ask) => {
          total = ask.timeoutSeconds;
          const where = ask.to ? `${ask.to.channel}:${ask.to.chat}` : 'no chat (answer it through the askgate API or console)';
          progress(`Asked ${where} (ask ${ask.id}); waiting up to ${total} s`);
          timer = setInterval(() => progress(`Waiting for the user's answer (ask ${ask.id})`), opts.progressIntervalMs);
        },
      });
      waiting.add(call);
      try {
        return renderResult(await call, args.questions);
      } catch (error) {
        if (isAbortError(error)) return toolError('The call was cancelled; the question was withdrawn.');
        return toolError(`askgate could not ask: ${describe(error)}`);
      } finally {
        clearInterval(timer);
        waiting.delete(call);
      }
    },
  );

  return {
    server,
    async cancelAll() {
      session.abort();
      await Promise.allSettled([...waiting]);
    },
  };
}

/** An error's message, plus the field paths of its issues when the message does not name them. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const issues = (error as { issues?: { path: (string | number)[]; message: string }[] }).issues;
  const named = issues?.filter((i) => i.path.length > 0 && !message.includes(i.path.join('.'))) ?? [];
  return named.length > 0 ? `${message} (${named.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})` : message;
}
