import type { Target } from '../core/schemas.js';
import type { Clock } from '../core/ports.js';
import { isAbortError } from '../client/errors.js';
import type { AskInput } from '../client/index.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { systemClock } from '../system-clock.js';
import {
  ToolInputError,
  UnknownAskError,
  renderResult,
  toAskInput,
  toolError,
  type AskBackend,
  type AskUserArgs,
  type CreatedAsk,
} from './tool.js';
import { toApprovalInput, type RequestApprovalArgs } from './approval-tool.js';

/** What a tool call needs from the SDK that runs it (v1 `extra`, v2 `ctx`): nothing else is SDK-specific. */
export interface CallContext {
  /** Aborted when the client cancels the call (or the transport ends it). */
  signal: AbortSignal;
  /** The client's progress token, when it asked for progress. */
  progressToken?: string | number;
  /** Sends a notification related to this call. */
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
}

/** Options of {@link askgateCalls}. */
export interface McpCallOptions {
  /** How asks are made: through the HTTP API (stdio) or the gateway (the `/mcp` route). */
  backend: AskBackend;
  /** Target when a call gives no `to` (`ASKGATE_DEFAULT_TO`). */
  defaultTo?: Target;
  /** Interval of progress notifications while waiting, in ms. */
  progressIntervalMs: number;
  /** The longest one tool call waits, in ms (`ASKGATE_MCP_WAIT_SECONDS`): below any client's request timeout. */
  waitMs: number;
  /** Reads the time of progress notifications (default: the system clock). */
  clock?: Clock;
}

/** A tool result as both SDKs take it. */
export type ToolResult = ReturnType<typeof renderResult> | ReturnType<typeof toolError>;

/** Progress notifications of one call: `total` is the ask's timeout once known. */
interface Progress {
  total: number | undefined;
  send(message: string): void;
  every(message: string): void;
}

/**
 * The `ask_user` and `await_answer` calls, independent of the MCP SDK (v1 for 2025-11-25, v2 for
 * 2026-07-28 serve the same calls). A call returns within `waitMs`, `pending` when the ask is still
 * open: it stays open, and only an abort of a waiting call (or {@link cancelAll}) cancels it.
 */
