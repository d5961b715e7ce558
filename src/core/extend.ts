import type { AskRecord, Responder } from './schemas.js';
import type { Effect } from './effects.js';
import type { TransitionResult } from './ask-events.js';
import { withHistory, who } from './record-history.js';
import { deadlineOf, isTerminal } from './record-state.js';
import { nextCadenceStep } from './policy.js';

/**
 * Moves a pending ask's deadline to `at` (epoch ms; the shell checked it against the bounds,
 * core/deadline.ts): records `extended` with who asked and both deadlines. Refused (`expired`)
 * once the old deadline passed: the timeout owns the ask then, as it owns a late answer.
 *
 * Effects: the timeout job moves (removed, then added at the new time; should the removal fail,
 * the old job finds the deadline not due and waits: core/step-due.ts), every sent message is
 * re-rendered to show the new deadline (the tally's `refresh` job, which also re-indexes the
 * message for the longer life), and a deadline moved earlier gets the reconciler's look by then.
 * Reminder and escalation times are offsets from creation, before the old deadline and so before a
 * later one: their jobs stay as they are. The cadence (`remindEverySeconds`) is re-planned against
 * the new deadline: its next reminder (after those already sent, which stay counted toward the 20)
 * is scheduled when it now falls before the deadline (the cadence had stopped at the old one), and
 * unscheduled when a deadline moved earlier leaves it out.
 */
export function extend(record: AskRecord, event: { at: number; by: Responder }, now: number): TransitionResult {
  if (isTerminal(record)) return { kind: 'unchanged', outcome: { code: 'already_resolved' } };
  const from = deadlineOf(record);
  if (now > from) return { kind: 'unchanged', outcome: { code: 'expired' } };
  const to = new Date(event.at).toISOString();
  const next = withHistory(
    { ...record, rev: record.rev + 1, expiresAt: to, extended: (record.extended ?? 0) + 1 },
    [{ type: 'extended', ...who(event.by), from: record.expiresAt, to }],
    now,
  );
  const cadence = nextCadenceStep(record);
  const effects: Effect[] = [
    { type: 'reschedule', step: 'timeout', at: event.at },
    ...(cadence
      ? [
          cadence.at < event.at
            ? ({ type: 'schedule', step: cadence.step, at: cadence.at } as const)
            : ({ type: 'unschedule', step: cadence.step } as const),
        ]
      : []),
    ...(event.at < from ? [{ type: 'sweepAt', at: event.at } as const] : []),
    ...record.deliveries.flatMap((d, index): Effect[] =>
      d.status === 'sent' ? [{ type: 'enqueue', job: { kind: 'refresh', index } }] : [],
    ),
  ];
  return { kind: 'changed', record: next, effects, outcome: { code: 'updated' } };
}
