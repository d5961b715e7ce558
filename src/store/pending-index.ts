import type { Redis, Cluster } from 'ioredis';
import type { PendingPage } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { askCursor, cursorAskId } from '../core/ask-listing.js';
import type { AlongOp } from './along-ops.js';

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

/** Removes pending-index entries as their own commands (Redis Cluster: the index is in another hash slot); best effort. */
export function dropPending(redis: Redis | Cluster, ops: readonly AlongOp[]): void {
  for (const op of ops) if (op.op === 'ZREM') void redis.zrem(op.key, op.member).catch(() => undefined);
}
