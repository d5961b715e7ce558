import type { Logger, SweepEntry } from '../core/ports.js';

/**
 * askgate's tuning: a tick lists up to 1,000 due asks and sweeps them 100 at a time, two chunks in
 * flight, so a backlog (a restart with many asks due) drains in a few round trips per chunk.
 */
export const RECONCILER_TUNING = { batch: 1000, chunk: 100, concurrency: 2 } as const;

/** Options of {@link Reconciler}. */
export interface ReconcilerOptions {
  /** Pause between the end of one tick and the start of the next, in ms. */
  intervalMs: number;
  /** Most ids swept per tick. */
  batch: number;
  /** Asks due for a sweep at `nowMs` (with the sweep time they were listed at), at most `limit`. */
  due: (nowMs: number, limit: number) => Promise<SweepEntry[]>;
  /** Resolves or re-drives one ask (must be idempotent: ticks on several replicas may overlap). */
  sweep: (entry: SweepEntry) => Promise<void>;
  /**
   * Sweeps a chunk of asks in few round trips, returning per ask what stopped it or null (the same
   * rules as `sweep`). When given, a tick runs chunks of {@link ReconcilerOptions.chunk} through it.
   */
  sweepMany?: (entries: readonly SweepEntry[]) => Promise<unknown[]>;
  /** Asks per `sweepMany` call (default 200). */
  chunk?: number;
  /** Current time in epoch ms. */
  now: () => number;
  /** Receives errors of `due` and of single sweeps (as `{ err }`, at warn: the next tick retries). */
  logger: Logger;
  /** Sweeps (or `sweepMany` chunks) run in parallel within a tick (default 10). */
  concurrency?: number;
}

/**
 * Periodically sweeps asks the store reports as due (past deadline + grace, undelivered, ...),
 * so a lost or stalled BullMQ job still resolves. Ticks never overlap within one process; one
 * failing id does not stop the others.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** The last tick listed a full batch: more may be due, so the next tick runs at once. */
  private backlog = false;
  private tail: Promise<unknown> = Promise.resolve();
  constructor(private readonly opts: ReconcilerOptions) {}

  /** Starts the loop; the first tick runs right away (catching up after a restart). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm(0);
  }

  /** Stops the loop and waits for the tick in flight, if any. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.tail.catch(() => undefined);
  }

  /** Runs one tick (after any tick in flight); resolves with the number of ids swept. */
  runOnce(): Promise<number> {
    const tick = this.tail.catch(() => undefined).then(() => this.tick());
    this.tail = tick;
    return tick;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce()
        .catch((err: unknown) => this.failed(err))
        .finally(() => {
          // A backlog (a restart with many asks due, a burst of creations) drains at sweep speed,
          // not one batch per interval.
          if (this.running) this.arm(this.backlog ? 0 : this.opts.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<number> {
    let entries: SweepEntry[];
    this.backlog = false;
    try {
      entries = await this.opts.due(this.opts.now(), this.opts.batch);
    } catch (err) {
      this.failed(err);
      return 0;
    }
    const full = entries.length >= this.opts.batch;
    const queue = [...new Map(entries.map((e) => [e.askId, e])).values()];
    const total = queue.length;
    const lanes = Math.min(this.opts.concurrency ?? 10, queue.length);
    let failures = 0;
    const fail = (err: unknown, askId: string) => {
      failures++;
      this.failed(err, askId);
    };
    const { sweepMany } = this.opts;
    const chunk = this.opts.chunk ?? 200;
    const lane = async (): Promise<void> => {
      if (sweepMany) {
        for (let part = queue.splice(0, chunk); part.length > 0; part = queue.splice(0, chunk)) {
          const stopped = await sweepMany(part).catch((err: unknown) => part.map(() => err));
          part.forEach((entry, i) => stopped[i] != null && fail(stopped[i], entry.askId));
        }
        return;
      }
      for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
        await this.opts.sweep(entry).catch((err: unknown) => fail(err, entry.askId));
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    // A tick with failures waits the interval: a store that fails every sweep is not hammered.
    this.backlog = full && failures === 0;
    return total;
  }

  private failed(err: unknown, askId?: string): void {
    this.opts.logger.warn(
      { ...(askId && { askId }), err: err instanceof Error ? err : new Error(String(err)) },
      'reconciler tick failed',
    );
  }
}
