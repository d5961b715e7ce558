import type { Step } from '../core/effects.js';
import type { Clock, Logger, ScheduledStep, StepHandler, StepHandlers, StepScheduler } from '../core/ports.js';
import { retryDelayMs } from './backoff.js';
import { MAX_TIMER_MS, stepJobId } from './jobs.js';
import { systemClock } from '../system-clock.js';

/** Options of {@link MemoryStepScheduler}. */
export interface MemoryStepOptions {
  /** Attempts per step when the handler throws (default 5). */
  attempts?: number;
  /** Base of the exponential retry delay in ms (default 1000). */
  retryDelayMs?: number;
  /** The clock due times are read against (default: the system clock). */
  clock?: Clock;
  /** Receives handler errors of steps that gave up (as `{ err }`). */
  logger: Logger;
}

interface Entry<S extends string> {
  askId: string;
  step: S;
  timer: NodeJS.Timeout | null;
  attemptsMade: number;
  active: boolean;
  /** Cancelled while it ran: should it come early, it is not armed again. */
  cancelled?: boolean;
}

/**
 * In-process steps for the embedded mode (no Redis): one unref'd timer per step of an ask, with
 * the semantics of the BullMQ scheduler — idempotent schedule, retries with exponential backoff,
 * steps that came due before `start()` fire when it is called. Nothing survives a restart.
 */
export class MemoryStepScheduler<S extends string = Step> implements StepScheduler<S> {
  /** Keyed by job id (`<step>-<askId>`), as in BullMQ. */
  private readonly entries = new Map<string, Entry<S>>();
  private readonly inFlight = new Set<Promise<void>>();
  private handlers: Partial<StepHandlers<S>> | null = null;
  private closed = false;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly logger: Logger;
  private readonly clock: Clock;

  constructor(opts: MemoryStepOptions) {
    this.attempts = opts.attempts ?? 5;
    this.baseDelayMs = opts.retryDelayMs ?? 1000;
    this.logger = opts.logger;
    this.clock = opts.clock ?? systemClock;
  }

  /** Arms a timer; a second call for a step that is still scheduled or running is a no-op. */
  async schedule(askId: string, step: S, atMs: number): Promise<void> {
    if (this.closed) throw new Error('MemoryStepScheduler is closed');
    const id = stepJobId(step, askId);
    if (this.entries.has(id)) return;
    const entry: Entry<S> = { askId, step, timer: null, attemptsMade: 0, active: false };
    this.entries.set(id, entry);
    this.arm(id, entry, atMs - this.clock.now());
  }

  async scheduleMany(entries: readonly ScheduledStep<S>[]): Promise<void> {
    for (const e of entries) await this.schedule(e.askId, e.step, e.at);
  }

  /**
   * Removes a waiting step; like BullMQ, a running one is left to finish (and retry on a failure),
   * but is not armed again should it come early.
   */
  async cancel(askId: string, step: S): Promise<void> {
    const id = stepJobId(step, askId);
    const entry = this.entries.get(id);
    if (!entry) return;
    if (entry.active) return void (entry.cancelled = true);
    if (entry.timer) clearTimeout(entry.timer);
    this.entries.delete(id);
  }

  /** Starts firing steps, including those that came due before this call. */
  async start(handlers: Partial<StepHandlers<S>>): Promise<void> {
    if (this.handlers) throw new Error('MemoryStepScheduler already started');
    if (this.closed) throw new Error('MemoryStepScheduler is closed');
    this.handlers = handlers;
    for (const [id, entry] of this.entries) {
      if (!entry.timer && !entry.active) this.fire(id, entry);
    }
  }

  /** Clears every timer and waits for running handlers. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) if (entry.timer) clearTimeout(entry.timer);
    this.entries.clear();
    await Promise.all(this.inFlight);
  }

  private arm(id: string, entry: Entry<S>, delayMs: number): void {
    // Beyond one timer's reach: a hop, then armed again for what is left.
    const hop = delayMs > MAX_TIMER_MS;
    entry.timer = setTimeout(
      () => {
        entry.timer = null;
        if (hop) this.arm(id, entry, delayMs - MAX_TIMER_MS);
        else this.fire(id, entry);
      },
      Math.max(0, Math.min(MAX_TIMER_MS, delayMs)),
    );
    entry.timer.unref();
  }

  private fire(id: string, entry: Entry<S>): void {
    // Not started yet: the entry stays without a timer and start() fires it.
    if (this.closed || !this.handlers || this.entries.get(id) !== entry) return;
    // `entry.step` is typed: it came from schedule(), never from stored data.
    const handler = this.handlers[entry.step];
    if (!handler) {
      this.entries.delete(id);
      this.logger.error({ askId: entry.askId, step: entry.step }, `no handler for ${entry.step}: dropped`);
      return;
    }
    entry.active = true;
    const run = this.runOnce(id, entry, handler).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }

  private async runOnce(id: string, entry: Entry<S>, handler: StepHandler): Promise<void> {
    try {
      const notYet = await handler(entry.askId);
      if (notYet && !entry.cancelled && !this.closed && this.entries.get(id) === entry) {
        // Came early (a clock step): wait for its time again.
        entry.active = false;
        this.arm(id, entry, notYet.notBefore - this.clock.now());
        return;
      }
      if (this.entries.get(id) === entry) this.entries.delete(id);
    } catch (err) {
      entry.active = false;
      entry.attemptsMade += 1;
      if (this.closed || this.entries.get(id) !== entry) return;
      if (entry.attemptsMade >= this.attempts) {
        this.entries.delete(id);
        const error = err instanceof Error ? err : new Error(String(err));
        this.logger.error(
          { askId: entry.askId, step: entry.step, attempts: entry.attemptsMade, err: error },
          `${entry.step} gave up`,
        );
        return;
      }
      this.arm(
        id,
        entry,
        retryDelayMs(entry.attemptsMade, undefined, { baseDelayMs: this.baseDelayMs, maxDelayMs: 60_000 }),
      );
    }
  }
}
