import type { Issue } from './errors.js';
import type { Answers, AskRecord, AskRequest, StoredPolicy } from './schemas.js';
import { ownValue } from './own.js';
import type { Step } from './effects.js';
import { targetList } from './request-policy.js';
import { kindOf, strictContext, type KindName } from './questions/index.js';
import { openingFor } from './working-hours.js';

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

/**
 * Every reminder and escalation step of the record's policy, fired or not. A step due outside the
 * working hours of its people (a reminder: the ask's targets; an escalation step: its own) waits
 * for the next opening (core/working-hours.ts); one that would then fall at or past the deadline
 * never fires (the timeout owns the ask).
 */
export function policySteps(record: Pick<AskRecord, 'policy' | 'createdAt' | 'targets'>): PolicyStep[] {
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

/** The steps of the policy that have not fired yet. */
export function unfiredSteps(
  record: Pick<AskRecord, 'policy' | 'createdAt' | 'targets' | 'reminded' | 'escalated'>,
): PolicyStep[] {
  return policySteps(record).filter(
    (s) => s.n > (s.kind === 'remind' ? (record.reminded ?? 0) : (record.escalated ?? 0)),
  );
}

/** Reads a step name: `remind-2` -> {kind, n}; the timeout -> null. */
export function parseStep(step: Step): { kind: 'remind' | 'escalate'; n: number } | null {
  const m = /^(remind|escalate)-([1-3])$/.exec(step);
  return m ? { kind: m[1] as 'remind' | 'escalate', n: Number(m[2]) } : null;
}
