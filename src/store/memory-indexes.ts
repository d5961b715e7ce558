import type { AlongWrites, AskIndexes, ConversationKey, SweepEntry, SweepMove } from '../core/ports.js';
import { INDEX_TTL_MS } from './keys.js';
import {
  convKey,
  live,
  msgKey,
  sortedByScore,
  type Expiring,
  type IndexEntry,
  type ValueEntry,
} from './memory-entries.js';

/** The index part of {@link MemoryAskStore}: sorted sets (recent, sweep, conversations) and message bindings. */
export class MemoryIndexes implements AskIndexes {
  private readonly indexes = new Map<string, IndexEntry>();
  private readonly messages = new Map<string, ValueEntry<string>>();

  /** `tick` reads the store's clock (and purges now and then). */
  constructor(private readonly tick: () => number) {}

  async markForSweep(askId: string, atMs: number): Promise<void> {
    const members = this.index('sweep', atMs);
    const current = members.get(askId);
    members.set(askId, current === undefined || atMs < current ? atMs : current - 1);
  }

  async dueForSweep(nowMs: number, limit: number): Promise<SweepEntry[]> {
    const entry = live(this.indexes, 'sweep', this.tick());
    if (!entry || limit <= 0) return [];
    return sortedByScore(entry.members, (score) => score <= nowMs)
      .slice(0, limit)
      .map((askId) => ({ askId, at: entry.members.get(askId)! }));
  }

  async rescheduleSweep(askId: string, atMs: number, seenAt?: number): Promise<boolean> {
    const members = this.index('sweep', atMs);
    if (seenAt !== undefined && members.get(askId) !== seenAt) return false;
    members.set(askId, atMs);
    return true;
  }

  async rescheduleSweeps(entries: readonly SweepMove[]): Promise<boolean[]> {
    const moved: boolean[] = [];
    for (const e of entries) moved.push(await this.rescheduleSweep(e.askId, e.at, e.seenAt));
    return moved;
  }

  async unmarkSweep(askId: string): Promise<void> {
    live(this.indexes, 'sweep', this.tick())?.members.delete(askId);
  }

  async addToConversation(conv: ConversationKey, askId: string, untilMs: number): Promise<void> {
    this.index(convKey(conv), untilMs).set(askId, untilMs);
  }

  async removeFromConversation(conv: ConversationKey, askId: string): Promise<void> {
    live(this.indexes, convKey(conv), this.tick())?.members.delete(askId);
  }

  async pendingInConversation(conv: ConversationKey, nowMs: number): Promise<string[]> {
    const entry = live(this.indexes, convKey(conv), this.tick());
    if (!entry) return [];
    for (const [id, until] of entry.members) if (until <= nowMs) entry.members.delete(id);
    return sortedByScore(entry.members, () => true);
  }

  async bindMessage(conv: ConversationKey, messageId: string, askId: string, ttlMs: number): Promise<void> {
    this.messages.set(msgKey(conv, messageId), { value: askId, expiresAt: this.tick() + ttlMs });
  }

  async findByMessage(conv: ConversationKey, messageId: string): Promise<string | null> {
    return live(this.messages, msgKey(conv, messageId), this.tick())?.value ?? null;
  }

  /** Makes a create's or commit's along writes; synchronous, so inside the store's atomic step. */
  along(askId: string, writes: AlongWrites | undefined): void {
    if (!writes) return;
    // Each of these methods does all its work before its first await.
    if (writes.mark !== undefined) void this.markForSweep(askId, writes.mark);
    if (writes.unsweep) void this.unmarkSweep(askId);
    if (writes.later) void this.rescheduleSweep(askId, writes.later.at, writes.later.from);
    for (const conv of writes.leave ?? []) void this.removeFromConversation(conv, askId);
  }

  /** The live index at `key`, if any. */
  entry(key: string, now: number): IndexEntry | undefined {
    return live(this.indexes, key, now);
  }

  /** The members of an index, created if needed, its lifetime extended to cover `scoreMs`. */
  index(key: string, scoreMs: number): Map<string, number> {
    const now = this.tick();
    const entry = live(this.indexes, key, now) ?? { members: new Map<string, number>(), expiresAt: 0 };
    entry.expiresAt = Math.max(entry.expiresAt, now + INDEX_TTL_MS, scoreMs + INDEX_TTL_MS / 2);
    this.indexes.set(key, entry);
    return entry.members;
  }

  /** Drops expired bindings and indexes, and empty indexes. */
  purge(now: number): void {
    for (const map of [this.messages, this.indexes] as Map<string, Expiring>[]) {
      for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    }
    for (const [key, entry] of this.indexes) if (entry.members.size === 0) this.indexes.delete(key);
  }

  /** Number of live bindings and indexes (after a purge). */
  get size(): number {
    return this.messages.size + this.indexes.size;
  }
}
