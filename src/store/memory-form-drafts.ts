import type { Draft } from '../core/form-draft-store.js';
import type { Clock, DraftKey, FormDraftStore, StoredDraft } from '../core/ports.js';
import { draftTtlMs, parseDraft } from './form-drafts.js';
import { systemClock } from '../system-clock.js';

/** Most drafts (and own-words pointers) {@link MemoryFormDrafts} keeps; the oldest are forgotten first. */
export const MEMORY_DRAFTS_MAX = 10_000;

interface Entry {
  rev: number;
  doc: string;
  closed: boolean;
  expiresAt: number;
}

/** {@link FormDraftStore} in process memory (memory mode: one process), with the rules of the Redis one. */
export class MemoryFormDrafts implements FormDraftStore {
  private readonly drafts = new Map<string, Entry>();
  private readonly pointers = new Map<string, { key: DraftKey; expiresAt: number }>();
  private readonly clock: Clock;

  constructor(private readonly opts: { clock?: Clock; retentionMs: number; max?: number }) {
    this.clock = opts.clock ?? systemClock;
  }

  async get(key: DraftKey): Promise<StoredDraft | null> {
    const entry = this.live(this.drafts, idOf(key));
    return entry ? { rev: entry.rev, draft: parseDraft(entry.doc), closed: entry.closed } : null;
  }

  async put(key: DraftKey, rev: number, draft: Draft): Promise<number | 'conflict' | 'closed'> {
    const id = idOf(key);
    const now = this.clock.now();
    const entry = this.live(this.drafts, id);
    if (entry?.closed) return 'closed';
    if ((entry?.rev ?? 0) !== rev) return 'conflict';
    this.drafts.delete(id); // re-inserted last: the oldest are trimmed first
    const expiresAt = now + draftTtlMs(draft.expiresAt, this.opts.retentionMs, now);
    this.drafts.set(id, { rev: rev + 1, doc: JSON.stringify(draft), closed: false, expiresAt });
    this.trim(this.drafts);
    return rev + 1;
  }

  async close(key: DraftKey): Promise<void> {
    const entry = this.live(this.drafts, idOf(key));
    if (entry) entry.closed = true;
  }

  async pointOwn(chat: string, promptId: string, key: DraftKey, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    const id = `${chat}\u0000${promptId}`;
    this.pointers.delete(id);
    this.pointers.set(id, { key: { ...key }, expiresAt: now + draftTtlMs(expiresAt, this.opts.retentionMs, now) });
    this.trim(this.pointers);
  }

  async ownOf(chat: string, promptId: string): Promise<DraftKey | null> {
    const entry = this.live(this.pointers, `${chat}\u0000${promptId}`);
    return entry ? { ...entry.key } : null;
  }

  private live<T extends { expiresAt: number }>(map: Map<string, T>, id: string): T | undefined {
    const entry = map.get(id);
    if (entry && entry.expiresAt <= this.clock.now()) {
      map.delete(id);
      return undefined;
    }
    return entry;
  }

  private trim(map: Map<string, unknown>): void {
    const max = this.opts.max ?? MEMORY_DRAFTS_MAX;
    for (const id of map.keys()) {
      if (map.size <= max) return;
      map.delete(id);
    }
  }
}

const idOf = (k: DraftKey) => `${k.askId}\u0000${k.chat}\u0000${k.messageId}`;
