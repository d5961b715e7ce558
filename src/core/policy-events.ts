import type { AskRecord } from './schemas.js';
import type { Effect } from './effects.js';
import type { AskEvent, TransitionResult } from './ask-events.js';
import { deliveryTo } from './new-ask.js';
import { policySteps } from './policy.js';
import { withHistory } from './record-history.js';
import { deadlineOf, isTerminal } from './record-state.js';
import { isDue } from './step-due.js';

type PolicyEvent = Extract<AskEvent, { type: 'remind' | 'escalate' | 'reminder_posted' }>;

const unchanged = (code: 'updated' | 'already_resolved'): TransitionResult => ({
  kind: 'unchanged',
  outcome: { code },
});
const noSuchStep: TransitionResult = {
  kind: 'unchanged',
  outcome: { code: 'invalid', issues: [{ path: ['n'], message: "no such step in this ask's policy" }] },
};

/**
 * The policy's steps as transitions. `remind`/`escalate` n fire once (the compare-and-set on
 * `reminded`/`escalated`), only while the ask is pending, at or after their time and before the
 * deadline. `reminder_posted` notes that delivery `index` showed reminder n (or gave up on it).
 */
export function policyTransition(record: AskRecord, event: PolicyEvent, now: number): TransitionResult {
  if (event.type === 'reminder_posted') return reminderPosted(record, event.index, event.n, now);
  if (isTerminal(record)) return unchanged('already_resolved');
  const step = policySteps(record).find((s) => s.kind === event.type && s.n === event.n);
  if (!step) return noSuchStep;
  const fired = event.type === 'remind' ? (record.reminded ?? 0) : (record.escalated ?? 0);
  // Early (a job that fired ahead of its time waits and retries); at the deadline the timeout owns the ask.
  if (fired >= event.n || !isDue(record, step.step, now) || now >= deadlineOf(record)) return unchanged('updated');
  if (event.type === 'remind') {
    const next = withHistory(
      { ...record, rev: record.rev + 1, reminded: event.n },
      [{ type: 'reminded', detail: `reminder ${event.n}` }],
      now,
    );
    const effects = next.deliveries.flatMap((d, index): Effect[] =>
      d.status === 'sent' && (d.reminded ?? 0) < event.n
        ? [{ type: 'enqueue', job: { kind: 'remind', index, n: event.n } }]
        : [],
    );
    return { kind: 'changed', record: next, effects, outcome: { code: 'updated' } };
  }
  const targets = record.policy!.escalate![event.n - 1]!.to;
  const added = targets.map((t) => deliveryTo(t, event.n));
  const next = withHistory(
    { ...record, rev: record.rev + 1, escalated: event.n, deliveries: [...record.deliveries, ...added] },
    [{ type: 'escalated', detail: `step ${event.n}: ${targets.map((t) => t.channel).join(', ')}` }],
    now,
  );
  // The new deliveries' jobs come from work.ts (jobsFor: every pending delivery).
  return { kind: 'changed', record: next, effects: [], outcome: { code: 'updated' } };
}

function reminderPosted(record: AskRecord, index: number, n: number, now: number): TransitionResult {
  const current = record.deliveries[index];
  if (!current)
    return {
      kind: 'unchanged',
      outcome: { code: 'invalid', issues: [{ path: ['index'], message: 'no such delivery' }] },
    };
  if ((current.reminded ?? 0) >= n) return unchanged('updated');
  const deliveries = [...record.deliveries];
  deliveries[index] = { ...current, reminded: n };
  return {
    kind: 'changed',
    record: withHistory({ ...record, rev: record.rev + 1, deliveries }, [], now),
    effects: [],
    outcome: { code: 'updated' },
  };
}
