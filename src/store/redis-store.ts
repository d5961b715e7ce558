import type { Redis, Cluster } from 'ioredis';
import { z } from 'zod';
import type { AlongWrites, AskStore, Clock, CreateArgs, CreateResult, IdempotencyClaim } from '../core/ports.js';
import type { KeptRecord } from '../core/store-ports.js';
import type { AskRecord } from '../core/schemas.js';
import { BoundedMap } from '../core/bounded-map.js';
import { CorruptRecordError, encodeAsk, KnownValues, parseStoredAsk, safeJson } from './ask-doc.js';
import { HISTORY_MAX, RECENT_MAX, StoreKeys } from './keys.js';
import { CLAIM, COMMIT, CREATE, CommitCode, CreateCode, EXTEND_TTL, GET_RUN, HISTORY, runScript } from './scripts.js';
import { RedisIndexes, ttl } from './redis-indexes.js';
import { alongOps, appendAlong, creationOps, leavePending, runCreationOp } from './along-ops.js';
import { dropPending, readPendingPage, RedisInsights } from './pending-index.js';
import { systemClock } from '../system-clock.js';

/**
 * Records {@link RedisAskStore.getMany} parses between two turns of the event loop: the
 * reconciler's chunks of 100 asks took 12–25 ms of parsing in one go, and every tap that arrived
 * meanwhile waited for it.
 */
const PARSE_SLICE = 20;

/** Resolves on the next turn of the event loop, after the I/O that is waiting. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export { CorruptRecordError, encodeAsk } from './ask-doc.js';

/** Options of {@link RedisAskStore}. */
export interface RedisAskStoreOptions {
  /** Key prefix (default `askgate`); tests use a unique one each. */
  prefix?: string;
  /** The clock sweep and conversation times are read against (default: the system clock). */
  clock?: Clock;
}

const BindingSchema = z.object({ askId: z.string().min(1), requestHash: z.string() });
const RUN_CACHE_MAX = 10_000;
/**
 * An id → run key is not extended for less than this: the same expiry recomputed a few ms later
 * (a pending ask's commits) is no reason for a round trip, and a record outliving its id mapping by
 * at most this long, at the very end of its retention, is harmless.
 */
const ID_EXPIRY_MARGIN_MS = 1_000;

/**
 * {@link AskStore} on Redis. Each state change is one Lua script over keys of one run (one hash
 * tag), so it runs unchanged on Redis Cluster. Round trips: create 1 (2 on Cluster, where the id
 * mapping must be acknowledged before the script runs on another node), get 1 (2 on a cold cache),
 * getRun 1, history 1, commit 1.
 */
export class RedisAskStore implements AskStore {
  private readonly keys: StoreKeys;
  /**
   * askId → runId (the mapping never changes, so an LRU saves the lookup on hot asks) and the
   * earliest the id → run key can expire as far as this process knows (0: unknown).
   */
  private readonly runOf = new BoundedMap<string, { runId: string; idExpiresAt: number }>(RUN_CACHE_MAX);
  private readonly clock: Clock;
  /** Stored values this process wrote or checked: read again, they skip the schema check. */
  private readonly known = new KnownValues();
  /** Every write goes down one ordered connection (not Redis Cluster): see {@link AskStore.ordered}. */
  readonly ordered: boolean;
  /** The indexes beside the records (sweep, conversations, messages), on the same connection and keys. */
  readonly indexes: RedisIndexes;
  readonly insights: RedisInsights; // the counters settling commits raise, and the pending figures

  constructor(
    private readonly redis: Redis | Cluster,
    opts: RedisAskStoreOptions = {},
  ) {
    this.keys = new StoreKeys(opts.prefix);
    this.clock = opts.clock ?? systemClock;
    this.ordered = (redis as { isCluster?: boolean }).isCluster !== true;
    this.indexes = new RedisIndexes(redis, this.keys, this.clock);
    this.insights = new RedisInsights(redis, this.keys, (ids) => this.getMany(ids));
  }

