import type { ResultBus } from '../core/ports.js';

/** One long poll: `woken` resolves on the ask's announcement, after its time, on abort or on shutdown. */
export interface LongPoll {
  woken: Promise<void>;
  /** Unsubscribes and clears the timer; call once the poll is over. */
  close(): void;
}

/** The long polls (`?wait`) of one process, so a shutdown can end them all at once. */
export class LongPolls {
  /** Wakes of the polls in flight; null once stopped. */
  private wakes: Set<() => void> | null = new Set();

  constructor(private readonly bus: ResultBus) {}

  /** Subscribes a poll on `askId` for at most `waitMs`; null when there is nothing to wait for (no time, or stopping). */
  open(askId: string, waitMs: number, signal?: AbortSignal): LongPoll | null {
    const wakes = this.wakes;
    if (waitMs <= 0 || !wakes) return null;
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = this.bus.subscribe(askId, () => wake());
    const timer = setTimeout(() => wake(), waitMs);
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort);
    wakes.add(onAbort);
    return {
      woken,
      close: () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        wakes.delete(onAbort);
      },
    };
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
