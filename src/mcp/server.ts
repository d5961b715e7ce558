import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Target } from '../core/schemas.js';
import { isAbortError } from '../client/errors.js';
import type { AskInput } from '../client/index.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import {
  AWAIT_DESCRIPTION,
  AWAIT_TOOL_NAME,
  AskUserInputShape,
  AskUserOutputShape,
  AwaitAnswerInputShape,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  ToolInputError,
  UnknownAskError,
  renderResult,
  toAskInput,
  toolError,
  type AskBackend,
} from './tool.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** Progress notifications of one call: `total` is the ask's timeout once known. */
interface Progress {
  total: number | undefined;
  send(message: string): void;
  every(message: string): void;
}

/** Version reported in the MCP handshake. */
export const MCP_SERVER_VERSION = '0.1.0';

/** Options of {@link createAskgateMcpServer}. */
export interface AskgateMcpOptions {
  /** How asks are made: through the HTTP API (stdio) or the gateway (the `/mcp` route). */
  backend: AskBackend;
  /** Target when a call gives no `to` (`ASKGATE_DEFAULT_TO`). */
  defaultTo?: Target;
  /** runId when a call gives none: the MCP session. */
  runIdFor: (sessionId: string | undefined) => string;
  /** Interval of progress notifications while waiting, in ms. */
  progressIntervalMs: number;
  /** The longest one tool call waits, in ms (`ASKGATE_MCP_WAIT_SECONDS`): below any client's request timeout. */
  waitMs: number;
}

/** An MCP server with the `ask_user` and `await_answer` tools, plus a way to cancel the calls still waiting. */
export interface AskgateMcp {
  server: McpServer;
  /** Aborts every waiting call (their asks are cancelled) and waits until they have finished. */
  cancelAll(): Promise<void>;
}

/**
 * Builds the MCP server offering `ask_user` and `await_answer`; one per session (an McpServer
 * serves one transport). A call returns within `waitMs`, `pending` when the ask is still open: it
 * stays open, and only an explicit cancel of a waiting call (or of the session) cancels it.
 */
export function createAskgateMcpServer(opts: AskgateMcpOptions): AskgateMcp {
  const server = new McpServer({ name: 'askgate', version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  const session = new AbortController();
  const waiting = new Set<Promise<unknown>>();
  const annotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

  /** Runs one wait with progress notifications, and turns its outcome or failure into a tool result. */
  const waitCall = async <T>(
    extra: Extra,
    run: (signal: AbortSignal, progress: Progress) => Promise<T>,
    render: (value: T) => ReturnType<typeof renderResult>,
  ) => {
    const token = extra._meta?.progressToken;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const progress: Progress = {
      total: undefined,
      send(message) {
        if (token === undefined) return;
        const elapsed = Math.round((Date.now() - started) / 100) / 10;
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: elapsed,
              ...(progress.total !== undefined ? { total: progress.total } : {}),
              message,
            },
          })
          .catch(() => undefined);
      },
      every(message) {
        timer = setInterval(() => progress.send(message), opts.progressIntervalMs);
      },
    };
    const call = run(AbortSignal.any([extra.signal, session.signal]), progress);
    waiting.add(call);
    try {
      return render(await call);
    } catch (error) {
      if (isAbortError(error)) return toolError('The call was cancelled; the question was withdrawn.');
      if (error instanceof UnknownAskError)
        return toolError(`${error.message}: pass the askId of a pending ask_user or await_answer result.`);
      return toolError(`askgate could not ask: ${describe(error)}`);
    } finally {
      clearInterval(timer);
      waiting.delete(call);
    }
  };

  server.registerTool(
    TOOL_NAME,
    {
      title: 'Ask the user',
      description: TOOL_DESCRIPTION,
      inputSchema: AskUserInputShape,
      outputSchema: AskUserOutputShape,
      annotations,
    },
    async (args, extra) => {
      let input: AskInput;
      try {
        input = toAskInput(args, { runId: opts.runIdFor(extra.sessionId), to: opts.defaultTo });
      } catch (error) {
        if (error instanceof ToolInputError) return toolError(`Invalid ask_user arguments: ${error.message}`);
        throw error;
      }
      return waitCall(
        extra,
        (signal, progress) => {
          progress.total = input.timeoutSeconds ?? 900;
          return opts.backend.ask(input, {
            signal,
            waitMs: opts.waitMs,
            onCreated: (ask) => {
              progress.total = ask.timeoutSeconds;
              const where = ask.to
                ? `${ask.to.channel}:${ask.to.chat}`
                : 'no chat (answer it through the askgate API or console)';
              progress.send(`Asked ${where} (ask ${ask.id}); waiting up to ${ask.timeoutSeconds} s`);
              progress.every(`Waiting for the user's answer (ask ${ask.id})`);
            },
          });
        },
        (outcome) => renderResult(outcome, args.questions),
      );
    },
  );

  server.registerTool(
    AWAIT_TOOL_NAME,
    {
      title: 'Wait for the answer',
      description: AWAIT_DESCRIPTION,
      inputSchema: AwaitAnswerInputShape,
      outputSchema: AskUserOutputShape,
      annotations: { ...annotations, readOnlyHint: true },
    },
    async ({ askId }, extra) => {
      if (!ASK_ID_PATTERN.test(askId))
        return toolError(
          `Invalid await_answer arguments: askId: "${askId.slice(0, 40)}" is not an ask id; pass the askId of a pending result.`,
        );
      return waitCall(
        extra,
        (signal, progress) => {
          progress.every(`Waiting for the user's answer (ask ${askId})`);
          return opts.backend.await(askId, { signal, waitMs: opts.waitMs });
        },
        ({ outcome, questions }) => renderResult(outcome, questions),
      );
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
  return named.length > 0
    ? `${message} (${named.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`
    : message;
}
