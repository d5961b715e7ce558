import type { ConversationKey } from '../core/ports.js';

/** An entry with a deadline, honoured lazily. */
export interface Expiring {
  expiresAt: number;
}
/** A stored ask. */
export interface AskEntry extends Expiring {
  runId: string;
  rev: number;
  status: string;
  /** JSON, so callers never share objects with the store and reads match Redis round trips. */
  doc: string;
}
/** A run: its version, current ask and asks newest first. */
export interface RunEntry extends Expiring {
  version: number;
  current: string;
  asks: string[];
}
/** A sorted set. */
export interface IndexEntry extends Expiring {
  members: Map<string, number>;
}
/** A plain value. */
export interface ValueEntry<T> extends Expiring {
  value: T;
}

/** The entry at `key`, dropped when it has expired. */
export function live<T extends Expiring>(map: Map<string, T>, key: string, now: number): T | undefined {
  const entry = map.get(key);
  if (entry && entry.expiresAt <= now) {
    map.delete(key);
    return undefined;
  }
  return entry;
}

/** Members in Redis ZSET order: by score, then by member. */
export function sortedByScore(members: Map<string, number>, keep: (score: number) => boolean): string[] {
  return [...members]
    .filter(([, score]) => keep(score))
    .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0))
    .map(([id]) => id);
}

export const convKey = (conv: ConversationKey) => `conv\u0000${conv.channel}\u0000${conv.chat}`;
export const msgKey = (conv: ConversationKey, messageId: string) =>
  `${conv.channel}\u0000${conv.chat}\u0000${messageId}`;
