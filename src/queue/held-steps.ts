import type { Clock, Logger, StepHandler } from '../core/ports.js';
import { stepJobId } from './jobs.js';

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
  private closing = false;

  constructor(private readonly deps: HeldStepsDeps<S>) {}

  /** Holds `step` of `askId` until `at`, then runs its handler (again held if it is still early). */
  hold(askId: string, step: S, at: number): void {
    if (this.closing) return;
    const key = stepJobId(step, askId);
    this.drop(key);
    const timer = setTimeout(
      () => {
        if (this.held.get(key) !== timer) return;
        this.held.delete(key);
        const run = this.run(askId, step).finally(() => this.runs.delete(run));
        this.runs.add(run);
      },
      Math.max(0, at - this.deps.clock.now()),
    );
    timer.unref();
    this.held.set(key, timer);
  }

  /** Forgets a held step (its ask ended); its job is the caller's. */
  drop(jobId: string): void {
    clearTimeout(this.held.get(jobId));
    this.held.delete(jobId);
  }

  /** On close: held steps are left to their jobs; those running now are waited for unless `force`. */
  async release(force: boolean): Promise<void> {
    this.closing = true;
    for (const timer of this.held.values()) clearTimeout(timer);
    this.held.clear();
    if (!force) await Promise.all(this.runs);
  }

  /** A held step's turn; should its handler fail, its job runs it again (the queue's retries). */
  private async run(askId: string, step: S): Promise<void> {
    const handler = this.deps.handler(step);
    if (!handler) return;
    try {
      const notYet = await handler(askId);
      if (notYet) return this.hold(askId, step, notYet.notBefore);
    } catch (err) {
      this.deps.logger.warn({ askId, err: String(err) }, `${step} failed; its job will run it again`);
      return;
    }
    await this.deps.dropJob(askId, step).catch(() => undefined);
  }
}
