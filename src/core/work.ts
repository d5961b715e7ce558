import { sameJob, type Effect, type Job } from './effects.js';
import { deadlineOf, deliveriesToFinalize, isDone, isTerminal, webhookSettled } from './lifecycle.js';
import { unfiredSteps } from './policy.js';
import type { AskRecord } from './schemas.js';
import type { AlongWrites } from './store-ports.js';

/** The reconciler's timing (filled from config.ts). */
export interface WorkSettings {
  /** How long past the deadline the reconciler waits for the timeout job before acting itself. */
  graceMs: number;
  /** How soon the reconciler re-checks an ask that still has delivery or finalization work. */
  sweepDelayMs: number;
}

const enqueue = (job: Job): Effect => ({ type: 'enqueue', job });

/**
 * The outbox jobs a record still needs: its webhook once it ended (until sent or given up), the
 * outcome edit of every sent message once it ended, every delivery not yet tried (escalation
 * adds some), and while it is pending the latest fired reminder on each sent message that has
 * not shown it (an older one missed is not posted late: the latest says the same).
 */
export function jobsFor(record: AskRecord): Job[] {
  const jobs: Job[] = [];
  if (isTerminal(record) && !webhookSettled(record)) jobs.push({ kind: 'webhook', index: 0 });
  for (const index of deliveriesToFinalize(record)) jobs.push({ kind: 'finalize', index });
  record.deliveries.forEach((d, index) => d.status === 'pending' && jobs.push({ kind: 'deliver', index }));
  const n = record.reminded ?? 0;
  if (!isTerminal(record) && n > 0)
    record.deliveries.forEach(
      (d, index) => d.status === 'sent' && (d.reminded ?? 0) < n && jobs.push({ kind: 'remind', index, n }),
    );
  return jobs;
}

/**
 * How close to the deadline a reminder is still posted, at the latest: the check is made just
 * before the platform call, which takes a moment to land, so a reminder checked in the last few
 * milliseconds reached the chat after the timeout ended the ask (the P3 reliability row under
 * load). A reminder that arrives a quarter of a second before the ask ends helps nobody.
 */
export const REMINDER_CUTOFF_MS = 250;

/**
 * Whether `record` still owes `job`, the one rule every outbox job checks before it acts (so a job
 * that runs twice does nothing the second time): a job {@link jobsFor} lists. A reminder is not
 * posted within {@link REMINDER_CUTOFF_MS} of the deadline or past it either (the timeout owns the
 * ask then). A refresh, which the agreement tally asks for rather than jobsFor, is owed while the
 * ask is open and its message sent.
 */
export function stillOwed(record: AskRecord, job: Job, now: number): boolean {
  if (job.kind === 'refresh') return !isTerminal(record) && record.deliveries[job.index]?.status === 'sent';
  if (job.kind === 'remind' && now >= deadlineOf(record) - REMINDER_CUTOFF_MS) return false;
  return jobsFor(record).some((owed) => sameJob(owed, job));
}

/**
 * What to do after `next` is committed over `prev` (null: created): the transition's own effects
 * and the jobs the change made necessary (those `prev` did not already need, nor the effects
 * carry), e.g. the outcome edit of a message that was sent after the ask ended, or the
 * deliveries an escalation step added.
 */
export function followUp(prev: AskRecord | null, next: AskRecord, effects: readonly Effect[]): Effect[] {
  const before = [...(prev ? jobsFor(prev) : []), ...effects.flatMap((e) => (e.type === 'enqueue' ? [e.job] : []))];
  const fresh = jobsFor(next).filter((job) => !before.some((b) => sameJob(b, job)));
  return [...effects, ...fresh.map(enqueue)];
}

/**
 * The effects of committing a transition: `ahead` run before the commit, `after` once it is in.
 * Ahead is the write-ahead sweep mark of an ask that just ended with work left, so the reconciler
 * still finalizes its messages and sends its webhook if we crash after the commit; skipped while
 * the mark made at creation stands (it is the earlier one, the index keeps the lower score).
 * After starts with the unmark of an ask that has nothing left, rather than sweep it later; the
 * commit that made a chat ask's last pending delivery, leaving nothing to re-drive, moves the early
 * creation mark to the ask's watch time (`sweepLater`, only while it is still that mark), so the
 * reconciler does not read every delivered ask sweepDelay after its creation.
 */
export function commitPlan(
  prev: AskRecord,
  next: AskRecord,
  effects: readonly Effect[],
  now: number,
  settings: WorkSettings,
): { ahead: Effect[]; after: Effect[] } {
  const endedNow = isTerminal(next) && !isTerminal(prev);
  const ahead: Effect[] =
    endedNow && !isDone(next) && !creationMarkStands(prev, now, settings)
      ? [{ type: 'sweepAt', at: now + settings.sweepDelayMs }]
      : [];
  const after = followUp(prev, next, effects);
  if (isDone(next) && !isDone(prev)) after.unshift({ type: 'unsweep' });
  if (lastDeliveryMade(prev, next) && !after.some((e) => e.type === 'enqueue') && jobsFor(next).length === 0)
    after.push({ type: 'sweepLater', at: watchTime(next, now, settings), from: creationMark(next, settings) });
  return { ahead, after };
}

/** A pending ask with the early mark whose last pending delivery this commit settled. */
const lastDeliveryMade = (prev: AskRecord, next: AskRecord): boolean =>
  !isTerminal(next) && hasEarlyMark(next) && hasPendingDelivery(prev) && !hasPendingDelivery(next);

