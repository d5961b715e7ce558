// The audit chain in Redis: one stream, its head and the sequencer's cursors, all under one hash
// tag (one slot on a Cluster), so one script appends and moves the cursors atomically. The keys of
// the asks are only read (SCAN), never written here.
import { Redis, type Cluster } from 'ioredis';
import type { AuditCursor } from '../core/audit/entry.js';
import { EMPTY_HEAD, type AuditEntry, type ChainHead } from '../core/audit/chain.js';
import { lua, runScript } from './scripts.js';
import { clusterConnection, closeConnection, type ClusterSeeds } from '../queue/connections.js';

/**
 * Appends entries after the head if the head is still `ARGV[1]` (compare-and-set on the last hash)
 * and each ask's cursor is still what the caller read; then moves the cursors and the head.
 * KEYS: chain, head, cursors, touched. ARGV: expected head hash ('' = empty chain), new seq, new
 * hash, new ms, n entries, m asks, n × (stream id, entry JSON), m × (ask id, old cursor, new), now.
 * Returns 1, 0 (the head moved: another sequencer appended) or -1 (a cursor moved).
 */
const APPEND = lua(
  'audit-append',
  `
local head = redis.call('HGET', KEYS[2], 'hash') or ''
if head ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[5])
local m = tonumber(ARGV[6])
local base = 7 + 2 * n
local ids, cursors, touched = {}, {}, {}
local now = ARGV[base + 3 * m]
for j = 0, m - 1 do
  local k = base + 3 * j
  ids[#ids + 1] = ARGV[k]
  cursors[#cursors + 1] = ARGV[k]
  cursors[#cursors + 1] = ARGV[k + 2]
  touched[#touched + 1] = now
  touched[#touched + 1] = ARGV[k]
end
-- One HMGET, one HSET and one ZADD for the whole batch (commands inside a script count too).
local old = redis.call('HMGET', KEYS[3], unpack(ids))
for j = 0, m - 1 do
  if (old[j + 1] or '') ~= ARGV[base + 3 * j + 1] then return -1 end
end
for j = 0, n - 1 do redis.call('XADD', KEYS[1], ARGV[7 + 2 * j], 'e', ARGV[8 + 2 * j]) end
redis.call('HSET', KEYS[3], unpack(cursors))
redis.call('ZADD', KEYS[4], unpack(touched))
redis.call('HSET', KEYS[2], 'seq', ARGV[2], 'hash', ARGV[3], 'ms', ARGV[4])
return 1
`,
);

/**
 * Drops entries recorded before ARGV[1] (ms) and cursors untouched since ARGV[2] (at most 1,000 a
 * call). KEYS: chain, cursors, touched, head.
 */
const TRIM = lua(
  'audit-trim',
  `
-- The hash of the last entry trimmed: the anchor of a range that has nothing left before it.
-- ('(<ms>-0': an end without a sequence number would mean <ms>-<max> and take that ms's entries.)
local last = redis.call('XREVRANGE', KEYS[1], '(' .. ARGV[1] .. '-0', '-', 'COUNT', 1)[1]
if last then redis.call('HSET', KEYS[4], 'trimmed', cjson.decode(last[2][2]).hash) end
local trimmed = redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2], 'LIMIT', 0, 1000)
if #stale > 0 then
  redis.call('HDEL', KEYS[2], unpack(stale))
  redis.call('ZREM', KEYS[3], unpack(stale))
end
return {trimmed, #stale}
`,
);

