/**
 * A map that keeps at most `max` entries: setting an entry makes it the newest, and past the bound
 * the oldest one is forgotten (a least-recently-set cache).
 *
 * The oldest entry is found with one Map iterator kept from eviction to eviction. A fresh
 * `keys().next()` each time walks every deleted slot at the front of V8's table until the table is
 * compacted, which made each eviction cost O(max): ~14 µs at 10,000 entries, the largest share of
 * a reconciler pass over 100,000 asks. A kept iterator passes each deleted slot once, and by the
 * iteration order of Maps it still meets the oldest live entry first (entries set again move to the
 * end, where it has not been yet).
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  private oldest: Iterator<K> = this.entries.keys();

  constructor(readonly max: number) {}

  /** The value set for `key`, or undefined. */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Whether `key` has a value. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` to `value` as the newest entry, forgetting the oldest past the bound. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) this.forgetOldest();
  }

  /** Forgets `key`; true when it had a value. */
  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size;
  }

  private forgetOldest(): void {
    let next = this.oldest.next();
    // An iterator that once reached the end stays there; only a map emptied in between gets here.
    if (next.done) {
      this.oldest = this.entries.keys();
      next = this.oldest.next();
    }
    if (!next.done) this.entries.delete(next.value);
  }
}
