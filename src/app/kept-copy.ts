import type { AskRecord } from '../core/schemas.js';

/**
 * The one rule for a kept copy of a record (`store.peek`, or the record a caller just read or
 * wrote): it may let the work go on, since the commit's compare-and-set rejects a stale one, but
 * it never turns the work away: a verdict on it that does not go on is made again on a fresh read
 * (the record may have moved on, or be gone). `judge` has no effects: it may run twice. Without a
 * kept copy it runs once, on the read.
 */
export async function keptOrFresh<V>(
  kept: AskRecord | null | undefined,
  read: () => Promise<AskRecord | null>,
  judge: (record: AskRecord | null) => V,
  goesOn: (verdict: V) => boolean,
): Promise<V> {
  if (kept) {
    const verdict = judge(kept);
    if (goesOn(verdict)) return verdict;
  }
  return judge(await read());
}
