import { applyRollup, rollupOf } from '../core/insights.js';
import { pendingNowOf, type InsightsSource, type PendingNow } from '../core/insights-report.js';
import type { AskRecord } from '../core/schemas.js';

/** The day counters kept at most (as Redis's keys expire: the oldest days are dropped first). */
const DAYS_KEPT = 100;

/**
 * The insights of the memory store: each day's counters in a Map, raised by {@link settled} in the
 * store's step that ends an ask, by core's {@link applyRollup} (the Redis script's rule); the
 * pending figures from the store's pending index (cursors `<created ms, 15 digits>:<id>`).
 */
export class MemoryInsights implements InsightsSource {
  private readonly byDay = new Map<string, Map<string, number>>();

  constructor(private readonly pendingCursors: () => Iterable<string>) {}

  /** Counts an ask that has just ended. */
  settled(record: AskRecord): void {
    const rollup = rollupOf(record);
    if (!rollup) return;
    let day = this.byDay.get(rollup.day);
    if (!day) {
      day = new Map();
      this.byDay.set(rollup.day, day);
      if (this.byDay.size > DAYS_KEPT) this.byDay.delete([...this.byDay.keys()].sort()[0]!);
    }
    applyRollup(day, rollup);
  }

  async days(days: readonly string[]): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>();
    for (const d of days) {
      const day = this.byDay.get(d);
      if (day) out.set(d, Object.fromEntries(day));
    }
    return out;
  }

  async pending(nowMs: number): Promise<PendingNow> {
    return pendingNowOf(
      [...this.pendingCursors()].map((c) => Number(c.slice(0, c.indexOf(':')))),
      nowMs,
    );
  }
}
