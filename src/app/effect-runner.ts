import type { Effect, Step } from '../core/effects.js';
import type { AskIndexes, Clock, Logger, Metrics, Outbox, StepScheduler } from '../core/ports.js';

/** What the effect runner talks to. */
export interface EffectRunnerDeps {
  indexes: Pick<AskIndexes, 'markForSweep' | 'rescheduleSweep' | 'unmarkSweep' | 'removeFromConversation'>;
  outbox: Pick<Outbox, 'enqueue'>;
  /** Every step (the timeout today) as a delayed job of one queue. */
  steps: Pick<StepScheduler, 'schedule' | 'cancel'>;
  metrics: Metrics;
  logger: Pick<Logger, 'warn'>;
  clock: Clock;
}

/** Runs an overdue step of an ask now (the reconciler found its job lost). */
export type DueStep = (askId: string, step: Step) => Promise<void>;

/**
 * Interprets the effects the pure core computes, through the ports. `publish` is never run here:
 * the store does it inside the commit that carries it.
 */
export class EffectRunner {
  constructor(private readonly deps: EffectRunnerDeps) {}

  /**
   * Runs effects in order, consecutive jobs in parallel, and throws on the first failure (creation,
   * the write-ahead mark, the reconciler). `seenAt` is the sweep time the reconciler listed the ask at.
   */
  async strict(askId: string, effects: readonly Effect[], due?: DueStep, seenAt?: number): Promise<void> {
    for (let i = 0; i < effects.length;) {
      const effect = effects[i]!;
      if (effect.type === 'enqueue') {
        const batch: Promise<unknown>[] = [];
        for (; i < effects.length && effects[i]!.type === 'enqueue'; i++) batch.push(this.one(askId, effects[i]!));
        await Promise.all(batch);
        continue;
      }
      i++;
      if (effect.type === 'due') await due?.(askId, effect.step);
      else await this.one(askId, effect, seenAt);
    }
  }

  /**
   * Runs post-commit effects: the unmark first, the rest together. Failures are logged and make
   * the ask due for the reconciler now, which repeats what is missing.
   */
  async settle(askId: string, effects: readonly Effect[]): Promise<void> {
    const unsweep = effects.find((e) => e.type === 'unsweep');
    if (unsweep) await this.one(askId, unsweep).catch(() => undefined);
    const work = effects.filter((e) => e.type !== 'unsweep').map((e) => this.one(askId, e));
    const results = await Promise.allSettled(work);
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
      case 'enqueue':
        return outbox.enqueue(
          effect.job.kind === 'remind'
            ? { kind: 'remind', askId, index: effect.job.index, n: effect.job.n }
            : { kind: effect.job.kind, askId, index: effect.job.index },
        );
      case 'leave':
        return indexes.removeFromConversation(effect.conversation, askId);
      case 'sweepAt':
        return indexes.markForSweep(askId, effect.at);
      case 'resweep':
        return indexes.rescheduleSweep(askId, effect.at, seenAt);
      case 'unsweep':
        return indexes.unmarkSweep(askId);
      case 'metric': {
        const m = effect.metric;
        if (m.name === 'ask_created') metrics.askCreated(m.channel);
        else metrics.askResolved(m.status, m.reason, m.secondsOpen);
      }
    }
  }
}
