/**
 * The one rule every framework adapter of `askgate/guard` applies around a tool's execution: ask the
 * guard first; run the original only on `{run: true}`; otherwise hand the decision's message back as
 * the tool's result. No framework is imported here (they are optional peers).
 */
import type { GuardDecision, ToolGuard } from './types.js';

/** What a guarded call does with a blocked decision: the model-readable result in the framework's shape. */
export type Blocked<R> = (decision: Extract<GuardDecision, { run: false }>) => R;

/**
 * Decides one call of `toolName` through `guard`, then runs `execute` or returns `blocked(decision)`.
 *
 * A guard that holds calls may resolve long after the call began: if `signal` was aborted meanwhile
 * (the run was cancelled, the framework's own timeout for the call fired), the call is not run late;
 * the abort's reason is thrown instead. A guard that throws (it should decide `state_unknown`
 * instead) fails the call: the original is never run on an error.
 */
export async function guardedCall<R>(
  guard: ToolGuard,
  toolName: string,
  signal: AbortSignal | undefined,
  execute: () => R | Promise<R>,
  blocked: Blocked<R>,
): Promise<R> {
  signal?.throwIfAborted();
  const decision = await guard.check(toolName);
  signal?.throwIfAborted();
  return decision.run ? execute() : blocked(decision);
}

/**
 * A copy of `value` with `overrides`: same prototype and every own property with its descriptor
 * (non-enumerable and symbol-keyed ones too, which a spread would drop or turn into plain fields).
 */
export function cloneWith<T extends object>(value: T, overrides: Record<string, unknown>): T {
  const descriptors = Object.getOwnPropertyDescriptors(value) as Record<PropertyKey, PropertyDescriptor>;
  for (const key of Object.keys(overrides)) delete descriptors[key];
  const clone = Object.create(Object.getPrototypeOf(value), descriptors) as T;
  return Object.assign(clone, overrides);
}
