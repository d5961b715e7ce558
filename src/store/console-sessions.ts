import type { Cluster, Redis } from 'ioredis';
import type { ConsoleSessionStore } from '../console/session.js';
import type { Clock } from '../core/ports.js';
import { DEFAULT_PREFIX } from './keys.js';
import { systemClock } from '../system-clock.js';

/**
 * {@link ConsoleSessionStore} on Redis: one key `<prefix>:console:revoked:<sid>` per signed-out
 * session, set with `PX` to the cookie's remaining life, so it disappears when the cookie would
 * have expired anyway. One key per session keeps every command on one slot (Redis Cluster).
 */
export class RedisConsoleSessions implements ConsoleSessionStore {
  private readonly prefix: string;
  private readonly clock: Clock;

  constructor(
    private readonly redis: Redis | Cluster,
    opts: { prefix?: string; clock?: Clock } = {},
  ) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.clock = opts.clock ?? systemClock;
  }

  private key(sid: string): string {
    return `${this.prefix}:console:revoked:${sid}`;
  }

  async revoke(sid: string, untilMs: number): Promise<void> {
    const ttlMs = Math.ceil(untilMs - this.clock.now());
    if (ttlMs > 0) await this.redis.set(this.key(sid), '1', 'PX', ttlMs);
  }

  async revoked(sids: readonly string[]): Promise<Set<string>> {
    const unique = [...new Set(sids)];
    const found = await Promise.all(unique.map((sid) => this.redis.exists(this.key(sid))));
    return new Set(unique.filter((_, i) => found[i] === 1));
  }
}

/** {@link ConsoleSessionStore} in this process (memory mode: a single askgate, nothing survives a restart). */
export class MemoryConsoleSessions implements ConsoleSessionStore {
  /** sid → until when (epoch ms) it stays revoked. */
  private readonly until = new Map<string, number>();

  constructor(private readonly clock: Clock = systemClock) {}

  async revoke(sid: string, untilMs: number): Promise<void> {
    const now = this.clock.now();
    for (const [known, at] of this.until) if (at <= now) this.until.delete(known);
    if (untilMs > now) this.until.set(sid, untilMs);
  }

  async revoked(sids: readonly string[]): Promise<Set<string>> {
    const now = this.clock.now();
    return new Set(sids.filter((sid) => (this.until.get(sid) ?? 0) > now));
  }
}
