import type { Redis, Cluster } from 'ioredis';
import type { PendingPage } from '../core/ports.js';
import { DELAY_BUCKETS } from '../core/insights.js';
import type { InsightsSource, PendingNow } from '../core/insights-report.js';
import type { StoreKeys } from './keys.js';
import type { AskRecord } from '../core/schemas.js';
import { askCursor, cursorAskId } from '../core/ask-listing.js';
import { rollupArgs, type AlongOp } from './along-ops.js';
import { ROLLUP, runScript } from './scripts.js';

/**
 * An index entry whose ask is not found is dropped only this long after the ask's creation: on
 * Redis Cluster the entry is written before the create script, so a listing in between must not
 * drop it.
 */
const ORPHAN_AFTER_MS = 10 * 60_000;

/**
 * {@link AskStore.pendingAsks} on Redis: one ZRANGEBYLEX of the pending index (one key, so one
 * hash slot on a Cluster), then the records. An entry whose ask ended, or whose cursor is not its
 * ask's (a create retried after a conflict), is dropped; so is one whose ask is gone for good.
 */
export async function readPendingPage(
  redis: Redis | Cluster,
  key: string,
  getMany: (ids: readonly string[]) => Promise<(AskRecord | null)[]>,
  page: { after: string | null; limit: number; nowMs: number },
): Promise<PendingPage> {
  if (page.limit <= 0) return { asks: [], next: page.after };
  const from = page.after === null ? '-' : `(${page.after}`;
  const members = await redis.zrangebylex(key, from, '+', 'LIMIT', 0, page.limit);
  const records = await getMany(members.map(cursorAskId));
  const asks: PendingPage['asks'] = [];
  const stale: string[] = [];
  members.forEach((cursor, i) => {
    const record = records[i];
    if (record && record.status === 'pending' && askCursor(record) === cursor) asks.push({ record, cursor });
    else if (record || Number(cursor.slice(0, cursor.indexOf(':'))) < page.nowMs - ORPHAN_AFTER_MS) stale.push(cursor);
  });
  // Best effort: an entry left behind is left out again by the next listing.
  if (stale.length > 0) await redis.zrem(key, ...stale).catch(() => undefined);
  return { asks, next: members.length < page.limit ? null : members.at(-1)! };
}

/**
 * Removes pending-index entries and counts the insights as their own commands (Redis Cluster: both
 * are in other hash slots); best effort: a crash in between loses that ask's count.
 */
export function dropPending(redis: Redis | Cluster, ops: readonly AlongOp[]): void {
  for (const op of ops)
    if (op.op === 'ZREM') void redis.zrem(op.key, op.member).catch(() => undefined);
    else if (op.op === 'ROLL') void runScript(redis, ROLLUP, [op.key], rollupArgs(op)).catch(() => undefined);
}

/** `(` + a cursor's time prefix: ZLEXCOUNT's bound for "created before `ms`". */
const before = (ms: number) => `(${String(Math.max(0, Math.floor(ms))).padStart(15, '0')}`;

/**
 * The insights on Redis ({@link InsightsSource}): a day's counters are one hash each
 * (`<prefix>:insights:{YYYY-MM-DD}`, raised by the commit script that ends an ask); the pending
 * figures are 6 counts of the pending index by its cursors' time prefix (ZLEXCOUNT, O(log n)) and
 * its first entries (the oldest), checked against their records like a listing's.
 */
export class RedisInsights implements InsightsSource {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keys: StoreKeys,
    private readonly getMany: (ids: readonly string[]) => Promise<(AskRecord | null)[]>,
  ) {}

  async days(days: readonly string[]): Promise<Map<string, Record<string, number>>> {
    const hashes = await Promise.all(days.map((d) => this.redis.hgetall(this.keys.insights(d))));
    const out = new Map<string, Record<string, number>>();
    hashes.forEach((hash, i) => {
      const entries = Object.entries(hash);
      if (entries.length > 0) out.set(days[i]!, Object.fromEntries(entries.map(([f, n]) => [f, Number(n)])));
    });
    return out;
  }

  async pending(nowMs: number): Promise<PendingNow> {
    const key = this.keys.pending();
    const bounds = DELAY_BUCKETS.slice(0, -1).map((b) => nowMs - b.upTo * 1000);
    const [total, olderThan, first] = await Promise.all([
      this.redis.zcard(key),
      Promise.all(bounds.map((t) => this.redis.zlexcount(key, '-', before(t)))),
      this.redis.zrangebylex(key, '-', '+', 'LIMIT', 0, 10),
    ]);
    // ages[i]: created within bucket i's range (older than bucket i-1's bound, not older than its own).
    const ages = DELAY_BUCKETS.map((_, i) => (i === 0 ? total : olderThan[i - 1]!) - (olderThan[i] ?? 0));
    const records = await this.getMany(first.map(cursorAskId));
    const live = first.find((c, i) => records[i]?.status === 'pending' && askCursor(records[i]!) === c) ?? first[0];
    return {
      count: total,
      oldestCreatedMs: live === undefined ? null : Number(live.slice(0, live.indexOf(':'))),
      ages,
    };
  }
}
