import type {
  AlongWrites,
  AskStore,
  Clock,
  CreateArgs,
  CreateResult,
  IdempotencyClaim,
  KeptRecord,
  PendingPage,
} from '../core/ports.js';
import { askCursor, cursorAskId } from '../core/ask-listing.js';
import type { AskRecord } from '../core/schemas.js';
import { HISTORY_MAX, RECENT_MAX } from './keys.js';
import type { MemoryResultBus } from './memory-bus.js';
import { live, sortedByScore, type AskEntry, type Expiring, type RunEntry, type ValueEntry } from './memory-entries.js';
import { MemoryIndexes } from './memory-indexes.js';
import { MemoryInsights } from './memory-insights.js';

const PURGE_EVERY_MS = 60_000;
/** The pending index: `askCursor(record)` of every pending ask (score 0: ordered as text, as on Redis). */
const PENDING = 'pending';

/**
 * {@link AskStore} in process memory, with the Redis store's semantics: every method runs
 * synchronously inside, so each is atomic; TTLs are honoured lazily against the injected clock
 * (plus a periodic purge so untouched entries do not leak). Publishes through the bus where Redis
 * would PUBLISH.
 */
export class MemoryAskStore implements AskStore {
  private readonly asks = new Map<string, AskEntry>();
  private readonly runs = new Map<string, RunEntry>();
  private readonly idem = new Map<string, ValueEntry<{ askId: string; requestHash: string }>>();
  /** The indexes beside the records (sweep, conversations, messages), purged with them. */
  readonly indexes = new MemoryIndexes(() => this.tick());
  private lastPurge = -Infinity;
  /** Every method is one synchronous step: writes land in order, and along writes are made inside it. */
  readonly ordered = true;
  /** The insights counters, raised in the step that ends an ask (as the Redis scripts do). */
  readonly insights = new MemoryInsights(() => this.indexes.entry(PENDING, this.tick())?.members.keys() ?? []);

  constructor(
    private readonly bus: MemoryResultBus,
    private readonly clock: Clock,
  ) {}

  async claimIdempotencyKey(key: string, requestHash: string, askId: string, ttlMs: number): Promise<IdempotencyClaim> {
    const now = this.tick();
    const stored = live(this.idem, key, now);
    if (stored) return { ...stored.value, won: false };
    this.idem.set(key, { value: { askId, requestHash }, expiresAt: now + ttlMs });
    return { askId, requestHash, won: true };
  }

  async create(args: CreateArgs): Promise<CreateResult> {
    const { record, supersede } = args;
    if (supersede && (supersede.prev.runId !== record.runId || supersede.next.id !== supersede.prev.id)) {
      throw new Error('create: the superseded ask must belong to the same run and keep its id');
    }
    const now = this.tick();
    const existing = live(this.asks, record.id, now);
    if (existing) return { status: 'exists', record: JSON.parse(existing.doc) as AskRecord };
    const run = live(this.runs, record.runId, now);
    if ((run?.version ?? 0) !== args.expectedVersion) return { status: 'conflict' };
    if (supersede) {
      const old = live(this.asks, supersede.prev.id, now);
      if (run?.current !== supersede.prev.id || !old || old.rev !== supersede.prev.rev || old.status !== 'pending')
        return { status: 'conflict' };
    }
    if (supersede) {
      const { next } = supersede;
      this.asks.set(next.id, {
        runId: next.runId,
        rev: next.rev,
        status: next.status,
        doc: JSON.stringify(next),
        expiresAt: now + args.retentionMs,
      });
      this.bus.announce(next.id);
      void this.bus.notifyHistory(next.id, next.runId);
      if (next.status !== 'pending') {
        this.indexes.entry(PENDING, now)?.members.delete(askCursor(supersede.prev));
        this.insights.settled(next);
      }
    }
    this.asks.set(record.id, {
      runId: record.runId,
      rev: record.rev,
      status: record.status,
      doc: JSON.stringify(record),
      expiresAt: now + args.ttlMs,
    });
    const recent = this.indexes.index('recent', now);
    recent.set(record.id, Date.parse(record.createdAt));
    if (recent.size > RECENT_MAX) recent.delete(sortedByScore(recent, () => true)[0]!);
    this.indexes.index(PENDING, now + args.ttlMs).set(askCursor(record), 0);
    this.runs.set(record.runId, {
      version: record.version,
      current: record.id,
      asks: [record.id, ...(run?.asks ?? [])].slice(0, HISTORY_MAX),
      expiresAt: Math.max(run?.expiresAt ?? 0, now + args.ttlMs),
    });
    void this.bus.notifyHistory(record.id, record.runId);
    this.indexes.along(record.id, args.along);
    return { status: 'created', record, superseded: supersede?.next ?? null };
  }

  async get(askId: string): Promise<AskRecord | null> {
    const entry = live(this.asks, askId, this.tick());
    return entry ? (JSON.parse(entry.doc) as AskRecord) : null;
  }

