/**
 * `askgate/guard/langgraph`, for LangChain tools as LangGraph's `ToolNode` (and `createReactAgent`,
 * LangChain's `createAgent`) call them: `tool.invoke(toolCall, config)`. No LangChain package is
 * loaded here (they are optional peers): the wrapper is built from the tool's own shape.
 */
import type { ToolGuard } from './types.js';
import { guardedCall } from './wrap.js';

/** What a guarded LangChain tool needs: its name and `invoke` (StructuredTool, DynamicTool, a runnable's asTool()). */
export interface LangChainToolLike {
  name: string;
  invoke(input: any, config?: any): Promise<any>;
}

/** The part of a LangChain `StructuredTool` the blocked result is made with. */
interface StructuredToolParts {
  _call(...args: unknown[]): unknown;
  responseFormat?: string;
}

const hasCall = (tool: object): tool is StructuredToolParts =>
  typeof (tool as Partial<StructuredToolParts>)._call === 'function';

/**
 * The blocked call's result in the shape the tool itself returns. For a `StructuredTool` it is the
 * tool's own `invoke` on an object whose `_call` returns the message: the input is still checked
 * against the schema, callbacks see the call, and a tool call comes back as the `ToolMessage` the
 * tool would make (its id, name and metadata), with the message as its content. Other tools return
 * the message as text (`ToolNode` wraps text in a `ToolMessage`).
 */
function blockedResult(tool: LangChainToolLike, input: unknown, config: unknown, message: string): Promise<unknown> {
  if (!hasCall(tool)) return Promise.resolve(message);
  const stand = Object.create(tool) as LangChainToolLike & StructuredToolParts;
  // A tool answering `[content, artifact]` gets the message as content and no artifact.
  const result = tool.responseFormat === 'content_and_artifact' ? [message, undefined] : message;
  Object.defineProperty(stand, '_call', { value: () => Promise.resolve(result) });
  return stand.invoke(input, config);
}

/**
 * Guards one LangChain tool. The result has the tool as its prototype (so `instanceof`, `name`,
 * `description`, `schema`, `returnDirect`, `responseFormat` and everything `bindTools` and `ToolNode`
 * read are the tool's own) and its own `invoke`, which asks `guard.check(tool.name)` first: `run`
 * calls the original `invoke` with the same input and config and returns its result unchanged (a
 * `ToolMessage`, a `Command`, or a value); blocked returns the decision's `message` as the call's
 * result (a `ToolMessage` with that content for a tool call). The original never runs on a blocked
 * call, nor after the run's `config.signal` aborted while the guard held it.
 */
export function guardLangChainTool<T extends LangChainToolLike>(tool: T, guard: ToolGuard): T {
  const guarded = Object.create(tool) as T;
  const invoke = (input: unknown, config?: { signal?: AbortSignal }) =>
    guardedCall<unknown>(
      guard,
      tool.name,
      config?.signal,
      () => tool.invoke(input, config),
      (decision) => blockedResult(tool, input, config, decision.message),
    );
  Object.defineProperty(guarded, 'invoke', { value: invoke, writable: true, configurable: true });
  return guarded;
}

/**
 * Guards the tools given to a `ToolNode` (or `createReactAgent`, `createAgent`), each as
 * {@link guardLangChainTool} does; bind the same guarded tools to the model.
 *
 * ```ts
 * const tools = guardLangChainTools([deploy, status], guard);
 * const agent = createReactAgent({ llm, tools });
 * ```
 */
export function guardLangChainTools<T extends LangChainToolLike>(tools: readonly T[], guard: ToolGuard): T[] {
  return tools.map((tool) => guardLangChainTool(tool, guard));
}
