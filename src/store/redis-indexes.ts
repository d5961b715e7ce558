import type { Redis, Cluster } from 'ioredis';
import type { AskIndexes, Clock, ConversationKey, SweepEntry, SweepMove } from '../core/ports.js';
import { indexTtl } from './along-ops.js';
import type { StoreKeys } from './keys.js';
import { RESWEEP_MANY, ZADD_EXPIRE, runScript } from './scripts.js';

/** A positive whole number of ms (PEXPIRE rejects 0, negatives and fractions). */
export function ttl(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** The index part of {@link RedisAskStore}: the sweep set, conversation sets and message bindings. */
export class RedisIndexes implements AskIndexes {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly keys: StoreKeys,
    private readonly clock: Clock,
  ) {}

  async markForSweep(askId: string, atMs: number): Promise<void> {
    await runScript(this.redis, ZADD_EXPIRE, [this.keys.sweep()], ['MARK', atMs, askId, this.indexTtl(atMs)]);
  }

  async dueForSweep(nowMs: number, limit: number): Promise<SweepEntry[]> {
    if (limit <= 0) return [];
    const flat = await this.redis.zrangebyscore(this.keys.sweep(), '-inf', nowMs, 'WITHSCORES', 'LIMIT', 0, limit);
    const due: SweepEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) due.push({ askId: flat[i]!, at: Number(flat[i + 1]) });
    return due;
  }

  async rescheduleSweep(askId: string, atMs: number, seenAt?: number): Promise<boolean> {
    const args =
      seenAt === undefined
        ? ['SET', atMs, askId, this.indexTtl(atMs)]
        : ['IF', atMs, askId, this.indexTtl(atMs), '', seenAt];
    return (await runScript(this.redis, ZADD_EXPIRE, [this.keys.sweep()], args)) === 0;
  }

  async rescheduleSweeps(entries: readonly SweepMove[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    const args: (string | number)[] = [this.indexTtl(Math.max(...entries.map((e) => e.at)))];
    for (const e of entries) args.push(e.askId, e.at, e.seenAt ?? '');
    const moved = (await runScript(this.redis, RESWEEP_MANY, [this.keys.sweep()], args)) as number[];
    return moved.map((m) => m === 1);
  }

  async unmarkSweep(askId: string): Promise<void> {
    await this.redis.zrem(this.keys.sweep(), askId);
  }

  async addToConversation(conv: ConversationKey, askId: string, untilMs: number): Promise<void> {
    await runScript(this.redis, ZADD_EXPIRE, [this.keys.conv(conv)], ['SET', untilMs, askId, this.indexTtl(untilMs)]);
  }

  async removeFromConversation(conv: ConversationKey, askId: string): Promise<void> {
    await this.redis.zrem(this.keys.conv(conv), askId);
  }

  async pendingInConversation(conv: ConversationKey, nowMs: number): Promise<string[]> {
    const key = this.keys.conv(conv);
    const replies = await this.redis
      .multi()
      .zremrangebyscore(key, '-inf', nowMs)
      .zrangebyscore(key, `(${nowMs}`, '+inf')
      .exec();
    if (!replies) throw new Error('pendingInConversation: transaction aborted');
    const [error, ids] = replies[1]!;
    if (error) throw error;
    return ids as string[];
  }

  async bindMessage(conv: ConversationKey, messageId: string, askId: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.msg(conv, messageId), askId, 'PX', ttl(ttlMs));
  }

  async findByMessage(conv: ConversationKey, messageId: string): Promise<string | null> {
    return this.redis.get(this.keys.msg(conv, messageId));
  }

  private indexTtl(scoreMs: number): number {
    return indexTtl(scoreMs, this.clock.now());
  }
}
