import { createHash } from 'node:crypto';
import { randomBytesPooled } from '../ids.js';
import type { Cluster, Redis } from 'ioredis';
import type { Clock, EventClaim, SeenEvents, SeenTtl } from '../core/ports.js';
import { BoundedMap } from '../core/bounded-map.js';
import { StoreKeys } from './keys.js';
import { runScript, type LuaScript } from './scripts.js';
import { systemClock } from '../system-clock.js';

// One string per event: `p:<leaseUntilMs>:<token>` while an attempt holds it (the lease has passed
// when leaseUntilMs is in the past), `d` once an attempt settled it. The key lives `keepMs` in both
// states, so a late re-send of an attempt that never settled is still known to be a retry.
const DONE = 'd';
const leaseValue = (untilMs: number, token: string) => `p:${untilMs}:${token}`;
const leaseEnd = (value: string) => Number(/^p:(\d+):/.exec(value)?.[1] ?? 0);

function lua(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** KEYS[1] seen key; ARGV[1] now ms, [2] the new lease value, [3] keep ms. Returns done | busy | new | retry. */
const CLAIM = lua(
  'seen-claim',
  `
local v = redis.call('GET', KEYS[1])
if v == 'd' then return 'done' end
local status = 'new'
if v then
  local untilMs = tonumber(string.match(v, '^p:(%d+):') or '0')
  if untilMs > tonumber(ARGV[1]) then return 'busy' end
  status = 'retry'
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return status
`,
);

/** KEYS[1] seen key; ARGV[1] keep ms. Returns 1 when this call settled the event, 0 when it was already settled. */
const SETTLE = lua(
  'seen-settle',
  `
if redis.call('GET', KEYS[1]) == 'd' then return 0 end
redis.call('SET', KEYS[1], 'd', 'PX', ARGV[1])
return 1
`,
);

/** KEYS[1] seen key; ARGV[1] this attempt's lease value, [2] the same lease ended, [3] keep ms. */
const RELEASE = lua(
  'seen-release',
  `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 0
`,
);

const newToken = () => randomBytesPooled(6).toString('base64url');

/**
 * {@link SeenEvents} on Redis: one key `<prefix>:seen:<channel>:<eventId>` per event (one slot per
 * command, so Redis Cluster works). A claim is one script call; settling is a second one, made only
 * before a visible effect.
 */
export class RedisSeenEvents implements SeenEvents {
  private readonly keys: StoreKeys;
  private readonly clock: Clock;

  constructor(
    private readonly redis: Redis | Cluster,
    opts: { prefix?: string; clock?: Clock } = {},
  ) {
    this.keys = new StoreKeys(opts.prefix);
    this.clock = opts.clock ?? systemClock;
  }

  async claim(channel: string, eventId: string, ttl: SeenTtl): Promise<EventClaim | 'done' | 'busy'> {
    const key = this.keys.seen(channel, eventId);
    const now = this.clock.now();
    const token = newToken();
    const mine = leaseValue(now + ttl.leaseMs, token);
    const status = String(await runScript(this.redis, CLAIM, [key], [now, mine, ttl.keepMs]));
    if (status === 'done' || status === 'busy') return status;
    return {
      status: status === 'retry' ? 'retry' : 'new',
      settle: async () => Number(await runScript(this.redis, SETTLE, [key], [ttl.keepMs])) === 1,
      release: async () => {
        await runScript(this.redis, RELEASE, [key], [mine, leaseValue(0, token), ttl.keepMs]);
      },
    };
  }
}

/** Most events {@link MemorySeenEvents} remembers; the oldest are forgotten first. */
export const MEMORY_SEEN_MAX = 100_000;

/** {@link SeenEvents} in process memory (memory mode: one process), same states as Redis. */
export class MemorySeenEvents implements SeenEvents {
  private readonly entries: BoundedMap<string, { value: string; expiresAt: number }>;

  constructor(
    private readonly clock: Clock = systemClock,
    max = MEMORY_SEEN_MAX,
  ) {
    this.entries = new BoundedMap(max);
  }

  async claim(channel: string, eventId: string, ttl: SeenTtl): Promise<EventClaim | 'done' | 'busy'> {
    const key = `${channel}\u0000${eventId}`;
    const now = this.clock.now();
    const current = this.read(key, now);
    if (current === DONE) return 'done';
    if (current !== undefined && leaseEnd(current) > now) return 'busy';
    const token = newToken();
    const mine = leaseValue(now + ttl.leaseMs, token);
    this.write(key, mine, now + ttl.keepMs);
    return {
      status: current === undefined ? 'new' : 'retry',
      settle: async () => {
        const at = this.clock.now();
        if (this.read(key, at) === DONE) return false;
        this.write(key, DONE, at + ttl.keepMs);
        return true;
      },
      release: async () => {
        const at = this.clock.now();
        if (this.read(key, at) === mine) this.write(key, leaseValue(0, token), at + ttl.keepMs);
      },
    };
  }

  private read(key: string, now: number): string | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  private write(key: string, value: string, expiresAt: number): void {
    this.entries.set(key, { value, expiresAt });
  }
}
