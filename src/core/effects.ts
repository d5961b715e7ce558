import type { ConversationKey } from './store-ports.js';

/**
 * The steps of an ask that run at a time of their own, as delayed jobs: the timeout, up to 20
 * reminders (`remindAfterSeconds` gives at most 3, the cadence the rest: core/cadence.ts) and up
 * to 3 escalation steps (core/policy.ts says when each falls due). Reminder n is its own step, so
 * its job id (`remind-7-<askId>`) is idempotent by its number: a duplicated or re-fired job finds
 * `reminded` at n already and changes nothing.
 */
export const STEPS = [
  'timeout',
  'remind-1',
  'remind-2',
  'remind-3',
  'escalate-1',
  'escalate-2',
  'escalate-3',
  // The cadence's reminders (remind-1..3 are the cadence's too when remindAfterSeconds is absent).
  'remind-4',
  'remind-5',
  'remind-6',
  'remind-7',
  'remind-8',
  'remind-9',
  'remind-10',
  'remind-11',
  'remind-12',
  'remind-13',
  'remind-14',
  'remind-15',
  'remind-16',
  'remind-17',
  'remind-18',
  'remind-19',
  'remind-20',
] as const;

/** A step of an ask that runs at a time of its own (one of {@link STEPS}). */
export type Step = (typeof STEPS)[number];

/**
 * Outbox work for one ask (`index` is the delivery; unused for webhooks and always 0): deliver,
 * edit to the outcome, POST the webhook, post reminder `n` (1–20), re-render the open prompt (a tally).
 */
export type Job =
  | { kind: 'deliver' | 'finalize' | 'webhook' | 'refresh'; index: number }
  | { kind: 'remind'; index: number; n: number };

/** A metric a change reports. */
export type MetricEffect =
  | { name: 'ask_created'; channel: string }
  | {
      name: 'ask_resolved';
      status: string;
      reason: string | null;
      secondsOpen: number;
      /** Bounded labels of the time-to-answer histogram (core/insights.ts: outcome, ask kind, first target's channel). */
      labels?: { channel: string; kind: string; outcome: string };
    }
  /** A delivery's message was sent: seconds from the ask's creation, by the delivery's channel and the ask's kind. */
  | { name: 'ask_delivered'; channel: string; kind: string; seconds: number }
  /** A tool call a run's guard did not run (no tool label: names are unbounded). */
  | { name: 'guard_blocked' };

/** Work the shell does for one ask, as data: computed by the pure core, interpreted by app/. */
export type Effect =
  /** Wake waiters (done atomically by the store in the commit that carries it). */
  | { type: 'publish' }
  /** Runs `step` at `at` (epoch ms), idempotently. */
  | { type: 'schedule'; step: Step; at: number }
  /**
   * Moves a scheduled step to `at`: its job removed, then added anew (in that order: adding while
   * the old job stands would change nothing). Should the removal fail, the old job finds its step
   * not due yet and waits for the new time (core/step-due.ts).
   */
  | { type: 'reschedule'; step: Step; at: number }
  /** Best-effort removal of a scheduled step; correctness never depends on it. */
  | { type: 'unschedule'; step: Step }
  /** `step` is overdue and its job was lost: run it now. */
  | { type: 'due'; step: Step }
  | { type: 'enqueue'; job: Job }
  /** Stop routing the conversation's replies to this ask. */
  | { type: 'leave'; conversation: ConversationKey }
  /** The reconciler looks at the ask at `at` or earlier (the earlier of the existing mark and this). */
  | { type: 'sweepAt'; at: number }
  /** The reconciler's next look at the ask, set only if nobody marked it since it was listed. */
  | { type: 'resweep'; at: number }
  /** The reconciler's look at the ask moved to `at`, only while its mark is still `from` (the creation's). */
  | { type: 'sweepLater'; at: number; from: number }
  /** Nothing is left for the reconciler: drop the ask from the sweep index. */
  | { type: 'unsweep' }
  | { type: 'metric'; metric: MetricEffect };

/** Same job (kind, index and reminder number). */
export function sameJob(a: Job, b: Job): boolean {
  return a.kind === b.kind && a.index === b.index && ('n' in a ? a.n : 0) === ('n' in b ? b.n : 0);
}
