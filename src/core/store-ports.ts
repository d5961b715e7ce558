import type { AskRecord } from './schemas.js';
import type { InsightsSource } from './insights-report.js';

/** `T` with every property and array read-only, all the way down. */
export type DeepReadonly<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * A record as the store keeps it for this process ({@link AskStore.peek}, {@link AskStore.kept}):
 * one object shared by every reader, so nobody changes it (core builds a new record for every
 * change and only reads the one it was given).
 */
export type KeptRecord = DeepReadonly<AskRecord>;

/** Result of {@link AskStore.create}. */
export type CreateResult =
  | { status: 'created'; record: AskRecord; superseded: AskRecord | null }
  | { status: 'exists'; record: AskRecord }
  | { status: 'conflict' };

/** Arguments of {@link AskStore.create}. */
export interface CreateArgs {
  /** The new record (status pending, rev 0, version = run's last version + 1). */
  record: AskRecord;
  /** The run's version counter the caller read; the create fails with `conflict` if it moved. */
  expectedVersion: number;
  /** The run's pending ask as read (prev) and its superseded next state, when there was one. */
  supersede: { prev: AskRecord; next: AskRecord } | null;
  /** Time to live of the new record's keys, in ms. */
  ttlMs: number;
  /** Time to live for the superseded record, in ms (the retention window). */
  retentionMs: number;
  /** Index writes made in the same atomic step when the ask is created (stores with {@link AskStore.ordered}). */
  along?: AlongWrites;
}

/**
 * Index writes a store makes inside a create or commit, in the same atomic step and only when it
 * succeeds, instead of as separate commands before or after it. Only a store whose writes share
 * one ordered connection can (see {@link AskStore.ordered}): on Redis Cluster the indexes live in
 * other hash slots than the run's keys.
 */
export interface AlongWrites {
  /** {@link AskIndexes.markForSweep} of the ask at this time (a write-ahead mark). */
  mark?: number;
  /** {@link AskIndexes.unmarkSweep} of the ask. */
  unsweep?: boolean;
  /** {@link AskIndexes.rescheduleSweep} of the ask to `at`, only while its sweep time is still `from`. */
  later?: { at: number; from: number };
  /** {@link AskIndexes.removeFromConversation} of the ask from each. */
  leave?: ConversationKey[];
}

/** Result of {@link AskStore.claimIdempotencyKey}. */
export interface IdempotencyClaim {
  /** The ask id bound to the key: the caller's own when it won, else the earlier one. */
  askId: string;
  /** Hash of the request body that first claimed the key. */
  requestHash: string;
  /** True when this call claimed the key. */
  won: boolean;
}

/** A conversation on a platform: where text replies are routed from. */
export interface ConversationKey {
  channel: string;
  chat: string;
}

/**
 * Durable storage of ask records (the indexes beside them are {@link AskIndexes}). Every state change is one atomic compare-and-set on the record's
 * `rev`; implementations: Redis (Lua) and memory. All methods are safe to call concurrently.
 */
export interface AskStore {
  /**
   * True when every write goes down one ordered connection (memory, a standalone Redis; not Redis
   * Cluster): writes sent together land in order, and {@link AlongWrites} are accepted.
   */
  readonly ordered: boolean;
  /** The insights counters a settling commit keeps (core/insights.ts), and the pending figures. */
  readonly insights?: InsightsSource;
  /** Binds an idempotency key to an ask id (SET NX semantics); returns the winning binding. */
  claimIdempotencyKey(key: string, requestHash: string, askId: string, ttlMs: number): Promise<IdempotencyClaim>;
  /**
   * Creates a record atomically: `exists` when the ask id already exists (idempotent retry),
   * `conflict` when the run's version or the superseded record's rev moved (re-read and retry).
   * A superseded record that reaches a terminal state is published on the result bus. Both
   * records' history growth is announced on the bus (`notifyHistory`) in the same atomic step,
   * and `args.along` made (only on an {@link ordered} store) when the ask is created.
   */
  create(args: CreateArgs): Promise<CreateResult>;
  /** Reads a record by ask id, or null when unknown or expired. */
  get(askId: string): Promise<AskRecord | null>;
  /**
   * The record as this process last wrote or read it, while it still keeps it (bounded), without
   * a read; null otherwise, and while a write of it by this process is in flight. It may be out of
   * date (another process changed the ask since): it may let work go on where a compare-and-set
   * rejects a stale copy, and a copy that says the ask ended may be reported (an ended ask's result
   * never changes), but a copy that would turn work away is checked on a fresh read (app/kept-copy.ts).
   */
  peek(askId: string): KeptRecord | null;
  /**
   * {@link peek} once the writes of the ask this process has in flight now have landed (a read
   * sent now would wait for them too, on the same connection): the kept copy is then the one they
   * wrote. Null when there is none (one is in flight again, or nothing is kept).
   */
  kept(askId: string): Promise<KeptRecord | null>;
  /** {@link get} of each id, in order, in fewer round trips where the store can (the reconciler's batches). */
  getMany(askIds: readonly string[]): Promise<(AskRecord | null)[]>;
  /**
   * The run's latest ask (pending or not; with `pendingOnly`, null unless it is pending, which
   * saves reading an ended one) and its version counter (0 for an unknown run).
   */
  getRun(runId: string, opts?: { pendingOnly?: boolean }): Promise<{ current: AskRecord | null; version: number }>;
  /** The run's asks, newest first, at most `limit`. */
  history(runId: string, limit: number): Promise<AskRecord[]>;
  /**
   * Replaces `prev` with `next` if the stored rev still equals `prev.rev` (`next.rev` must be
   * `prev.rev + 1`). With `publish`, announces `next.id` on the result bus in the same atomic step;
   * every commit also announces the history growth (`notifyHistory`) in that step, and makes
   * `along` (only on an {@link ordered} store) when it succeeds.
   */
  commit(
    prev: AskRecord,
    next: AskRecord,
    opts: { ttlMs: number; publish: boolean; along?: AlongWrites },
  ): Promise<'ok' | 'conflict' | 'missing'>;

