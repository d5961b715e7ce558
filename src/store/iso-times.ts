/**
 * ISO times ↔ epoch ms for the stored record (compact-record.ts), remembered: every write and read
 * of an ask converts the same few times (its creation, its history entries, its deadline) again,
 * and a conversion through `Date` costs more than the rest of the entry's encoding.
 */

/** Entries each cache holds before it starts over (a few times per ask in flight). */
const CACHE_MAX = 4096;

const msByIso = new Map<string, string | number>();
const isoByMs = new Map<number, unknown>();

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, value);
  return value;
}

/** An ISO time as epoch ms when that gives it back exactly (13 digits instead of 24 characters). */
export function toMs(iso: string): string | number {
  const known = msByIso.get(iso);
  if (known !== undefined) return known;
  const ms = Date.parse(iso);
  return remember(msByIso, iso, Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso);
}

/** Epoch ms as an ISO time; a number that is no time, as it is (for the schema to reject). */
export function fromMs(ms: number): unknown {
  const known = isoByMs.get(ms);
  if (known !== undefined) return known;
  const date = new Date(ms);
  return remember(isoByMs, ms, Number.isFinite(date.getTime()) ? date.toISOString() : ms);
}

/** `createdAt` + `timeoutSeconds` in epoch ms (NaN when `createdAt` is no time). */
function deadlineMs(createdAt: string, timeoutSeconds: number): number {
  const created = toMs(createdAt);
  return (typeof created === 'number' ? created : Date.parse(createdAt)) + timeoutSeconds * 1000;
}

/** `createdAt` + `timeoutSeconds` as an ISO time, or undefined when either is not one. */
export function deadlineOf(createdAt: unknown, timeoutSeconds: unknown): string | undefined {
  if (typeof createdAt !== 'string' || typeof timeoutSeconds !== 'number') return undefined;
  const at = deadlineMs(createdAt, timeoutSeconds);
  if (!Number.isFinite(at) || Math.abs(at) > 8.64e15) return undefined;
  return fromMs(at) as string;
}

/** Whether `expiresAt` is {@link deadlineOf}(`createdAt`, `timeoutSeconds`), without making that text. */
export function isDeadline(expiresAt: string, createdAt: string, timeoutSeconds: number): boolean {
  const ms = toMs(expiresAt);
  return typeof ms === 'number' && ms === deadlineMs(createdAt, timeoutSeconds);
}