export function askgateCalls(opts: McpCallOptions) {
  const clock = opts.clock ?? systemClock;
  const all = new AbortController();
  const waiting = new Set<Promise<unknown>>();

  /** Runs one wait with progress notifications, and turns its outcome or failure into a tool result. */
  const waitCall = async <T>(
    ctx: CallContext,
    run: (signal: AbortSignal, progress: Progress) => Promise<T>,
    render: (value: T) => ToolResult,
  ): Promise<ToolResult> => {
    const token = ctx.progressToken;
    const started = clock.now();
    let timer: NodeJS.Timeout | undefined;
    const progress: Progress = {
      total: undefined,
      send(message) {
        if (token === undefined) return;
        const elapsed = Math.round((clock.now() - started) / 100) / 10;
        void ctx
          .notify({
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
    const call = run(AbortSignal.any([ctx.signal, all.signal]), progress);
    waiting.add(call);
    try {
      return render(await call);
    } catch (error) {
      if (isAbortError(error)) return toolError('The call was cancelled; the question was withdrawn.');
      if (error instanceof UnknownAskError)
        return toolError(
          `${error.message}: pass the askId of a pending ask_user, request_approval or await_answer result.`,
        );
      return toolError(`askgate could not ask: ${describe(error)}`);
    } finally {
      clearInterval(timer);
      waiting.delete(call);
    }
  };

  /** The ask a tool's arguments build, or a tool error naming the fields to fix. */
  const inputOf = (tool: string, build: () => AskInput): AskInput | ToolResult => {
    try {
      return build();
    } catch (error) {
      if (error instanceof ToolInputError) return toolError(`Invalid ${tool} arguments: ${error.message}`);
      throw error;
    }
  };
  const questionsInput = (args: AskUserArgs, runId: string) =>
    inputOf('ask_user', () => toAskInput(args, { runId, to: opts.defaultTo }));
  const approvalInput = (args: RequestApprovalArgs, runId: string) =>
    inputOf('request_approval', () => toApprovalInput(args, { runId, to: opts.defaultTo }));

  /** Creates the ask and waits at most `waitMs`, with progress notifications. */
  const askCall = (input: AskInput, ctx: CallContext): Promise<ToolResult> =>
    waitCall(
      ctx,
      (signal, progress) => {
        progress.total = input.timeoutSeconds ?? 900;
        return opts.backend.ask(input, {
          signal,
          waitMs: opts.waitMs,
          onCreated: (ask) => {
            progress.total = ask.timeoutSeconds;
            const where = placesOf(ask);
            progress.send(`Asked ${where} (ask ${ask.id}); waiting up to ${ask.timeoutSeconds} s`);
            progress.every(`Waiting for the user's answer (ask ${ask.id})`);
          },
        });
      },
      // The ask's questions, not the arguments: an id left out was filled in by toAskInput (none: an approval).
      (outcome) => renderResult(outcome, (input.questions ?? []) as { id: string; header?: string }[]),
    );

  /** Creates the ask without waiting (the Tasks extension): the created ask, or a tool error. */
  const createCall = async (input: AskInput): Promise<CreatedAsk | ToolResult> => {
    let created: CreatedAsk | undefined;
    try {
      // Never aborted: the task outlives this request; tasks/cancel ends it. A task is a durable
      // way back (the client polls it by id): the ask may wait up to the long maximum.
      await opts.backend.ask(
        { ...input, async: true },
        {
          signal: new AbortController().signal,
          waitMs: 0,
          onCreated: (a) => (created = a),
        },
      );
    } catch (error) {
      return toolError(`askgate could not ask: ${describe(error)}`);
    }
    return created ?? toolError('askgate could not ask: the ask was not created');
  };

  return {
    /** `ask_user`: creates the ask (runId `runId` unless the call names one) and waits at most `waitMs`. */
    async askUser(args: AskUserArgs, runId: string, ctx: CallContext): Promise<ToolResult> {
      const input = questionsInput(args, runId);
      return 'content' in input ? input : askCall(input, ctx);
    },

    /** `request_approval`: creates the approval ask and waits at most `waitMs` for the decision. */
    async requestApproval(args: RequestApprovalArgs, runId: string, ctx: CallContext): Promise<ToolResult> {
      const input = approvalInput(args, runId);
      return 'content' in input ? input : askCall(input, ctx);
    },

    /** `ask_user` without waiting (the Tasks extension): the created ask, or a tool error. */
    async createOnly(args: AskUserArgs, runId: string): Promise<CreatedAsk | ToolResult> {
      const input = questionsInput(args, runId);
      return 'content' in input ? input : createCall(input);
    },

    /** `request_approval` without waiting (the Tasks extension). */
    async createApprovalOnly(args: RequestApprovalArgs, runId: string): Promise<CreatedAsk | ToolResult> {
      const input = approvalInput(args, runId);
      return 'content' in input ? input : createCall(input);
    },

    /** `await_answer`: waits at most `waitMs` more on an existing ask. */
    async awaitAnswer(askId: string, ctx: CallContext): Promise<ToolResult> {
      if (!ASK_ID_PATTERN.test(askId))
        return toolError(
          `Invalid await_answer arguments: askId: "${askId.slice(0, 40)}" is not an ask id; pass the askId of a pending result.`,
        );
      return waitCall(
        ctx,
        (signal, progress) => {
          progress.every(`Waiting for the user's answer (ask ${askId})`);
          return opts.backend.await(askId, { signal, waitMs: opts.waitMs });
        },
        ({ outcome, questions }) => renderResult(outcome, questions),
      );
    },

    /** Aborts every waiting call (their asks are cancelled) and waits until they have finished. */
    async cancelAll(): Promise<void> {
      all.abort();
      await Promise.allSettled([...waiting]);
    },
  };
}

/** Where an ask went, for a progress message: "test:chat-1", "test:a and 2 more", or no chat. */
function placesOf(ask: CreatedAsk): string {
  const targets = ask.targets ?? [];
  const [first] = targets;
  if (!first) return 'no chat (answer it through the askgate API or console)';
  const more = targets.length > 1 ? ` and ${targets.length - 1} more` : '';
  return `${first.channel}:${first.chat}${more}`;
}

/** The calls of one MCP server (or of every per-request server of one endpoint). */
export type AskgateCalls = ReturnType<typeof askgateCalls>;

/** An error's message, plus the field paths of its issues when the message does not name them. */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const issues = (error as { issues?: { path: (string | number)[]; message: string }[] }).issues;
  const named = issues?.filter((i) => i.path.length > 0 && !message.includes(i.path.join('.'))) ?? [];
  return named.length > 0
    ? `${message} (${named.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`
    : message;
}