  async claimIdempotencyKey(key: string, requestHash: string, askId: string, ttlMs: number): Promise<IdempotencyClaim> {
    const binding = JSON.stringify({ askId, requestHash });
    const stored = await runScript(this.redis, CLAIM, [this.keys.idem(key)], [binding, ttl(ttlMs)]);
    if (stored === null) return { askId, requestHash, won: true };
    const parsed = BindingSchema.safeParse(safeJson(String(stored)));
    if (!parsed.success) throw new CorruptRecordError(`corrupt idempotency binding at ${this.keys.idem(key)}`);
    return { ...parsed.data, won: false };
  }

  async create(args: CreateArgs): Promise<CreateResult> {
    const { record, supersede } = args;
    if (supersede && (supersede.prev.runId !== record.runId || supersede.next.id !== supersede.prev.id)) {
      throw new Error('create: the superseded ask must belong to the same run and keep its id');
    }
    const k = this.keys;
    const keys = [k.run(record.runId), k.ask(record.runId, record.id)];
    const value = encodeAsk(record);
    const argv: (string | number)[] = [
      ...[args.expectedVersion, record.id, value, record.version, ttl(args.ttlMs)],
      ...[HISTORY_MAX, k.resolvedChannel(), k.historyChannel(), record.runId],
    ];
    let supersededValue = '';
    if (supersede) {
      const { prev, next } = supersede;
      keys.push(k.ask(prev.runId, prev.id));
      supersededValue = encodeAsk(next);
      argv.push(prev.id, prev.rev, supersededValue, ttl(args.retentionMs));
    } else argv.push('', '', '', '');
    const now = this.clock.now();
    const idExpiresAt = now + ttl(args.ttlMs);
    // The id mapping and the recent list. On one ordered connection the create script makes them,
    // with the along writes, once the ask is created. A Cluster keeps them in other slots: there
    // they are written and awaited first, so the ask is findable by id the moment it exists (an
    // orphan mapping left by a crash before the script is harmless).
    const indexes = creationOps(k, record, ttl(args.ttlMs));
    const left = supersede ? leavePending(k, supersede.prev, supersede.next) : [];
    const extended = supersede ? this.extendIdMap(supersede.prev, args.retentionMs) : null;
    // The superseded ask's kept copy is not offered while the script may change it.
    const superseded = supersede ? k.ask(supersede.prev.runId, supersede.prev.id) : null;
    const reply = await this.known.whileWriting(superseded, async (): Promise<[number, string?]> => {
      let created: [number, string?];
      if (this.ordered) {
        appendAlong(keys, argv, [...indexes, ...left, ...alongOps(k, record.id, args.along, now)]);
        created = (await Promise.all([runScript(this.redis, CREATE, keys, argv), extended]))[0] as [number, string?];
      } else {
        this.refuseAlong(args.along);
        await Promise.all([...indexes.map((op) => runCreationOp(this.redis, op)), extended]);
        appendAlong(keys, argv, []);
        created = (await runScript(this.redis, CREATE, keys, argv)) as [number, string?];
      }
      if (created[0] === CreateCode.created) {
        this.known.note(keys[1]!, value, record);
        if (supersede) this.known.note(keys[2]!, supersededValue, supersede.next);
      }
      return created;
    });
    // In the script, the mapping was written only if the ask was created.
    const mapped = !this.ordered || reply[0] === CreateCode.created;
    this.remember(record.id, record.runId, mapped ? idExpiresAt : undefined);
    switch (reply[0]) {
      case CreateCode.created:
        if (!this.ordered) dropPending(this.redis, left);
        return { status: 'created', record, superseded: supersede?.next ?? null };
      case CreateCode.exists:
        return { status: 'exists', record: this.parse(reply[1] ?? '', record.runId, record.id) };
      default:
        return { status: 'conflict' };
    }
  }