/** Renews the lease (ARGV: token, ms) if this token holds it; 1 when held. */
const RENEW = lua(
  'audit-lease',
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
`,
);

const RELEASE = lua(
  'audit-release',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

/** One ask's cursor move in an {@link RedisAuditChain.append}. */
export interface CursorMove {
  askId: string;
  /** The cursor read before ({@link encodeCursor}; '' when none). */
  old: string;
  next: string;
}

/** A cursor as stored: `<count> <digest>`. */
export const encodeCursor = (c: AuditCursor | null): string => (c ? `${c.count} ${c.last}` : '');

/** The cursor of a stored value ('' or missing: none). */
export function decodeCursor(value: string | null | undefined): AuditCursor | null {
  if (!value) return null;
  const space = value.indexOf(' ');
  return { count: Number(value.slice(0, space)), last: value.slice(space + 1) };
}

/** Where the chain lives: the prefix and how to connect (askgate's REDIS_URL or Cluster seeds). */
export interface AuditChainTarget {
  prefix: string;
  redisUrl?: string;
  cluster?: ClusterSeeds;
}

/** The audit chain's keys, its lease, and the SCAN of the asks, on a connection of its own. */
export class RedisAuditChain {
  private readonly k: { chain: string; head: string; cursors: string; touched: string; lease: string };
  private readonly askPattern: string;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
  ) {
    const tag = `${prefix}:{${prefix}:audit}`;
    this.k = {
      chain: `${tag}:chain`,
      head: `${tag}:head`,
      cursors: `${tag}:cursors`,
      touched: `${tag}:touched`,
      lease: `${tag}:lease`,
    };
    this.askPattern = `${prefix}:{*}:ask:*`;
  }

  /**
   * A chain on a connection of its own: exports read large ranges and the sequencer works in
   * batches, neither of which should queue behind (or ahead of) the request path's commands.
   */
  static open(target: AuditChainTarget): RedisAuditChain {
    const redis = target.cluster
      ? clusterConnection(target.cluster, { request: true, commandTimeoutMs: 10_000, connectionName: 'askgate-audit' })
      : new Redis(target.redisUrl!, {
          maxRetriesPerRequest: 1,
          commandTimeout: 10_000,
          connectionName: 'askgate-audit',
        });
    redis.on('error', () => undefined); // the sequencer retries on its next tick; exports answer 503
    return new RedisAuditChain(redis, target.prefix);
  }

  async head(): Promise<ChainHead> {
    const [seq, hash, ms] = await this.redis.hmget(this.k.head, 'seq', 'hash', 'ms');
    return hash ? { seq: Number(seq), hash, ms: Number(ms) } : EMPTY_HEAD;
  }

  async cursors(askIds: readonly string[]): Promise<(string | null)[]> {
    return askIds.length === 0 ? [] : this.redis.hmget(this.k.cursors, ...askIds);
  }

  /** See {@link APPEND}: `expected` is the head read before (its hash; '' for an empty chain). */
  async append(
    expected: string,
    entries: readonly AuditEntry[],
    moves: readonly CursorMove[],
    nowMs: number,
  ): Promise<'ok' | 'head_moved' | 'cursor_moved'> {
    const last = entries[entries.length - 1];
    if (!last) throw new Error('append: nothing to append');
    const ms = Date.parse(last.recordedAt);
    const argv: (string | number)[] = [expected, last.seq, last.hash, ms, entries.length, moves.length];
    for (const e of entries) argv.push(`${Date.parse(e.recordedAt)}-${e.seq}`, JSON.stringify(e));
    for (const m of moves) argv.push(m.askId, m.old, m.next);
    argv.push(nowMs);
    const k = this.k;
    const reply = await runScript(this.redis, APPEND, [k.chain, k.head, k.cursors, k.touched], argv);
    return reply === 1 ? 'ok' : reply === 0 ? 'head_moved' : 'cursor_moved';
  }

  /**
   * Up to `count` entries recorded from `fromMs` to `toMs` (inclusive), after the stream id
   * `after` when given: `[streamId, entry JSON]` in chain order.
   */
  async range(fromMs: number, toMs: number, count: number, after?: string): Promise<[string, string][]> {
    const start = after ? `(${after}` : String(fromMs);
    const rows = (await this.redis.xrange(this.k.chain, start, String(toMs), 'COUNT', count)) as [string, string[]][];
    return rows.map(([id, fields]) => [id, fields[1] ?? '']);
  }

  /**
   * The hash of the last entry recorded before `fromMs`: the anchor of a range with no entry; the
   * last trimmed entry's when retention took it; null when the chain has none.
   */
  async hashBefore(fromMs: number): Promise<string | null> {
    const rows = (await this.redis.xrevrange(this.k.chain, `(${fromMs}-0`, '-', 'COUNT', 1)) as [string, string[]][];
    const json = rows[0]?.[1][1];
    if (json) return (JSON.parse(json) as AuditEntry).hash;
    return this.redis.hget(this.k.head, 'trimmed');
  }

  /** Drops entries recorded before `cutoffMs` and cursors untouched since `staleMs`. */
  async trim(cutoffMs: number, staleMs: number): Promise<{ entries: number; cursors: number }> {
    const k = this.k;
    const [entries, cursors] = (await runScript(
      this.redis,
      TRIM,
      [k.chain, k.cursors, k.touched, k.head],
      [cutoffMs, staleMs],
    )) as [number, number];
    return { entries, cursors };
  }

  /** Takes or renews the sequencer's lease for `ms`; true while this token holds it. */
  async lease(token: string, ms: number): Promise<boolean> {
    return (await runScript(this.redis, RENEW, [this.k.lease], [token, ms])) === 1;
  }

  /** Gives the lease up if this token holds it (a clean stop: another replica takes over at once). */
  async release(token: string): Promise<void> {
    await runScript(this.redis, RELEASE, [this.k.lease], [token]);
  }

  /** Ids of every stored ask, a SCAN page at a time (every primary of a Cluster). */
  async *askIds(): AsyncGenerator<string[]> {
    const nodes =
      'nodes' in this.redis && this.redis.isCluster ? (this.redis as Cluster).nodes('master') : [this.redis as Redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [nextCursor, keys] = await node.scan(cursor, 'MATCH', this.askPattern, 'COUNT', 1000);
        cursor = nextCursor;
        const ids = keys.map((key) => key.slice(key.lastIndexOf(':ask:') + 5));
        if (ids.length > 0) yield ids;
      } while (cursor !== '0');
    }
  }

  async close(): Promise<void> {
    await closeConnection(this.redis);
  }
}
