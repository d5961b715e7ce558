import type { TimeoutScheduler } from '../core/ports.js';
import { retryDelayMs } from './backoff.js';

/** Options of {@link MemoryTimeoutScheduler}. */
export interface MemoryTimeoutOptions {
  /** Attempts per timeout when the handler throws (default 5). */
  attempts?: number;
  /** Base of the exponential retry delay in ms (default 1000). */
  retryDelayMs?: number;
  /** Receives handler errors of timeouts that gave up. Default: console.error. */
  onError?: (err: Error) => void;
}

interface Entry {
  timer: NodeJS.Timeout | null;
  attemptsMade: number;
  active: boolean;
}

/**
 * In-process timeouts for the embedded mode (no Redis): one unref'd timer per ask, with the
 * semantics of the BullMQ scheduler — idempotent schedule, retries with exponential backoff,
 * timeouts that came due before `start()` fire when it is called. Nothing survives a restart.
 */
export class MemoryTimeoutScheduler implements TimeoutScheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<void>>();
  private onDue: ((askId: string) => Promise<void>) | null = null;
  private closed = false;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly onError: (err: Error) => void;

  constructor(opts: MemoryTimeoutOptions = {}) {
    this.attempts = opts.attempts ?? 5;
    this.baseDelayMs = opts.retryDelayMs ?? 1000;
    this.onError = opts.onError ?? ((err) => console.error('[askgate] timeout:', err));
  }

  /** Arms a timer; a second call for an ask that is still scheduled or running is a no-op. */
  async schedule(askId: string, dueAtMs: number): Promise<void> {
    if (this.closed) throw new Error('MemoryTimeoutScheduler is closed');
    if (this.entries.has(askId)) return;
    const entry: Entry = { timer: null, attemptsMade: 0, active: false };
    this.entries.set(askId, entry);
    this.arm(askId, entry, dueAtMs - Date.now());
  }

  /** Removes a waiting timeout; like BullMQ, a running one is left to finish (and retry). */
  async cancel(askId: string): Promise<void> {
    const entry = this.entries.get(askId);
    if (!entry || entry.active) return;
    if (entry.timer) clearTimeout(entry.timer);
    this.entries.delete(askId);
  }

  /** Starts firing timeouts, including those that came due before this call. */
  async start(onDue: (askId: string) => Promise<void>): Promise<void> {
    if (this.onDue) throw new Error('MemoryTimeoutScheduler already started');
    if (this.closed) throw new Error('MemoryTimeoutScheduler is closed');
    this.onDue = onDue;
    for (const [askId, entry] of this.entries) {
      if (!entry.timer && !entry.active) this.fire(askId, entry);
    }
  }

  /** Clears every timer and waits for running handlers. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) if (entry.timer) clearTimeout(entry.timer);
    this.entries.clear();
    await Promise.all(this.inFlight);
  }

  private arm(askId: string, entry: Entry, delayMs: number): void {
    entry.timer = setTimeout(() => {
      entry.timer = null;
      this.fire(askId, entry);
    }, Math.max(0, delayMs));
    entry.timer.unref();
  }

  private fire(askId: string, entry: Entry): void {
    // Not started yet: the entry stays without a timer and start() fires it.
    if (this.closed || !this.onDue || this.entries.get(askId) !== entry) return;
    entry.active = true;
    const run = this.runOnce(askId, entry, this.onDue).finally(() => this.inFlight.delete(run));
    this.inFlight.add(run);
  }

  private async runOnce(askId: string, entry: Entry, onDue: (askId: string) => Promise<void>): Promise<void> {
    try {
      await onDue(askId);
      if (this.entries.get(askId) === entry) this.entries.delete(askId);
    } catch (err) {
      entry.active = false;
      entry.attemptsMade += 1;
      if (this.closed || this.entries.get(askId) !== entry) return;
      if (entry.attemptsMade >= this.attempts) {
        this.entries.delete(askId);
        this.onError(new Error(`timeout of ${askId} gave up after ${entry.attemptsMade} attempts: ${String(err)}`));
        return;
      }
      this.arm(askId, entry, retryDelayMs(entry.attemptsMade, undefined, { baseDelayMs: this.baseDelayMs, maxDelayMs: 60_000 }));
    }
  }
}
