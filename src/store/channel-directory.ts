// Conversations the channels learned (core/channel-ports.ts ChannelDirectory): one Redis hash per
// channel, so every replica posts to a conversation another one learned, and a restart forgets nothing.
import type { Cluster, Redis } from 'ioredis';
import type { ChannelDirectory, DirectoryEntry } from '../core/ports.js';
import { StoreKeys } from './keys.js';

/** Longest key and value kept: a conversation id and a reference are far shorter; larger ones are refused. */
export const DIRECTORY_KEY_MAX = 512;
export const DIRECTORY_VALUE_MAX = 8192;
/** Most conversations per channel kept in memory mode (the oldest learned are forgotten first). */
export const MEMORY_DIRECTORY_MAX = 100_000;

function checked(key: string, value?: string): void {
  if (key.length === 0 || key.length > DIRECTORY_KEY_MAX) throw new RangeError('directory key length out of range');
  if (value !== undefined && value.length > DIRECTORY_VALUE_MAX) throw new RangeError('directory value too long');
}

/** {@link ChannelDirectory} on Redis: the hash `<prefix>:directory:<channel>` (HSET, HGET, HSCAN). */
export class RedisChannelDirectory implements ChannelDirectory {
  private readonly keys: StoreKeys;

  constructor(
    private readonly redis: Redis | Cluster,
    opts: { prefix?: string } = {},
  ) {
    this.keys = new StoreKeys(opts.prefix);
  }

  async put(channel: string, key: string, value: string): Promise<void> {
    checked(key, value);
    await this.redis.hset(this.keys.directory(channel), key, value);
  }

  async get(channel: string, key: string): Promise<string | null> {
    checked(key);
    return this.redis.hget(this.keys.directory(channel), key);
  }

  async list(channel: string, page: { cursor?: string; limit: number }) {
    const start = page.cursor && /^\d+$/.test(page.cursor) ? page.cursor : '0';
    const [next, flat] = await this.redis.hscan(this.keys.directory(channel), start, 'COUNT', page.limit);
    const entries: DirectoryEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) entries.push({ key: flat[i]!, value: flat[i + 1]! });
    return next === '0' ? { entries } : { entries, cursor: next };
  }
}

/** {@link ChannelDirectory} in process memory (memory mode: one process, nothing survives a restart). */
export class MemoryChannelDirectory implements ChannelDirectory {
  private readonly byChannel = new Map<string, Map<string, string>>();

  async put(channel: string, key: string, value: string): Promise<void> {
    checked(key, value);
    let known = this.byChannel.get(channel);
    if (!known) this.byChannel.set(channel, (known = new Map()));
    known.delete(key); // re-learned: now the newest
    known.set(key, value);
    if (known.size > MEMORY_DIRECTORY_MAX) known.delete(known.keys().next().value!);
  }

  async get(channel: string, key: string): Promise<string | null> {
    checked(key);
    return this.byChannel.get(channel)?.get(key) ?? null;
  }

  async list(channel: string, page: { cursor?: string; limit: number }) {
    const all = [...(this.byChannel.get(channel) ?? new Map<string, string>())];
    const from = page.cursor && /^\d+$/.test(page.cursor) ? Number(page.cursor) : 0;
    const entries = all.slice(from, from + page.limit).map(([key, value]) => ({ key, value }));
    const next = from + page.limit;
    return next < all.length ? { entries, cursor: String(next) } : { entries };
  }
}
