/**
 * `askgate/guard/openai-agents`, for the OpenAI Agents SDK: function tools whose every call first asks a
 * {@link ToolGuard}. Only types come from `@openai/agents` (an optional peer): the wrapper is built
 * from the tool's own shape, so loading this file never loads the SDK.
 */
import type { FunctionTool, Tool } from '@openai/agents';
import type { ToolGuard } from './types.js';
import { cloneWith, guardedCall } from './wrap.js';

/**
 * Guards one tool. A function tool comes back as a copy whose `invoke` asks `guard.check(tool.name)`
 * first: `run` calls the original `invoke` with the same run context, input and details and returns
 * its result unchanged; blocked returns the decision's `message` as the tool's output (the model
 * reads it; the original is never called). Every other field is kept as it is, `needsApproval`,
 * `isEnabled`, guardrails, timeouts and error functions included, so the SDK's own approval
 * (interruptions) still comes first and the guard decides when the approved call would run. The
 * SDK's per-tool timeout covers the guard's wait too; a call whose run was aborted while held never
 * runs.
 *
 * Other tool kinds (hosted tools, which run on OpenAI's side; computer, shell and apply-patch tools)
 * come back unchanged: they are not `invoke`d by a function the guard can wrap.
 */
export function guardOpenAITool<T extends Tool<any>>(tool: T, guard: ToolGuard): T {
  if (tool.type !== 'function') return tool;
  const original = tool as FunctionTool<any, any, any>;
  const invoke: FunctionTool<any, any, any>['invoke'] = (runContext, input, details) =>
    guardedCall(
      guard,
      original.name,
      details?.signal,
      () => original.invoke(runContext, input, details),
      (decision) => decision.message,
    );
  // Every own field is kept, the SDK's symbol-keyed ones (its output validator) included. What the
  // SDK keys on the original `invoke` (its parsed-input cache) is not carried: the original `invoke`
  // parses the input itself, with the same errors.
  return cloneWith(original, { invoke }) as T;
}

/**
 * Guards an agent's tools: each function tool as {@link guardOpenAITool} does, the rest unchanged.
 *
 * ```ts
 * const agent = new Agent({ name: 'Release', tools: guardOpenAITools([deploy, status], guard) });
 * ```
 */
export function guardOpenAITools<T extends Tool<any>>(tools: readonly T[], guard: ToolGuard): T[] {
  return tools.map((tool) => guardOpenAITool(tool, guard));
}
