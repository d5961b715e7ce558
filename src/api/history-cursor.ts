import { canonicalJson } from '../core/canonical-json.js';
import type { HistoryEntry } from '../core/schemas.js';

/** Each entry's canonical JSON, made once: every stream of an ask compares the same entry objects. */
const canonical = new WeakMap<HistoryEntry, string>();

/** {@link canonicalJson} of `entry`, kept for the entry object (entries are never changed in place). */
function canonicalOf(entry: HistoryEntry): string {
  let json = canonical.get(entry);
  if (json === undefined) canonical.set(entry, (json = canonicalJson(entry)));
  return json;
}

/**
 * Where an event stream is in one ask's history. Ids are positions in the stored history; the
 * history is capped (first entry kept, oldest after it dropped), so after a trim the cursor finds
 * the last entry it sent by content instead of by position.
 *
 * Content is compared with keys in a fixed order: the same entry comes with its keys in another
 * order from a record this process built (`at` added last) than from one read back from Redis,
 * and comparing the plain JSON took a re-read for a trim and sent entries again.
 */
export class HistoryCursor {
  private last: string | null = null;
  constructor(private next: number) {}

  /** The entries of `history` not sent yet, with their positions; marks them sent. */
  fresh(history: readonly HistoryEntry[]): { entry: HistoryEntry; index: number }[] {
    let start = Math.min(this.next, history.length);
    if (this.last !== null && (start === 0 || canonicalOf(history[start - 1]!) !== this.last)) {
      const found = history.map(canonicalOf).lastIndexOf(this.last);
      start = found >= 0 ? found + 1 : Math.min(1, history.length);
    }
    const out = history.slice(start).map((entry, i) => ({ entry, index: start + i }));
    this.next = history.length;
    this.last = history.length > 0 ? canonicalOf(history[history.length - 1]!) : null;
    return out;
  }
}
