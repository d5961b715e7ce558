import type { Effect, Step } from '../core/effects.js';
import type { AskIndexes, Clock, Logger, Metrics, Outbox, OutboxJob, StepScheduler } from '../core/ports.js';

/** What the effect runner talks to. */
export interface EffectRunnerDeps {
  indexes: Pick<
    AskIndexes,
    'markForSweep' | 'rescheduleSweep' | 'rescheduleSweeps' | 'unmarkSweep' | 'removeFromConversation'
  >;
  outbox: Pick<Outbox, 'enqueue'>;
  /** Every step (the timeout today) as a delayed job of one queue. */
  steps: Pick<StepScheduler, 'schedule' | 'scheduleMany' | 'cancel'>;
  metrics: Metrics;
  logger: Pick<Logger, 'warn'>;
  clock: Clock;
}

/** Effects that only queue work (a job, a step): independent of each other, so run together. */
const queued = (effect: Effect): boolean => effect.type === 'enqueue' || effect.type === 'schedule';

/** One ask's part of a batch: its effects and the sweep time the reconciler listed it at. */
export interface BatchItem {
  askId: string;
  effects: readonly Effect[];
  seenAt?: number;
}

/** Effects a batch runs for all its asks in one call each: the step schedules, then the resweeps. */
const batched = (effect: Effect): boolean => effect.type === 'schedule' || effect.type === 'resweep';

/** Runs an overdue step of an ask now (the reconciler found its job lost). */
export type DueStep = (askId: string, step: Step) => Promise<void>;

/**
 * Interprets the effects the pure core computes, through the ports. `publish` is never run here:
 * the store does it inside the commit that carries it.
 */
export class EffectRunner {
  constructor(private readonly deps: EffectRunnerDeps) {}

  /**
   * Runs effects in order, consecutive jobs and schedules in parallel, and throws on the first failure (creation,
   * the write-ahead mark, the reconciler). `seenAt` is the sweep time the reconciler listed the ask at.
   */
  async strict(askId: string, effects: readonly Effect[], due?: DueStep, seenAt?: number): Promise<void> {
    for (let i = 0; i < effects.length;) {
      const effect = effects[i]!;
      if (queued(effect)) {
        const batch: Promise<unknown>[] = [];
        for (; i < effects.length && queued(effects[i]!); i++) batch.push(this.one(askId, effects[i]!, seenAt));
        await Promise.all(batch);
        continue;
      }
      i++;
      if (effect.type === 'due') await due?.(askId, effect.step);
      else await this.one(askId, effect, seenAt);
    }
  }

  /**
   * {@link strict} for many asks (the reconciler's batch) in few round trips: each ask's effects but
   * its step schedules and resweep run first, in order (the asks in parallel); then the schedules of
   * the asks that got that far, in one call; then their resweeps, in one call. `workFor` lists the
   * schedules and the resweep last, so each ask sees the order {@link strict} would run. Returns,
   * per ask, what stopped it (it stays due and the next pass repeats it), or null.
   */
  async strictMany(items: readonly BatchItem[], due?: DueStep): Promise<unknown[]> {
    const stopped: unknown[] = items.map(() => null);
    await Promise.all(
      items.map(async (item, i) => {
        const first = item.effects.filter((e) => !batched(e));
        if (first.length > 0) await this.strict(item.askId, first, due, item.seenAt).catch((err) => (stopped[i] = err));
      }),
    );
    const schedules = this.reachedBy(items, stopped, 'schedule');
    const steps = schedules.flatMap((i) =>
      items[i]!.effects.flatMap((e) =>
        e.type === 'schedule' ? [{ askId: items[i]!.askId, step: e.step, at: e.at }] : [],
      ),
    );
    if (steps.length > 0)
      await this.deps.steps.scheduleMany(steps).catch((err: unknown) => schedules.forEach((i) => (stopped[i] = err)));
    const resweeps = this.reachedBy(items, stopped, 'resweep');
    const moves = resweeps.flatMap((i) => {
      const { askId, effects, seenAt } = items[i]!;
      return effects.flatMap((e) =>
        e.type === 'resweep' ? [{ askId, at: e.at, ...(seenAt !== undefined && { seenAt }) }] : [],
      );
    });
    if (moves.length > 0)
      await this.deps.indexes
        .rescheduleSweeps(moves)
        .catch((err: unknown) => resweeps.forEach((i) => (stopped[i] = err)));
    return stopped;
  }

