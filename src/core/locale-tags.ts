// Locale tags and time zones checked with Intl: no catalogue needed, so the request schema (and the SDK) load no words.

/** The canonical form of a BCP 47 tag (`pt-br` -> `pt-BR`), or null when it is not one. */
export function canonicalLocale(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/** Most entries each memo keeps: past it, answers are computed again rather than kept (keys may be untrusted). */
const MEMO_MAX = 1000;

/** `compute()` for `key`, kept in `cache` while it holds fewer than 1000 entries (the locale lookups' memo). */
export function memo<V>(cache: Map<string, V>, key: string, compute: () => V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (cache.size < MEMO_MAX) cache.set(key, value);
  return value;
}

const zones = new Map<string, boolean>();

/** True for an IANA time zone name `Intl.DateTimeFormat` knows (`UTC`, `America/Sao_Paulo`). */
export function isTimeZone(name: string): boolean {
  return memo(zones, name, () => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: name });
      return true;
    } catch {
      return false;
    }
  });
}
