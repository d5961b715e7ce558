// The one writer of the audit chain: whichever replica holds a short Redis lease reads the asks
// whose history grew and appends their new entries to the chain (see docs/audit.md).
import { randomUUID } from 'node:crypto';
import type { AskStore, Clock, Logger, ResultBus } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import { auditBodies, freshEntries, type AuditBody, type AuditTextPolicy } from '../core/audit/entry.js';
import { chainEntries, type ChainHead } from '../core/audit/chain.js';
import { decodeCursor, encodeCursor, type CursorMove, type RedisAuditChain } from '../store/audit-chain.js';
import { entryHash, sha256 } from './crypto.js';

/** Timing and sizes of the {@link AuditSequencer}; tests shorten them. */
export interface SequencerTuning {
  /** How often the lease is renewed and the asks announced since are read (ms). */
  tickMs: number;
  /** How long a lease lasts unrenewed: a dead holder's successor takes over after this (ms). */
  leaseMs: number;
  /** Asks read per batch. */
  batch: number;
  /** How often every stored ask is looked at again, in case an announcement was lost (ms). */
  rescanMs: number;
  /** How often old entries and stale cursors are trimmed (ms). */
  trimEveryMs: number;
}

/** Defaults of {@link SequencerTuning}. */
export const SEQUENCER_TUNING: SequencerTuning = {
  tickMs: 250,
  leaseMs: 5_000,
  batch: 100,
  rescanMs: 30 * 60_000,
  trimEveryMs: 10 * 60_000,
};

/** What the {@link AuditSequencer} works with. */
export interface SequencerDeps {
  chain: RedisAuditChain;
  store: Pick<AskStore, 'getMany'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'info'>;
  text: AuditTextPolicy;
  /** Entries recorded longer ago than this are trimmed. */
  retentionMs: number;
  /** A cursor untouched this long is dropped: longer than any ask record lives. */
  cursorHorizonMs: number;
  tuning?: Partial<SequencerTuning>;
}

/** Tries of one batch when another sequencer moved the head or a cursor meanwhile. */
const CONFLICT_TRIES = 5;

/**
 * Follows the history announcements of every replica; while holding the lease it reads the
 * announced asks in batches, maps their new history entries and appends them with a
 * compare-and-set on the chain's last hash that moves each ask's cursor in the same script: an
 * entry is appended once (a cursor that moved means another sequencer did it), and a crash before
 * the append leaves the cursor where it was (the entries come again). On taking the lease, after a
 * bus resync and every `rescanMs`, every stored ask is looked at (a lost announcement costs a
 * delay, not an entry, while the ask's record lives).
 */
export class AuditSequencer {
  private readonly tuning: SequencerTuning;
  private readonly token = randomUUID();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private leader = false;
  private head: ChainHead | null = null;
  private scanning: Promise<void> | null = null;
  private lastScan = 0;
  private lastTrim = 0;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: SequencerDeps) {
    this.tuning = { ...SEQUENCER_TUNING, ...deps.tuning };
  }

  /** Whether this replica holds the lease now. */
  get isLeader(): boolean {
    return this.leader;
  }

  start(): void {
    const offHistory = this.deps.bus.subscribeHistory((askId) => {
      if (this.leader) this.dirty.add(askId);
    });
    const offResync = this.deps.bus.onResync(() => {
      if (this.leader) this.rescan();
    });
    this.unsubscribe = () => {
      offHistory();
      offResync();
    };
    this.timer = setInterval(() => void this.tick(), this.tuning.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** One round: keep (or take) the lease, then append what was announced. Never overlaps itself. */
  tick(): Promise<void> {
    this.ticking ??= this.round().finally(() => (this.ticking = null));
    return this.ticking;
  }

  /** Until nothing announced is left (tests; a stop that wants the last entries written). */
  async drain(): Promise<void> {
    do {
      await this.tick();
      await this.scanning;
    } while (this.leader && this.dirty.size > 0);
  }

  /** Stops; gives the lease up so another replica takes over at once. Nothing is flushed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.ticking?.catch(() => undefined);
    if (this.leader) await this.deps.chain.release(this.token).catch(() => undefined);
    this.leader = false;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.deps.chain.lease(this.token, this.tuning.leaseMs);
      if (held && !this.leader) {
        this.deps.logger.info({ token: this.token }, 'audit sequencer: lease taken');
        this.head = null;
        this.rescan();
      }
      this.leader = held;
      if (!held) {
        this.dirty.clear();
        return;
      }
      const now = this.deps.clock.now();
      if (now - this.lastScan >= this.tuning.rescanMs) this.rescan();
      // Bounded by time: the lease is renewed between rounds, and a long backlog (a rescan of every
      // ask) must not outlast it and let a second sequencer in.
      const until = now + this.tuning.leaseMs / 2;
      while (this.dirty.size > 0 && !this.stopped && this.deps.clock.now() < until) {
        const ids = [...this.dirty].slice(0, this.tuning.batch);
        for (const id of ids) this.dirty.delete(id);
        await this.sequence(ids).catch((error: unknown) => {
          for (const id of ids) this.dirty.add(id);
          throw error;
        });
      }
      if (now - this.lastTrim >= this.tuning.trimEveryMs) {
        this.lastTrim = now;
        await this.deps.chain.trim(now - this.deps.retentionMs, now - this.deps.cursorHorizonMs);
      }
    } catch (error) {
      this.head = null;
      this.deps.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'audit sequencer round failed',
      );
    }
  }

  /** Marks every stored ask to be looked at (a SCAN, in the background). */
  private rescan(): void {
    this.lastScan = this.deps.clock.now();
    if (this.scanning) return;
    this.scanning = (async () => {
      for await (const ids of this.deps.chain.askIds()) for (const id of ids) this.dirty.add(id);
    })()
      .catch((error: unknown) => {
        this.lastScan = 0; // try again next round
        this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'audit rescan failed');
      })
      .finally(() => (this.scanning = null));
  }

  /** Appends the new entries of `askIds`, retrying on a conflict with another sequencer. */
  private async sequence(askIds: string[]): Promise<void> {
    const records = (await this.deps.store.getMany(askIds)).filter((r): r is AskRecord => r !== null);
    if (records.length === 0) return;
    for (let attempt = 1; ; attempt++) {
      const head = (this.head ??= await this.deps.chain.head());
      const stored = await this.deps.chain.cursors(records.map((r) => r.id));
      const bodies: AuditBody[] = [];
      const moves: CursorMove[] = [];
      records.forEach((record, i) => {
        const old = stored[i] ?? '';
        const { fresh, next, gap } = freshEntries(record.history, decodeCursor(old), sha256);
        if (gap)
          this.deps.logger.warn({ askId: record.id }, 'audit: history entries were trimmed before they were read');
        if (fresh.length === 0) return;
        bodies.push(...auditBodies(record, fresh, { text: this.deps.text, digest: sha256 }));
        moves.push({ askId: record.id, old, next: encodeCursor(next) });
      });
      if (bodies.length === 0) return;
      const now = this.deps.clock.now();
      const placed = chainEntries(head, bodies, now, entryHash);
      const expected = head.seq === 0 ? '' : head.hash;
      const outcome = await this.deps.chain.append(expected, placed.entries, moves, now);
      if (outcome === 'ok') {
        this.head = placed.head;
        return;
      }
      this.head = null; // another sequencer appended: read the head and the cursors again
      if (attempt >= CONFLICT_TRIES) throw new Error(`audit append: ${outcome} ${attempt} times in a row`);
    }
  }
}