  /** The indexes of the items not stopped yet that have an effect of `type`. */
  private reachedBy(items: readonly BatchItem[], stopped: readonly unknown[], type: Effect['type']): number[] {
    return items.flatMap((item, i) => (stopped[i] === null && item.effects.some((e) => e.type === type) ? [i] : []));
  }

  /**
   * Runs the write-ahead effects `ahead` (a sweep mark), then `write` (the create or commit they
   * guard), which a failed mark stops. Used where the store cannot make the mark inside the write
   * (Redis Cluster); an ordered store makes it there (`foldAlong` in core/work.ts), and `ahead` is empty.
   */
  async ahead<T>(askId: string, ahead: readonly Effect[], write: () => Promise<T>): Promise<T> {
    await this.strict(askId, ahead);
    return write();
  }

  /**
   * Runs post-commit effects together, the unmark sent first. Failures are logged and make the
   * ask due for the reconciler now, which repeats what is missing (after the unmark finished, so
   * it cannot erase that mark).
   */
  async settle(askId: string, effects: readonly Effect[]): Promise<void> {
    const unsweep = effects.find((e) => e.type === 'unsweep');
    const unmarked = unsweep ? this.one(askId, unsweep).catch(() => undefined) : undefined;
    const work = effects.filter((e) => e.type !== 'unsweep').map((e) => this.one(askId, e));
    const results = await Promise.allSettled(work);
    await unmarked;
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const r of failed)
      this.deps.logger.warn({ askId, err: String(r.reason) }, 'effect failed; the reconciler will retry');
    // Due now, whatever a reconciler pass that read the ask earlier decides (best effort: the
    // write-ahead mark made before the commit covers a crash).
    if (failed.length > 0) await this.deps.indexes.markForSweep(askId, this.deps.clock.now()).catch(() => undefined);
  }

  private async one(askId: string, effect: Effect, seenAt?: number): Promise<unknown> {
    const { indexes, outbox, steps, metrics } = this.deps;
    switch (effect.type) {
      case 'publish':
      case 'due':
        return;
      case 'schedule':
        return steps.schedule(askId, effect.step, effect.at);
      case 'unschedule':
        return steps.cancel(askId, effect.step);
      case 'reschedule':
        await steps.cancel(askId, effect.step);
        return steps.schedule(askId, effect.step, effect.at);
      case 'enqueue': {
        const job: OutboxJob =
          effect.job.kind === 'remind'
            ? { kind: 'remind', askId, index: effect.job.index, n: effect.job.n }
            : { kind: effect.job.kind, askId, index: effect.job.index };
        return outbox.enqueue(job);
      }
      case 'leave':
        return indexes.removeFromConversation(effect.conversation, askId);
      case 'sweepAt':
        return indexes.markForSweep(askId, effect.at);
      case 'resweep':
        return indexes.rescheduleSweep(askId, effect.at, seenAt);
      case 'sweepLater':
        return indexes.rescheduleSweep(askId, effect.at, effect.from);
      case 'unsweep':
        return indexes.unmarkSweep(askId);
      case 'metric': {
        const m = effect.metric;
        if (m.name === 'ask_created') metrics.askCreated(m.channel);
        else if (m.name === 'guard_blocked') metrics.guardBlocked();
        else if (m.name === 'ask_delivered') metrics.askDelivered?.(m.channel, m.kind, m.seconds);
        else metrics.askResolved(m.status, m.reason, m.secondsOpen, m.labels);
      }
    }
  }
}
