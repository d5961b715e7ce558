import type { Issue } from './errors.js';
import type { Answers, AskRecord, AskRequest, StoredPolicy } from './schemas.js';
import { ownValue } from './own.js';
import type { Step } from './effects.js';
import { targetList } from './request-policy.js';
import { kindOf, strictContext, type KindName } from './questions/index.js';
import { openingFor } from './working-hours.js';
import { cadenceTimes, MAX_REMINDERS } from './cadence.js';

/** An ask's policy as stored: normalised (targets always a list, default labels canonical). */
export type AskPolicy = StoredPolicy;

/** The policy rules that need the clamped timeout: every reminder and escalation step before it. */
export function policyIssues(
  request: Pick<AskRequest, 'remindAfterSeconds' | 'escalate'>,
  timeoutSeconds: number,
): Issue[] {
  const late = `must be below the timeout (${timeoutSeconds} s after clamping)`;
  return [
    ...(request.remindAfterSeconds ?? []).flatMap((s, i) =>
      s >= timeoutSeconds ? [{ path: ['remindAfterSeconds', i], message: late }] : [],
    ),
    ...(request.escalate ?? []).flatMap((step, i) =>
      step.afterSeconds >= timeoutSeconds ? [{ path: ['escalate', i, 'afterSeconds'], message: late }] : [],
    ),
  ];
}

/** The stored policy of a validated request, or undefined when it sets none. */
export function policyOf(request: AskRequest): AskPolicy | undefined {
  const policy: AskPolicy = {};
  if (request.remindAfterSeconds) policy.remindAfterSeconds = [...request.remindAfterSeconds];
  if (request.remindEverySeconds !== undefined) policy.remindEverySeconds = request.remindEverySeconds;
  if (request.escalate)
    policy.escalate = request.escalate.map((s) => ({ afterSeconds: s.afterSeconds, to: targetList(s.to) }));
  if (request.onTimeout?.decision) policy.onTimeout = { decision: request.onTimeout.decision };
  if (request.onTimeout?.default) {
    const entries = Object.entries(request.onTimeout.default).map(([id, values]): [string, string[]] => {
      const question = request.questions.find((q) => q.id === id)!;
      // Strict forms read no relative words, so no clock is needed (0).
      const found = kindOf(question).defaultValues(question, values, strictContext(request.timeZone, 0));
      return [id, found.ok ? found.values : []];
    });
    policy.onTimeout = { default: Object.fromEntries(entries) };
  }
  if (request.agree !== undefined && request.agree > 1) policy.agree = request.agree;
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** How many matching answers the ask needs (1 unless `agree` says more). */
export const agreeOf = (record: Pick<AskRecord, 'policy'>): number => record.policy?.agree ?? 1;

/**
 * The comparison key of a set of (normalised) answers: per question in order, its kind's key of its
 * values (a choice: sorted), as JSON. The agreement rule and the tally both use it.
 */
export function answersKey(questions: readonly { id: string; kind?: KindName }[], answers: Answers): string {
  return JSON.stringify(questions.map((q) => kindOf(q).agreementKey(ownValue(answers, q.id) ?? [])));
}

/** A scheduled step of a policy: its name, its number (1-based) and when it falls due (epoch ms). */
export interface PolicyStep {
  step: Step;
  kind: 'remind' | 'escalate';
  n: number;
  at: number;
}

type StepFields = Pick<AskRecord, 'policy' | 'createdAt' | 'targets'>;

/**
 * The reminders given by `remindAfterSeconds` and the escalation steps of the record's policy, fired
 * or not (the cadence's are {@link cadenceSteps}). A step due outside the working hours of its
 * people (a reminder: the ask's targets; an escalation step: its own) waits for the next opening
 * (core/working-hours.ts); one that would then fall at or past the deadline never fires (the
 * timeout owns the ask).
 */
export function policySteps(record: StepFields): PolicyStep[] {
  const created = Date.parse(record.createdAt);
  const reminders = (record.policy?.remindAfterSeconds ?? []).map((s, i): PolicyStep => ({
    step: `remind-${i + 1}` as Step,
    kind: 'remind',
    n: i + 1,
    at: openingFor(record.targets, created + s * 1000),
  }));
  const escalations = (record.policy?.escalate ?? []).map((s, i): PolicyStep => ({
    step: `escalate-${i + 1}` as Step,
    kind: 'escalate',
    n: i + 1,
    at: openingFor(s.to, created + s.afterSeconds * 1000),
  }));
  return [...reminders, ...escalations];
}

/**
 * The cadence's reminders (`remindEverySeconds`), every one the cap allows, whatever the deadline:
 * numbered after the `remindAfterSeconds` ones (k of them: `remind-(k+1)` up to `remind-20`), the
 * first a cadence after the last of those (else after creation), each in the targets' working
 * hours (core/cadence.ts). Only the next one ever has a job ({@link nextCadenceStep}). Only those up
 * to reminder `upTo` when given (each time depends on the one before; with working hours each
 * costs some 30 µs of zone arithmetic).
 */
export function cadenceSteps(record: StepFields, upTo: number = MAX_REMINDERS): PolicyStep[] {
  const every = record.policy?.remindEverySeconds;
  if (every === undefined) return [];
  const explicit = policySteps(record).filter((s) => s.kind === 'remind');
  const base = explicit.at(-1)?.at ?? Date.parse(record.createdAt);
  const count = Math.max(0, Math.min(MAX_REMINDERS, upTo) - explicit.length);
  return cadenceTimes(record.targets, base, every, count).map((at, i): PolicyStep => {
    const n = explicit.length + i + 1;
    return { step: `remind-${n}` as Step, kind: 'remind', n, at };
  });
}

/** The cadence reminder after the last reminder fired (whatever its deadline), or null: none, or past the cap. */
export function nextCadenceStep(record: StepFields & Pick<AskRecord, 'reminded'>): PolicyStep | null {
  const after = Math.max(record.reminded ?? 0, record.policy?.remindAfterSeconds?.length ?? 0);
  return cadenceSteps(record, after + 1).find((s) => s.n > (record.reminded ?? 0)) ?? null;
}

/** Step `kind` n of the record's policy (a `remindAfterSeconds` one, a cadence one, an escalation step), or undefined. */
export function stepOf(record: StepFields, kind: 'remind' | 'escalate', n: number): PolicyStep | undefined {
  const found = policySteps(record).find((s) => s.kind === kind && s.n === n);
  return found ?? (kind === 'remind' ? cadenceSteps(record, n).find((s) => s.n === n) : undefined);
}

/**
 * The steps of the policy that have not fired yet and have (or should have) a job: the given
 * reminders and escalation steps, and of the cadence only the next reminder (one job at a time).
 */
export function unfiredSteps(
  record: Pick<AskRecord, 'policy' | 'createdAt' | 'targets' | 'reminded' | 'escalated'>,
): PolicyStep[] {
  const next = nextCadenceStep(record);
  return [
    ...policySteps(record).filter(
      (s) => s.n > (s.kind === 'remind' ? (record.reminded ?? 0) : (record.escalated ?? 0)),
    ),
    ...(next ? [next] : []),
  ];
}

/** Reads a step name: `remind-2` -> {kind, n}; the timeout -> null. */
export function parseStep(step: Step): { kind: 'remind' | 'escalate'; n: number } | null {
  const m = /^(?:(remind)-([1-9]|1\d|20)|(escalate)-([1-3]))$/.exec(step);
  if (!m) return null;
  return m[1] ? { kind: 'remind', n: Number(m[2]) } : { kind: 'escalate', n: Number(m[4]) };
}
