import type { AskRecord } from './schemas.js';
import type { Step } from './effects.js';
import { parseStep, stepOf } from './policy.js';
import { deadlineOf, isTerminal } from './record-state.js';

/** The event that runs a step (the timeout, reminder n, escalation step n): a lifecycle `AskEvent`. */
export type StepEvent = { type: 'timeout' } | { type: 'remind' | 'escalate'; n: number };

/** What a step's job does now: nothing (the ask ended, or has no such step), wait, or apply `event`. */
export type StepCall = { kind: 'none' } | { kind: 'wait'; notBefore: number } | { kind: 'apply'; event: StepEvent };

const NONE: StepCall = { kind: 'none' };

/**
 * When `step` falls due (epoch ms): the deadline for the timeout, its policy time for a reminder or
 * an escalation step; null when the ask's policy has no such step.
 */
export function stepTime(record: AskRecord, step: Step): number | null {
  if (step === 'timeout') return deadlineOf(record);
  const policy = parseStep(step);
  return (policy && stepOf(record, policy.kind, policy.n)?.at) ?? null;
}

/** Whether `step` is due at `now` (at or after its time); never for a step the ask's policy lacks. */
export function isDue(record: AskRecord, step: Step, now: number): boolean {
  const at = stepTime(record, step);
  return at !== null && now >= at;
}

/**
 * What the job of `step` does at `now` with the record it has: an ended ask or a step its policy
 * lacks needs nothing; a step that came early (step jobs are queued a little ahead) waits until its
 * time; a due one applies its event (the transition then decides whether it still fires).
 */
export function stepCall(record: AskRecord, step: Step, now: number): StepCall {
  if (isTerminal(record)) return NONE;
  const at = stepTime(record, step);
  if (at === null) return NONE;
  if (now < at) return { kind: 'wait', notBefore: at };
  const policy = parseStep(step);
  return { kind: 'apply', event: policy ? { type: policy.kind, n: policy.n } : { type: 'timeout' } };
}
