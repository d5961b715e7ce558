// A bounded memo for Intl objects and per-locale tables: keys may come from people, so it stops growing.

/** Most entries a memo keeps: past it, values are computed again rather than kept. */
const MEMO_MAX = 500;

/** `compute()` for `key`, kept in `cache` while it holds fewer than {@link MEMO_MAX} entries. */
export function memo<V>(cache: Map<string, V>, key: string, compute: () => V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (cache.size < MEMO_MAX) cache.set(key, value);
  return value;
}