  async get(askId: string): Promise<AskRecord | null> {
    let runId = this.runOf.get(askId)?.runId;
    if (runId === undefined) {
      const mapped = await this.redis.get(this.keys.idMap(askId));
      if (mapped === null) return null;
      runId = mapped;
    }
    const value = await this.redis.get(this.keys.ask(runId, askId));
    if (value === null) return null;
    this.remember(askId, runId);
    return this.parse(value, runId, askId);
  }

  peek(askId: string): KeptRecord | null {
    const runId = this.runOf.get(askId)?.runId;
    if (runId === undefined) return null;
    const value = this.known.last(this.keys.ask(runId, askId));
    return value === undefined ? null : this.parse(value, runId, askId);
  }

  async kept(askId: string): Promise<KeptRecord | null> {
    const runId = this.runOf.get(askId)?.runId;
    if (runId !== undefined) await this.known.landed(this.keys.ask(runId, askId));
    return this.peek(askId);
  }

  /**
   * On one standalone connection: one MGET of the id mappings this process does not know and one
   * MGET of the asks (keys of many runs, so never on Cluster, where each is a {@link get}).
   */
  async getMany(askIds: readonly string[]): Promise<(AskRecord | null)[]> {
    if (!this.ordered || askIds.length < 2) return Promise.all(askIds.map((id) => this.get(id)));
    const runIds = askIds.map((id) => this.runOf.get(id)?.runId);
    const unknown = askIds.flatMap((id, i) => (runIds[i] === undefined ? [i] : []));
    if (unknown.length > 0) {
      const mapped = await this.redis.mget(unknown.map((i) => this.keys.idMap(askIds[i]!)));
      unknown.forEach((i, j) => (runIds[i] = mapped[j] ?? undefined));
    }
    const found = askIds.flatMap((_, i) => (runIds[i] === undefined ? [] : [i]));
    const values =
      found.length > 0 ? await this.redis.mget(found.map((i) => this.keys.ask(runIds[i]!, askIds[i]!))) : [];
    const records: (AskRecord | null)[] = askIds.map(() => null);
    for (let j = 0; j < found.length; j++) {
      // A long batch (the reconciler's) is parsed a slice at a time, letting taps in between.
      if (j > 0 && j % PARSE_SLICE === 0) await nextTurn();
      const i = found[j]!;
      const value = values[j];
      if (value === null || value === undefined) continue;
      this.remember(askIds[i]!, runIds[i]!);
      records[i] = this.parse(value, runIds[i]!, askIds[i]!);
    }
    return records;
  }

  async recent(limit: number): Promise<AskRecord[]> {
    if (limit <= 0) return [];
    const ids = await this.redis.zrevrange(this.keys.recent(), 0, Math.min(limit, RECENT_MAX) - 1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is AskRecord => r !== null);
  }

  pendingAsks(after: string | null, limit: number) {
    const page = { after, limit, nowMs: this.clock.now() };
    return readPendingPage(this.redis, this.keys.pending(), (ids) => this.getMany(ids), page);
  }

  async getRun(
    runId: string,
    opts: { pendingOnly?: boolean } = {},
  ): Promise<{ current: AskRecord | null; version: number }> {
    const [version, current, value] = (await runScript(
      this.redis,
      GET_RUN,
      [this.keys.run(runId)],
      [this.keys.ask(runId, ''), opts.pendingOnly === true ? 1 : 0],
    )) as [string | null, string | null, string | null];
    const v = Number(version ?? 0);
    if (!current || !value) return { current: null, version: v };
    this.remember(current, runId);
    return { current: this.parse(value, runId, current), version: v };
  }

  async history(runId: string, limit: number): Promise<AskRecord[]> {
    if (limit <= 0) return [];
    const k = this.keys;
    const flat = (await runScript(
      this.redis,
      HISTORY,
      [k.run(runId)],
      [k.ask(runId, ''), Math.min(limit, HISTORY_MAX)],
    )) as (string | null)[];
    const records: AskRecord[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const value = flat[i + 1];
      if (value) records.push(this.parse(value, runId, flat[i]!));
    }
    return records;
  }