  /** The most recently created asks (pending or not), newest first, at most `limit`. */
  recent(limit: number): Promise<AskRecord[]>;

  /**
   * Pending asks, oldest first, whose cursor (`askCursor`, core/ask-listing.ts) comes after `after` (null: from the first),
   * reading at most `limit` entries of the pending index (written with each create and terminal
   * commit). Entries of asks that ended or expired are left out and dropped. `next`: the cursor to
   * go on from, null once the index is read to its end.
   */
  pendingAsks(after: string | null, limit: number): Promise<PendingPage>;

  /** Throws when the store cannot serve requests. */
  ping(): Promise<void>;
}

/**
 * The indexes beside the records: when the reconciler looks at an ask next, which asks wait for
 * replies in a conversation, and which ask a platform message belongs to. Each method is one
 * atomic operation; implementations: Redis (sorted sets and keys) and memory.
 */
export interface AskIndexes {
  /**
   * Schedules the reconciler to look at an ask at `atMs` or earlier: the earlier of the existing
   * and the new time, and always a change of the stored time (1 ms earlier when the existing one
   * is already earlier), so a reconciler pass that read the ask before this mark cannot move it
   * later ({@link rescheduleSweep} with `seenAt`).
   */
  markForSweep(askId: string, atMs: number): Promise<void>;
  /** Asks whose sweep time is at or before `nowMs`, oldest first, with that time. */
  dueForSweep(nowMs: number, limit: number): Promise<SweepEntry[]>;
  /**
   * Sets the next sweep time of an ask; with `seenAt`, only if its sweep time is still the one
   * listed by {@link dueForSweep} (returns false when it moved: someone marked it meanwhile).
   */
  rescheduleSweep(askId: string, atMs: number, seenAt?: number): Promise<boolean>;
  /** {@link rescheduleSweep} of each entry, in order, in one atomic step where the store can. */
  rescheduleSweeps(entries: readonly SweepMove[]): Promise<boolean[]>;
  /** Removes an ask from the sweep index. */
  unmarkSweep(askId: string): Promise<void>;

  /** Records that an ask waits for replies in a conversation until `untilMs`. */
  addToConversation(conv: ConversationKey, askId: string, untilMs: number): Promise<void>;
  /** Removes an ask from a conversation's pending set. */
  removeFromConversation(conv: ConversationKey, askId: string): Promise<void>;
  /** Ask ids waiting in a conversation whose `untilMs` is after `nowMs`. */
  pendingInConversation(conv: ConversationKey, nowMs: number): Promise<string[]>;
  /** Maps a platform message id to its ask, so replies to that message find the ask. */
  bindMessage(conv: ConversationKey, messageId: string, askId: string, ttlMs: number): Promise<void>;
  /** The ask a platform message belongs to, or null. */
  findByMessage(conv: ConversationKey, messageId: string): Promise<string | null>;
}

/** A page of {@link AskStore.pendingAsks}: each pending ask with its cursor, and where to go on. */
export interface PendingPage {
  asks: { record: AskRecord; cursor: string }[];
  next: string | null;
}

/** An ask due for the reconciler, with the sweep time it was listed at. */
export interface SweepEntry {
  askId: string;
  at: number;
}

/** The next sweep time of an ask, written only while its sweep time is still `seenAt` (when given). */
export interface SweepMove {
  askId: string;
  at: number;
  seenAt?: number;
}

/** Wakes waiters when an ask reaches a terminal state, across processes. */
export interface ResultBus {
  /** Calls `listener` when `askId` is announced; returns an unsubscribe function. */
  subscribe(askId: string, listener: () => void): () => void;
  /** Calls `listener` whenever the history of any ask grows; returns an unsubscribe function. */
  subscribeHistory(listener: (askId: string, runId: string) => void): () => void;
  /**
   * Calls `listener` when announcements may have been missed: the subscription is back after its
   * connection dropped (pub/sub is at-most-once). Listeners re-read what they wait for. Returns an
   * unsubscribe function.
   */
  onResync(listener: () => void): () => void;
  /** Announces that an ask's history grew; stores that cannot do it atomically call it (best effort, readers re-read). */
  notifyHistory(askId: string, runId: string): Promise<void>;
  /** Stops delivering and unsubscribes; connections passed in stay open for their owner to close. */
  close(): Promise<void>;
}