  /** The record as stored: this process wrote every one, so its kept copy is never out of date. */
  peek(askId: string): KeptRecord | null {
    const entry = live(this.asks, askId, this.tick());
    return entry ? (JSON.parse(entry.doc) as AskRecord) : null;
  }

  /** {@link peek}: every write here lands before it returns. */
  async kept(askId: string): Promise<KeptRecord | null> {
    return this.peek(askId);
  }

  async getMany(askIds: readonly string[]): Promise<(AskRecord | null)[]> {
    return Promise.all(askIds.map((id) => this.get(id)));
  }

  async recent(limit: number): Promise<AskRecord[]> {
    const now = this.tick();
    const entry = this.indexes.entry('recent', now);
    if (!entry || limit <= 0) return [];
    return sortedByScore(entry.members, () => true)
      .reverse()
      .slice(0, limit)
      .flatMap((id) => {
        const ask = live(this.asks, id, now);
        return ask ? [JSON.parse(ask.doc) as AskRecord] : [];
      });
  }

  async pendingAsks(after: string | null, limit: number): Promise<PendingPage> {
    const now = this.tick();
    const entry = this.indexes.entry(PENDING, now);
    if (!entry || limit <= 0) return { asks: [], next: limit <= 0 ? after : null };
    const cursors = sortedByScore(entry.members, () => true)
      .filter((cursor) => after === null || cursor > after)
      .slice(0, limit);
    const asks: PendingPage['asks'] = [];
    for (const cursor of cursors) {
      const ask = live(this.asks, cursorAskId(cursor), now);
      if (ask?.status === 'pending') asks.push({ record: JSON.parse(ask.doc) as AskRecord, cursor });
      else entry.members.delete(cursor);
    }
    return { asks, next: cursors.length < limit ? null : cursors.at(-1)! };
  }

  async getRun(
    runId: string,
    opts: { pendingOnly?: boolean } = {},
  ): Promise<{ current: AskRecord | null; version: number }> {
    const now = this.tick();
    const run = live(this.runs, runId, now);
    if (!run) return { current: null, version: 0 };
    const entry = live(this.asks, run.current, now);
    const skip = !entry || (opts.pendingOnly === true && entry.status !== 'pending');
    return { current: skip ? null : (JSON.parse(entry.doc) as AskRecord), version: run.version };
  }

  async history(runId: string, limit: number): Promise<AskRecord[]> {
    const now = this.tick();
    const run = live(this.runs, runId, now);
    if (!run || limit <= 0) return [];
    return run.asks.slice(0, limit).flatMap((id) => {
      const entry = live(this.asks, id, now);
      return entry ? [JSON.parse(entry.doc) as AskRecord] : [];
    });
  }

  async commit(
    prev: AskRecord,
    next: AskRecord,
    opts: { ttlMs: number; publish: boolean; along?: AlongWrites },
  ): Promise<'ok' | 'conflict' | 'missing'> {
    if (next.id !== prev.id || next.runId !== prev.runId || next.rev !== prev.rev + 1) {
      throw new Error(`commit: next must keep id and runId and have rev ${prev.rev + 1} (got ${next.rev})`);
    }
    const now = this.tick();
    const entry = live(this.asks, prev.id, now);
    if (!entry) return 'missing';
    if (entry.rev !== prev.rev) return 'conflict';
    this.asks.set(prev.id, {
      runId: prev.runId,
      rev: next.rev,
      status: next.status,
      doc: JSON.stringify(next),
      expiresAt: now + opts.ttlMs,
    });
    const run = live(this.runs, prev.runId, now);
    if (run) run.expiresAt = Math.max(run.expiresAt, now + opts.ttlMs);
    if (entry.status === 'pending' && next.status !== 'pending') {
      this.indexes.entry(PENDING, now)?.members.delete(askCursor(prev));
      this.insights.settled(next);
    }
    if (opts.publish) this.bus.announce(prev.id);
    void this.bus.notifyHistory(prev.id, prev.runId);
    this.indexes.along(prev.id, opts.along);
    return 'ok';
  }

  async ping(): Promise<void> {}

  /** Number of live entries (records, runs, bindings, indexes), after dropping expired ones; for leak checks. */
  size(): number {
    this.purge(this.clock.now());
    return this.asks.size + this.runs.size + this.idem.size + this.indexes.size;
  }

  private tick(): number {
    const now = this.clock.now();
    if (now - this.lastPurge >= PURGE_EVERY_MS) this.purge(now);
    return now;
  }

  private purge(now: number): void {
    this.lastPurge = now;
    for (const map of [this.asks, this.runs, this.idem] as Map<string, Expiring>[]) {
      for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    }
    // A pending ask that expired without ending (its timeout lost) leaves the pending index too.
    const pending = this.indexes.entry(PENDING, now)?.members;
    for (const cursor of pending?.keys() ?? []) if (!this.asks.has(cursorAskId(cursor))) pending!.delete(cursor);
    this.indexes.purge(now);
  }
}
