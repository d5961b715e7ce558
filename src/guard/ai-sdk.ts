/**
 * `askgate/guard/ai-sdk`, for the Vercel AI SDK: a `ToolSet` whose tools' `execute` first asks a
 * {@link ToolGuard}. Only types come from `ai` (an optional peer): loading this file never loads it.
 */
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { ToolGuard } from './types.js';
import { cloneWith, guardedCall } from './wrap.js';

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;
type ToModelOutput = (options: { toolCallId: string; input: unknown; output: unknown }) => unknown;

const isAsyncGeneratorFunction = (fn: Function) =>
  Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]';

/**
 * Guards one tool of a `ToolSet` (`name` is its key there, the name the model calls). A tool with
 * an `execute` comes back as a copy whose `execute` asks `guard.check(name)` first: `run` calls the
 * original with the same input and options (tool call id, messages, abort signal, context) and
 * returns its result unchanged; blocked returns the decision's `message` as the tool's output (the
 * model reads it; the original never runs, nor after `abortSignal` aborted while the guard held
 * the call). A streaming tool (an `async function*`) stays one: blocked, it yields the message.
 * When the tool maps its output for the model (`toModelOutput`), a blocked call's message reaches
 * the model as text instead of going through that mapping. A tool without `execute` (provider
 * executed, or run by the app) comes back unchanged.
 */
export function guardAiTool<T extends Tool>(name: string, tool: T, guard: ToolGuard): T {
  const original = tool.execute as Execute | undefined;
  if (typeof original !== 'function') return tool;
  const mapOutput = tool.toModelOutput as ToModelOutput | undefined;
  /** Blocked calls by tool call id, until their output is mapped for the model (kept only for a mapping). */
  const blocked = new Map<string, string>();
  const block = (id: string, message: string) => (mapOutput && blocked.set(id, message), message);
  const execute = isAsyncGeneratorFunction(original)
    ? async function* (input: unknown, options: ToolExecutionOptions<unknown>) {
        let message: string | undefined;
        const stream = await guardedCall<AsyncIterable<unknown> | undefined>(
          guard,
          name,
          options.abortSignal,
          () => original(input, options) as AsyncIterable<unknown>,
          (decision) => void (message = block(options.toolCallId, decision.message)),
        );
        if (message !== undefined) yield message;
        else yield* stream!;
      }
    : (input: unknown, options: ToolExecutionOptions<unknown>) =>
        guardedCall(
          guard,
          name,
          options.abortSignal,
          () => original(input, options),
          (decision) => block(options.toolCallId, decision.message),
        );
  const toModelOutput: ToModelOutput | undefined = mapOutput
    ? (options) => {
        const message = blocked.get(options.toolCallId);
        if (message === undefined || options.output !== message) return mapOutput(options);
        blocked.delete(options.toolCallId);
        return { type: 'text', value: message };
      }
    : undefined;
  return cloneWith(tool, { execute, ...(toModelOutput ? { toModelOutput } : {}) });
}

/**
 * Guards every tool of a `ToolSet` as {@link guardAiTool} does; the result has the same keys and type.
 *
 * ```ts
 * await generateText({ model, tools: guardAiTools({ deploy, status }, guard), stopWhen: stepCountIs(5), prompt });
 * ```
 */
export function guardAiTools<T extends ToolSet>(tools: T, guard: ToolGuard): T {
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, guardAiTool(name, tool, guard)])) as T;
}
