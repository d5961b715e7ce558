import type { Redis, Cluster } from 'ioredis';
import type { AlongWrites } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { INDEX_TTL_MS, RECENT_MAX, type StoreKeys } from './keys.js';
import { runScript, ZADD_EXPIRE } from './scripts.js';
import { askCursor } from '../core/ask-listing.js';
import { rollupOf, type Rollup } from '../core/insights.js';

/** How long a day's insights counters are kept (the longest period a query reads, plus a margin). */
export const INSIGHTS_TTL_MS = 100 * 86_400_000;

/**
 * One index write a create or commit script makes when it succeeds (the scripts' `along`):
 * a sorted-set add ('MARK', 'SET' or 'IF', see `zaddExpire` in scripts.ts), a 'ZREM', or a 'PUT' of a
 * string with a TTL.
 */
export type AlongOp =
  | CreationOp
  | { op: 'MARK'; key: string; member: string; score: number; ttlMs: number }
  | { op: 'IF'; key: string; member: string; score: number; ttlMs: number; expected: number }
  | { op: 'ZREM'; key: string; member: string }
  | { op: 'ROLL'; key: string; ttlMs: number; rollup: Rollup };

/** The writes {@link creationOps} gives: a string with a TTL, a sorted-set add keeping the `keep` highest (all without). */
export type CreationOp =
  | { op: 'PUT'; key: string; value: string; ttlMs: number }
  | { op: 'SET'; key: string; member: string; score: number; ttlMs: number; keep?: number };

/** An index key must outlive its latest member by a comfortable margin. */
export function indexTtl(scoreMs: number, nowMs: number): number {
  return Math.max(INDEX_TTL_MS, Math.ceil(scoreMs - nowMs) + INDEX_TTL_MS / 2);
}

/** The ops of `along` for ask `askId` at `nowMs`, in the order the separate commands ran. */
export function alongOps(keys: StoreKeys, askId: string, along: AlongWrites | undefined, nowMs: number): AlongOp[] {
  if (!along) return [];
  const ops: AlongOp[] = [];
  const sweep = keys.sweep();
  if (along.mark !== undefined)
    ops.push({ op: 'MARK', key: sweep, member: askId, score: along.mark, ttlMs: indexTtl(along.mark, nowMs) });
  if (along.unsweep) ops.push({ op: 'ZREM', key: sweep, member: askId });
  if (along.later) {
    const { at, from } = along.later;
    ops.push({ op: 'IF', key: sweep, member: askId, score: at, ttlMs: indexTtl(at, nowMs), expected: from });
  }
  for (const conv of along.leave ?? []) ops.push({ op: 'ZREM', key: keys.conv(conv), member: askId });
  return ops;
}

/**
 * The writes beside a new ask: its id → run mapping (`ttlMs`, the record's), its place in the
 * recent list and in the pending index (outliving the record).
 */
export function creationOps(keys: StoreKeys, record: AskRecord, ttlMs: number): CreationOp[] {
  const recent = Date.parse(record.createdAt);
  const pendingTtl = Math.max(INDEX_TTL_MS, ttlMs + INDEX_TTL_MS / 2);
  return [
    { op: 'PUT', key: keys.idMap(record.id), value: record.runId, ttlMs },
    { op: 'SET', key: keys.recent(), member: record.id, score: recent, ttlMs: INDEX_TTL_MS, keep: RECENT_MAX },
    { op: 'SET', key: keys.pending(), member: askCursor(record), score: 0, ttlMs: pendingTtl },
  ];
}

/**
 * When a change ends a pending ask: its removal from the pending index and its count in its day's
 * insights (none otherwise). A change ends an ask once (compare-and-set), so it is counted once.
 */
export function leavePending(keys: StoreKeys, prev: AskRecord, next: AskRecord): AlongOp[] {
  const left = prev.status === 'pending' && next.status !== 'pending';
  if (!left) return [];
  const rollup = rollupOf(next);
  const ops: AlongOp[] = [{ op: 'ZREM', key: keys.pending(), member: askCursor(prev) }];
  if (rollup) ops.push({ op: 'ROLL', key: keys.insights(rollup.day), ttlMs: INSIGHTS_TTL_MS, rollup });
  return ops;
}

/** A creation write as a command of its own (Redis Cluster, where the indexes are in other hash slots). */
export async function runCreationOp(redis: Redis | Cluster, op: CreationOp): Promise<unknown> {
  if (op.op === 'PUT') return redis.set(op.key, op.value, 'PX', op.ttlMs);
  return runScript(redis, ZADD_EXPIRE, [op.key], ['SET', op.score, op.member, op.ttlMs, op.keep ?? '']);
}

/**
 * Appends `ops` to a script call, as the scripts' `along` reads them: their keys last in `keys`,
 * in order, and their count and fields to `argv` (only the fields each op has: every argument is
 * work for ioredis and Redis).
 */
export function appendAlong(keys: string[], argv: (string | number)[], ops: readonly AlongOp[]): void {
  argv.push(ops.length);
  for (const o of ops) {
    keys.push(o.key);
    if (o.op === 'ZREM') argv.push(o.op, o.member);
    else if (o.op === 'PUT') argv.push(o.op, o.value, o.ttlMs);
    else if (o.op === 'IF') argv.push(o.op, o.member, o.score, o.ttlMs, o.expected);
    else if (o.op === 'SET') argv.push(o.op, o.member, o.score, o.ttlMs, o.keep ?? '');
    else if (o.op === 'ROLL') argv.push(o.op, ...rollupArgs(o));
    else argv.push(o.op, o.member, o.score, o.ttlMs, '');
  }
}

/** A rollup's arguments as the scripts' `rollup` reads them (scripts.ts): ttl, scopes, metrics. */
export function rollupArgs(o: Extract<AlongOp, { op: 'ROLL' }>): (string | number)[] {
  const { scopes, metrics } = o.rollup;
  return [o.ttlMs, scopes.length, ...scopes.flatMap((s) => [s.dim, s.value, s.cap]), metrics.length, ...metrics];
}
