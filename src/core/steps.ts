import type { Step } from './effects.js';
import type { AskRecord } from './schemas.js';

/**
 * A step that came early: it is due at `notBefore` (epoch ms). The scheduler holds it in memory
 * until then instead of keeping a worker slot busy (a durable scheduler fires its jobs a little
 * ahead, so their own lateness does not add to the step's).
 */
export interface NotYet {
  notBefore: number;
  /**
   * The record the handler read to find the step early. The scheduler hands it back when it calls
   * again at `notBefore`, which saves a read: the commit's compare-and-set rejects it if it went stale.
   */
  seen?: AskRecord;
}

/**
 * Runs one step of an ask when it falls due (or later); returns {@link NotYet} when it came early.
 * `seen` is what an earlier call returned in its {@link NotYet}, if anything.
 */
export type StepHandler = (askId: string, seen?: AskRecord) => Promise<void | NotYet>;

/** One step of an ask and when it is due (epoch ms). */
export interface ScheduledStep<S extends string = Step> {
  askId: string;
  step: S;
  at: number;
}

/** A handler for every step (`S`: the step names, {@link Step} outside tests). */
export type StepHandlers<S extends string = Step> = { readonly [K in S]: StepHandler };

/**
 * Runs the steps of each ask (the timeout, reminders, escalation) at their time, as delayed jobs of one queue: a
 * new step is a new name and a handler, not a new queue. Handlers run at (or after) the due time, or
 * a little before it when the scheduler queues ahead: a handler that finds its step not yet due
 * returns {@link NotYet} and is called again then.
 */
export interface StepScheduler<S extends string = Step> {
  /** Schedules (idempotently) `step` of `askId` at `atMs`; each step of an ask is its own job. */
  schedule(askId: string, step: S, atMs: number): Promise<void>;
  /**
   * {@link schedule} of each entry, in fewer round trips where the queue can: only steps without a
   * job are added (the reconciler re-schedules every pending ask's steps in case a job was lost).
   */
  scheduleMany(entries: readonly ScheduledStep<S>[]): Promise<void>;
  /** Best-effort removal of a scheduled step; correctness never depends on it. */
  cancel(askId: string, step: S): Promise<void>;
  /**
   * Starts running due steps through their handlers. A step without a handler (a scheduler
   * started for the timeout alone) is dropped like invalid job data; the app passes them all.
   */
  start(handlers: Partial<StepHandlers<S>>): Promise<void>;
  /** Stops the worker and releases connections. */
  close(): Promise<void>;
}
