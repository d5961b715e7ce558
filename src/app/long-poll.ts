import { isTerminal } from '../core/lifecycle.js';
import type { ResultBus } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';

/**
 * One long poll: `woken` resolves on the ask's announcement, when this process ended the ask, after
 * its time, on abort or on shutdown; with the record only when a resync read it (otherwise the
 * store's kept copy has it when this process ended the ask: app/kept-copy.ts).
 */
export interface LongPoll {
  woken: Promise<AskRecord | undefined>;
  /** Unsubscribes and clears the timer; call once the poll is over. */
  close(): void;
}

/** Asks re-read per store call after a resync (many agents may wait on one process). */
const RECHECK_BATCH = 500;

/** The long polls (`?wait`) of one process, so a shutdown can end them all at once. */
export class LongPolls {
  /** Wakes of the polls in flight; null once stopped. */
  private wakes: Set<() => void> | null = new Set();
  /** The polls of this process by ask id, woken when this process ends the ask (or a resync finds it ended). */
  private readonly local = new Map<string, Set<(record?: AskRecord) => void>>();

  /**
   * `read` re-reads asks when the bus may have missed announcements (its subscription came back
   * after a reconnect): the polls of an ask that ended meanwhile wake with it, instead of at the
   * end of their wait.
   */
  constructor(
    private readonly bus: ResultBus,
    read?: (askIds: readonly string[]) => Promise<(AskRecord | null)[]>,
  ) {
    if (read) bus.onResync(() => void this.recheck(read));
  }

  /** Subscribes a poll on `askId` for at most `waitMs`; null when there is nothing to wait for (no time, or stopping). */
  open(askId: string, waitMs: number, signal?: AbortSignal): LongPoll | null {
    const wakes = this.wakes;
    if (waitMs <= 0 || !wakes) return null;
    let wake: (record?: AskRecord) => void = () => {};
    const woken = new Promise<AskRecord | undefined>((resolve) => (wake = resolve));
    // The announcement often arrives just before the reply of this process's own commit that
    // made it: one turn of the event loop lets that commit land first.
    const unsubscribe = this.bus.subscribe(askId, () => setImmediate(() => wake()));
    const timer = setTimeout(() => wake(), waitMs);
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort);
    wakes.add(onAbort);
    const here = this.local.get(askId) ?? new Set();
    this.local.set(askId, here);
    here.add(wake);
    return {
      woken,
      close: () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        wakes.delete(onAbort);
        here.delete(wake);
        if (here.size === 0 && this.local.get(askId) === here) this.local.delete(askId);
      },
    };
  }

  /**
   * This process committed the end of ask `askId`: its polls here wake now, before the announcement
   * (and without it, should the bus be down); the store keeps the record the commit wrote.
   */
  ended(askId: string): void {
    this.wake(askId);
  }

  /** Wakes the polls of `askId` here, with `record` when one was read. */
  private wake(askId: string, record?: AskRecord): void {
    for (const wake of this.local.get(askId) ?? []) wake(record);
  }

  /**
   * Re-reads every ask polled here, {@link RECHECK_BATCH} at a time; the polls of those that ended
   * wake with the record. A batch that cannot be read leaves its polls waiting, as before.
   */
  private async recheck(read: (askIds: readonly string[]) => Promise<(AskRecord | null)[]>): Promise<void> {
    const ids = [...this.local.keys()];
    for (let i = 0; i < ids.length; i += RECHECK_BATCH) {
      const records = await read(ids.slice(i, i + RECHECK_BATCH)).catch(() => []);
      for (const record of records) if (record && isTerminal(record)) this.wake(record.id, record);
    }
  }

  /** Wakes every poll now and refuses new ones (the process is shutting down). */
  stop(): void {
    const wakes = this.wakes;
    this.wakes = null;
    for (const wake of wakes ?? []) wake();
  }

  /** True once {@link stop} was called. */
  get stopped(): boolean {
    return this.wakes === null;
  }
}
