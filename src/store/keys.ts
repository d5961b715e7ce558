import type { ConversationKey } from '../core/ports.js';

/** Default key prefix. */
export const DEFAULT_PREFIX = 'askgate';

/** Most ask ids kept in the global list of recent asks. */
export const RECENT_MAX = 1000;

/** Most ask ids kept in a run's history (its hash). */
export const HISTORY_MAX = 50;

/**
 * Lifetime of the shared index ZSETs (sweep, conversations), refreshed on every add so an idle
 * index disappears: 2 × (1 h longest timeout + 24 h retention).
 */
export const INDEX_TTL_MS = 2 * (3_600_000 + 86_400_000);

// Chat and message ids come from platforms; escaping ':' keeps `<chat>:<messageId>` unambiguous.
const part = (s: string) => s.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));

/**
 * Key builders. Every key of one run shares the hash tag `{<runId>}`, so a script touching a run's
 * keys lands in one hash slot (Redis Cluster).
 */
export class StoreKeys {
  constructor(readonly prefix: string = DEFAULT_PREFIX) {
    if (/[{}]/.test(prefix) || prefix === '')
      throw new Error(`invalid key prefix "${prefix}": must be non-empty without { or }`);
  }

  /**
   * Run hash: `version` and `<version>` → ask id for the run's last {@link HISTORY_MAX} versions
   * (its history; the current ask is the one of `version`).
   */
  run(runId: string): string {
    return `${this.prefix}:{${runId}}:run`;
  }

  /** Ask: a string `<rev> <status> ~<compact JSON>` (see store/ask-doc.ts). */
  ask(runId: string, askId: string): string {
    return `${this.prefix}:{${runId}}:ask:${askId}`;
  }

  /** String: ask id → run id (never changes once written). */
  idMap(askId: string): string {
    return `${this.prefix}:id:${askId}`;
  }

  /** String: JSON `{askId, requestHash}` bound to an idempotency key. */
  idem(key: string): string {
    return `${this.prefix}:idem:${key}`;
  }

  /** ZSET: ask id → creation time (ms), the newest {@link RECENT_MAX} asks of all runs. */
  recent(): string {
    return `${this.prefix}:recent`;
  }

  /** ZSET (every score 0, read in text order): `askCursor(record)` of every pending ask. */
  pending(): string {
    return `${this.prefix}:pending`;
  }

  /** One UTC day's insights counters (a hash; its own hash tag: one slot per day on a Cluster). */
  insights(day: string): string {
    return `${this.prefix}:insights:{${day}}`;
  }

  /** ZSET: ask id → next sweep time (ms). */
  sweep(): string {
    return `${this.prefix}:sweep`;
  }

  /** ZSET: ask id → time (ms) until which it waits for replies in the conversation. */
  conv(conv: ConversationKey): string {
    return `${this.prefix}:conv:${conv.channel}:${part(conv.chat)}`;
  }

  /** String: platform message → ask id. */
  msg(conv: ConversationKey, messageId: string): string {
    return `${this.prefix}:msg:${conv.channel}:${part(conv.chat)}:${part(messageId)}`;
  }

  /** String: a platform event's processing state (`p:<leaseUntilMs>:<token>` or `d`), see `seen-events.ts`. */
  seen(channel: string, eventId: string): string {
    return `${this.prefix}:seen:${channel}:${part(eventId)}`;
  }

  /** Hash: conversation key → what a channel keeps of it (`channel-directory.ts`); one per channel, one slot. */
  directory(channel: string): string {
    return `${this.prefix}:directory:${channel}`;
  }

  /** Pub/sub channel announcing ask ids that reached a terminal state. */
  resolvedChannel(): string {
    return `${this.prefix}:resolved`;
  }

  /** Pub/sub channel announcing `"<askId> <runId>"` whenever an ask's history grows. */
  historyChannel(): string {
    return `${this.prefix}:history`;
  }
}