  async commit(
    prev: AskRecord,
    next: AskRecord,
    opts: { ttlMs: number; publish: boolean; along?: AlongWrites },
  ): Promise<'ok' | 'conflict' | 'missing'> {
    if (next.id !== prev.id || next.runId !== prev.runId || next.rev !== prev.rev + 1) {
      throw new Error(`commit: next must keep id and runId and have rev ${prev.rev + 1} (got ${next.rev})`);
    }
    const k = this.keys;
    const keys = [k.ask(prev.runId, prev.id), k.run(prev.runId)];
    const value = encodeAsk(next);
    const argv: (string | number)[] = [
      prev.rev,
      value,
      ttl(opts.ttlMs),
      opts.publish ? k.resolvedChannel() : '',
      prev.id,
      k.historyChannel(),
      prev.runId,
    ];
    this.refuseAlong(opts.along);
    const left = leavePending(k, prev, next);
    appendAlong(keys, argv, [...alongOps(k, prev.id, opts.along, this.clock.now()), ...(this.ordered ? left : [])]);
    // Sent together (one round trip): the id mapping must live as long as the record. Extending
    // is harmless when the commit then conflicts; a failure here only shortens findability.
    const code = await this.known.whileWriting(keys[0]!, async () => {
      const extended = this.extendIdMap(prev, opts.ttlMs);
      const [, reply] = await Promise.all([extended, runScript(this.redis, COMMIT, keys, argv)]);
      if (reply === CommitCode.ok) this.known.note(keys[0]!, value, next);
      return reply;
    });
    if (code === CommitCode.ok) {
      if (!this.ordered) dropPending(this.redis, left);
      return 'ok';
    }
    if (code === CommitCode.conflict) return 'conflict';
    if (code === CommitCode.missing) return 'missing';
    throw new Error(`commit: unexpected script reply ${String(code)}`);
  }

  /** Along writes need one ordered connection: their keys are in other hash slots on a Cluster. */
  private refuseAlong(along: unknown): void {
    if (along !== undefined && !this.ordered)
      throw new Error('along writes need one ordered connection (not Redis Cluster)');
  }

  async ping(): Promise<void> {
    const reply = await this.redis.ping();
    if (reply !== 'PONG') throw new Error(`unexpected PING reply ${reply}`);
  }

  /**
   * Makes the id → run key live at least `ttlMs` more, like the record. Skipped when this process
   * set or extended it far enough already: an ask's pending commits keep the expiry given at
   * creation (deadline + retention) and a terminal one before the deadline shortens it.
   */
  private async extendIdMap(record: AskRecord, ttlMs: number): Promise<void> {
    const expiresAt = this.clock.now() + ttl(ttlMs);
    const known = this.runOf.get(record.id)?.idExpiresAt ?? 0;
    if (expiresAt <= known + ID_EXPIRY_MARGIN_MS) return;
    await runScript(this.redis, EXTEND_TTL, [this.keys.idMap(record.id)], [ttl(ttlMs)]).then(
      () => this.remember(record.id, record.runId, expiresAt),
      () => undefined,
    );
  }

  /**
   * The record of a stored value: the one this process wrote or read with it, while kept; else
   * parsed, without the schema check when this process knows the value.
   */
  private parse(value: string, runId: string, askId: string): AskRecord {
    const key = this.keys.ask(runId, askId);
    const kept = this.known.record(key, value);
    if (kept) return kept;
    const record = parseStoredAsk(value, key, { id: askId, runId }, this.known.has(key, value));
    this.known.note(key, value, record);
    return record;
  }

  private remember(askId: string, runId: string, idExpiresAt?: number): void {
    const known = this.runOf.get(askId);
    this.runOf.set(askId, { runId, idExpiresAt: Math.max(idExpiresAt ?? 0, known?.idExpiresAt ?? 0) });
  }
}