const hasPendingDelivery = (record: AskRecord): boolean => record.deliveries.some((d) => d.status === 'pending');

/** The sweep time {@link createPlan} gave an ask with a target: its creation + the sweep delay. */
const creationMark = (record: AskRecord, settings: WorkSettings): number =>
  Date.parse(record.createdAt) + settings.sweepDelayMs;

/**
 * A plan's index writes an ordered store makes inside the create or commit itself
 * ({@link AlongWrites}): the write-ahead mark of `ahead`, and of `after` the unmark, the later
 * look and the conversations left. Made in the write's atomic step they need no commands of their own, and
 * the mark can no longer be missing while the write stands. Returns them and the effects that
 * still run around the write.
 */
export function foldAlong(plan: { ahead: readonly Effect[]; after: readonly Effect[] }): {
  along: AlongWrites;
  ahead: Effect[];
  after: Effect[];
} {
  const along: AlongWrites = {};
  const ahead: Effect[] = [];
  for (const e of plan.ahead) {
    if (e.type === 'sweepAt') along.mark = Math.min(e.at, along.mark ?? Infinity);
    else ahead.push(e);
  }
  const after: Effect[] = [];
  for (const e of plan.after) {
    if (e.type === 'unsweep') along.unsweep = true;
    else if (e.type === 'sweepLater') along.later = { at: e.at, from: e.from };
    else if (e.type === 'leave') (along.leave ??= []).push(e.conversation);
    else after.push(e);
  }
  return { along, ahead, after };
}

/**
 * Creating `record`: the write-ahead mark (before the record exists), then its effects and first
 * jobs. An ask with something to deliver is marked `sweepDelay` ahead, so a delivery lost in a
 * crash is taken over that soon. An ask with nothing to deliver (an API ask) only needs its step
 * jobs, so its mark is the reconciler's regular look ({@link watchTime}): a step job lost in a
 * crash right after the create runs at its time + grace, and a healthy ask is never read by the
 * reconciler before then (at a million pending asks, that is most of the reconciler's work).
 */
export function createPlan(
  record: AskRecord,
  effects: readonly Effect[],
  now: number,
  settings: WorkSettings,
): { ahead: Effect[]; after: Effect[] } {
  const at = hasEarlyMark(record) ? now + settings.sweepDelayMs : watchTime(record, now, settings);
  return { ahead: [{ type: 'sweepAt', at }], after: followUp(null, record, effects) };
}

/** Whether the ask was created with the early mark ({@link createPlan}): it had a target. */
const hasEarlyMark = (record: AskRecord): boolean => record.to !== null;

/**
 * True while the early sweep mark written before the ask was created must still be in the index:
 * the reconciler only moves or removes a mark once it is due, and it is due at createdAt +
 * sweepDelay. Half the delay is kept as margin for clock skew between replicas. Once no delivery
 * is pending, the mark may have been moved later ({@link commitPlan}'s `sweepLater`): then it is
 * not counted on.
 */
function creationMarkStands(record: AskRecord, now: number, settings: WorkSettings): boolean {
  return (
    hasEarlyMark(record) && hasPendingDelivery(record) && now < Date.parse(record.createdAt) + settings.sweepDelayMs / 2
  );
}

/**
 * When the reconciler must look at a pending ask whose jobs are all in: the deadline or the next
 * policy step not yet lost at `now` (before the deadline), whichever is first, plus the grace it
 * leaves the step's own job.
 */
export function watchTime(record: AskRecord, now: number, settings: WorkSettings): number {
  const deadline = deadlineOf(record);
  const future = unfiredSteps(record).filter((s) => s.at < deadline && now < s.at + settings.graceMs);
  return Math.min(deadline, ...future.map((s) => s.at)) + settings.graceMs;
}

/**
 * The reconciler's look at one ask at `now`: the timeout when its job was lost (past deadline +
 * grace), else the lost policy steps, the missing jobs, the timeout and the future steps
 * (re)scheduled, and when to look again; nothing but the unmark once the ask is done.
 */
export function workFor(record: AskRecord, now: number, settings: WorkSettings): Effect[] {
  const { graceMs, sweepDelayMs } = settings;
  if (!isTerminal(record)) {
    const deadline = deadlineOf(record);
    if (now >= deadline + graceMs)
      return [
        { type: 'due', step: 'timeout' },
        { type: 'resweep', at: now + sweepDelayMs },
      ];
    // Policy steps: a lost one (past its time + grace, before the deadline) runs now, in order;
    // the others are (re)scheduled, and the next look is when one of them would be lost.
    const steps = unfiredSteps(record).filter((s) => s.at < deadline);
    const lost = steps.filter((s) => now >= s.at + graceMs);
    const future = steps.filter((s) => now < s.at + graceMs);
    const due = lost.sort((a, b) => a.at - b.at).map((s): Effect => ({ type: 'due', step: s.step }));
    const jobs = jobsFor(record).map(enqueue);
    const watch = watchTime(record, now, settings);
    const next = jobs.length > 0 || due.length > 0 ? Math.min(now + sweepDelayMs, watch) : watch;
    return [
      ...due,
      ...jobs,
      { type: 'schedule', step: 'timeout', at: deadline },
      ...future.map((s): Effect => ({ type: 'schedule', step: s.step, at: s.at })),
      { type: 'resweep', at: next },
    ];
  }
  if (isDone(record)) return [{ type: 'unsweep' }];
  return [...jobsFor(record).map(enqueue), { type: 'resweep', at: now + sweepDelayMs }];
}
