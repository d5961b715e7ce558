import type { AskRecord } from './schemas.js';
import type { Effect } from './effects.js';
import type { AskEvent, TransitionResult } from './ask-events.js';
import { deliveryTo } from './new-ask.js';
import { cadenceSteps, stepOf } from './policy.js';
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
  const step = stepOf(record, event.type, event.n);
  if (!step) return noSuchStep;
  const fired = event.type === 'remind' ? (record.reminded ?? 0) : (record.escalated ?? 0);
  // Early (a job that fired ahead of its time waits and retries); at the deadline the timeout owns the ask.
  if (fired >= event.n || !isDue(record, step.step, now) || now >= deadlineOf(record)) return unchanged('updated');
  if (event.type === 'remind') return remind(record, event.n, now);
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

/**
 * Reminder n fires: one post per sent delivery. A cadence reminder that fires late (the app was
 * down across several of its times) posts once and counts as the latest one due, so people get one
 * reminder, not a burst; and it schedules the cadence's next reminder in the same commit (only
 * one cadence job exists at a time), unless that falls at or past the deadline: an extension
 * schedules it then (core/extend.ts).
 */
function remind(record: AskRecord, n: number, now: number): TransitionResult {
  const cadence = cadenceSteps(record);
  const latest = cadence.filter((s) => s.n >= n && s.at <= now).at(-1)?.n ?? n;
  const after = cadence.find((s) => s.n > latest);
  const next = withHistory(
    { ...record, rev: record.rev + 1, reminded: latest },
    [{ type: 'reminded', detail: `reminder ${latest}` }],
    now,
  );
  const effects = next.deliveries.flatMap((d, index): Effect[] =>
    d.status === 'sent' && (d.reminded ?? 0) < latest
      ? [{ type: 'enqueue', job: { kind: 'remind', index, n: latest } }]
      : [],
  );
  if (after && after.at < deadlineOf(record)) effects.push({ type: 'schedule', step: after.step, at: after.at });
  return { kind: 'changed', record: next, effects, outcome: { code: 'updated' } };
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
