import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { DraftSchema, type Draft } from '../core/form-draft-store.js';
import type { Clock, DraftKey, FormDraftStore, StoredDraft } from '../core/ports.js';
import { keptForMs } from '../core/retention.js';
import { DEFAULT_PREFIX } from './keys.js';
import { runScript, type LuaScript } from './scripts.js';
import { systemClock } from '../system-clock.js';

function lua(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS[1] draft hash (`rev`, `doc`, `closed`); ARGV[1] expected rev (0: absent), [2] doc, [3] ttl ms.
 * Returns the new rev, 0 when the stored rev moved, -1 when the message was finalized.
 */
const PUT = lua(
  'draft-put',
  `
if redis.call('HEXISTS', KEYS[1], 'closed') == 1 then return -1 end
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'doc', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return rev + 1
`,
);

/** KEYS[1] draft hash: marks it finalized, keeping its TTL; nothing when there is no draft. */
const CLOSE = lua(
  'draft-close',
  `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'closed', '1') end
return 0
`,
);

// Chat and message ids come from platforms; escaping keeps `<chat>:<messageId>` unambiguous and the hash tag whole.
const part = (s: string) => s.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The shortest life of a draft key, so a draft written just before its ask ends still lands. */
const MIN_TTL_MS = 1000;

/** How long a draft (or a pointer to it) lives: until the ask's record goes (its end plus retention). */
export function draftTtlMs(expiresAt: number, retentionMs: number, now: number): number {
  return Math.max(MIN_TTL_MS, Math.round(keptForMs(expiresAt, now, retentionMs)));
}

/** Reads a stored draft document; null for anything that does not parse (never trusted). */
export function parseDraft(doc: string | null | undefined): Draft | null {
  if (typeof doc !== 'string') return null;
  try {
    const parsed = DraftSchema.safeParse(JSON.parse(doc));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Reads a stored own-words pointer; null for anything malformed. */
function parsePointer(raw: string | null | undefined): DraftKey | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<Record<keyof DraftKey, unknown>>;
    return typeof v.askId === 'string' && typeof v.chat === 'string' && typeof v.messageId === 'string'
      ? { askId: v.askId, chat: v.chat, messageId: v.messageId }
      : null;
  } catch {
    return null;
  }
}

/**
 * {@link FormDraftStore} on Redis: a hash `<prefix>:draft:{<askId>}:<chat>:<messageId>` per draft
 * (`rev`, `doc`, `closed`), changed by scripts on that one key; own-words pointers are strings
 * `<prefix>:draftown:<chat>:<promptId>`. Every key expires with its ask's record.
 */
export class RedisFormDrafts implements FormDraftStore {
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly retentionMs: number;

  constructor(
    private readonly redis: Redis | Cluster,
    opts: { prefix?: string; clock?: Clock; retentionMs: number },
  ) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.clock = opts.clock ?? systemClock;
    this.retentionMs = opts.retentionMs;
  }

  async get(key: DraftKey): Promise<StoredDraft | null> {
    const [rev, doc, closed] = await this.redis.hmget(this.key(key), 'rev', 'doc', 'closed');
    if (!rev) return null;
    return { rev: Number(rev), draft: parseDraft(doc), closed: closed !== null };
  }

  async put(key: DraftKey, rev: number, draft: Draft): Promise<number | 'conflict' | 'closed'> {
    const ttl = draftTtlMs(draft.expiresAt, this.retentionMs, this.clock.now());
    const next = Number(await runScript(this.redis, PUT, [this.key(key)], [rev, JSON.stringify(draft), ttl]));
    return next > 0 ? next : next < 0 ? 'closed' : 'conflict';
  }

  async close(key: DraftKey): Promise<void> {
    await runScript(this.redis, CLOSE, [this.key(key)], []);
  }

  async pointOwn(chat: string, promptId: string, key: DraftKey, expiresAt: number): Promise<void> {
    const ttl = draftTtlMs(expiresAt, this.retentionMs, this.clock.now());
    await this.redis.set(this.ownKey(chat, promptId), JSON.stringify(key), 'PX', ttl);
  }

  async ownOf(chat: string, promptId: string): Promise<DraftKey | null> {
    return parsePointer(await this.redis.get(this.ownKey(chat, promptId)));
  }

  /** The key of one draft (exposed for tests that check TTLs and slots). */
  key(k: DraftKey): string {
    return `${this.prefix}:draft:{${part(k.askId)}}:${part(k.chat)}:${part(k.messageId)}`;
  }

  /** The key of one own-words pointer. */
  ownKey(chat: string, promptId: string): string {
    return `${this.prefix}:draftown:${part(chat)}:${part(promptId)}`;
  }
}
