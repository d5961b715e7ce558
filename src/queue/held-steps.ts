import type { Clock, Logger, NotYet, StepHandler } from '../core/ports.js';
import { MAX_TIMER_MS, stepJobId } from './jobs.js';

/** What {@link HeldSteps} needs: the handlers, the clock, and the step's job to drop once it ran. */
export interface HeldStepsDeps<S extends string> {
  handler(step: S): StepHandler | undefined;
  /** Removes the step's job (left in the queue as the step's backstop); best effort. */
  dropJob(askId: string, step: S): Promise<void>;
  clock: Clock;
  logger: Logger;
}

/**
 * Steps whose job came early (the queue fires jobs a little ahead of their time), each held by a
 * timer until its time, then run outside the worker so a held step takes no worker slot. The
 * step's job stays in the queue as its backstop, delayed a little past the step's time: once the
 * held step ran, its job is dropped; should the step fail, or the process die, the job runs it.
 * Keyed by job id: holding a step again replaces its timer.
 */
export class HeldSteps<S extends string> {
  private readonly held = new Map<string, NodeJS.Timeout>();
  /** Held steps whose handler runs now. */
  private readonly runs = new Set<Promise<void>>();
  /** Per held step running now (by job id): whether its job was dropped meanwhile (its ask ended). */
  private readonly running = new Map<string, { jobDropped: boolean }>();
  private closing = false;

  constructor(private readonly deps: HeldStepsDeps<S>) {}

  /**
   * Holds `step` of `askId` until `notYet.notBefore`, then runs its handler with `notYet.seen`
   * (again held if it is still early).
   */
  hold(askId: string, step: S, notYet: NotYet): void {
    if (this.closing) return;
    const key = stepJobId(step, askId);
    this.drop(key);
    this.arm(key, askId, step, notYet);
  }

  /**
   * Sets the step's timer. A timer may fire before the clock says its time came (Node's timers
   * count on the loop's monotonic ms, not the wall clock: up to a millisecond early, and more with
   * an injected or slewed clock): then it is armed again for what is left, and the handler is
   * never called before `notBefore`.
   */
  private arm(key: string, askId: string, step: S, notYet: NotYet): void {
    const timer = setTimeout(
      () => {
        if (this.held.get(key) !== timer) return;
        if (this.deps.clock.now() < notYet.notBefore) return this.arm(key, askId, step, notYet);
        this.held.delete(key);
        const run = this.run(askId, step, notYet).finally(() => this.runs.delete(run));
        this.runs.add(run);
      },
      // At most one timer's reach: a step further away is armed again when it fires early.
      Math.max(0, Math.min(MAX_TIMER_MS, notYet.notBefore - this.deps.clock.now())),
    );
    timer.unref();
    this.held.set(key, timer);
  }

  /**
   * Forgets a held step (its ask ended); its job is the caller's, also when the step is running now
   * (a timeout's own commit cancels it): the run then leaves the job alone.
   */
  drop(jobId: string): void {
    clearTimeout(this.held.get(jobId));
    this.held.delete(jobId);
    const running = this.running.get(jobId);
    if (running) running.jobDropped = true;
  }

  /** On close: held steps are left to their jobs; those running now are waited for unless `force`. */
  async release(force: boolean): Promise<void> {
    this.closing = true;
    for (const timer of this.held.values()) clearTimeout(timer);
    this.held.clear();
    if (!force) await Promise.all(this.runs);
  }

  /** A held step's turn; should its handler fail, its job runs it again (the queue's retries). */
  private async run(askId: string, step: S, held: NotYet): Promise<void> {
    const handler = this.deps.handler(step);
    if (!handler) return;
    const key = stepJobId(step, askId);
    const state = { jobDropped: false };
    this.running.set(key, state);
    try {
      const notYet = await handler(askId, held.seen);
      // Dropped while it ran (its ask ended): not held again.
      if (notYet) return state.jobDropped ? undefined : this.hold(askId, step, notYet);
    } catch (err) {
      this.deps.logger.warn({ askId, err: String(err) }, `${step} failed; its job will run it again`);
      return;
    } finally {
      this.running.delete(key);
    }
    if (!state.jobDropped) await this.deps.dropJob(askId, step).catch(() => undefined);
  }
}
