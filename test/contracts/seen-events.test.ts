import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventClaim, SeenEvents } from '../../src/core/ports.js';
import { StoreKeys } from '../../src/store/keys.js';
import { MemorySeenEvents, RedisSeenEvents } from '../../src/store/seen-events.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

const TTL = { leaseMs: 1000, keepMs: 60_000 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A clock the test moves by hand (lease ends are judged on it; key expiry is Redis's own). */
function manualClock() {
  let now = 1_750_000_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function claimed(result: EventClaim | 'done' | 'busy'): EventClaim {
  if (typeof result === 'string') throw new Error(`expected a claim, got ${result}`);
  return result;
}

let redis: TestRedis;
let conn: Redis;

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url);
});
afterAll(async () => {
  conn?.disconnect();
  await redis?.dispose();
});

const implementations: [string, (clock: { now(): number }, prefix: string) => SeenEvents][] = [
  ['redis', (clock, prefix) => new RedisSeenEvents(conn, { prefix, clock })],
  ['memory', (clock) => new MemorySeenEvents(clock)],
];

describe.each(implementations)('SeenEvents (%s)', (kind, make) => {
  const setup = () => {
    const clock = manualClock();
    const prefix = `t${randomBytes(4).toString('hex')}`;
    return { clock, prefix, seen: make(clock, prefix) };
  };

  it('new → busy while the lease runs → done once settled, on every instance sharing the store', async () => {
    const { seen, clock, prefix } = setup();
    const other = kind === 'redis' ? make(clock, prefix) : seen;
    const claim = claimed(await seen.claim('slack', 'Ev1', TTL));
    expect(claim.status).toBe('new');
    expect(await other.claim('slack', 'Ev1', TTL)).toBe('busy');
    expect(await claim.settle()).toBe(true);
    expect(await other.claim('slack', 'Ev1', TTL)).toBe('done');
    clock.advance(TTL.leaseMs * 10);
    expect(await seen.claim('slack', 'Ev1', TTL)).toBe('done');
  });

  it('a lease that ended unsettled (the attempt died) is taken over as a retry; only the first settle wins', async () => {
    const { seen, clock } = setup();
    const dead = claimed(await seen.claim('telegram', '42', TTL));
    clock.advance(TTL.leaseMs + 1);
    const retry = claimed(await seen.claim('telegram', '42', TTL));
    expect(retry.status).toBe('retry');
    expect(await seen.claim('telegram', '42', TTL)).toBe('busy');
    expect(await retry.settle()).toBe(true);
    // The first attempt was only slow, not dead: it must not show its effect as well.
    expect(await dead.settle()).toBe(false);
    expect(await retry.settle()).toBe(false); // the store answers once; channels memoise their own first answer
  });

  it('release frees the event at once, still marked as attempted (a retry); a stale release changes nothing', async () => {
    const { seen, clock } = setup();
    const failed = claimed(await seen.claim('slack', 'Ev2', TTL));
    await failed.release();
    const next = claimed(await seen.claim('slack', 'Ev2', TTL));
    expect(next.status).toBe('retry');
    await failed.release(); // not the holder any more
    expect(await seen.claim('slack', 'Ev2', TTL)).toBe('busy');
    await next.settle();
    await next.release(); // settled: nothing to give up
    clock.advance(1);
    expect(await seen.claim('slack', 'Ev2', TTL)).toBe('done');
  });

  it('channels and hostile ids never collide (":" and "%" in ids, other channels, unicode, long ids)', async () => {
    const { seen } = setup();
    const ids = ['a:b', 'a%3Ab', 'a', 'b', ':', '%', '__proto__', 'constructor', 'é\u200b', 'x'.repeat(500)];
    for (const id of ids) expect(claimed(await seen.claim('slack', id, TTL)).status).toBe('new');
    for (const id of ids) expect(claimed(await seen.claim('discord', id, TTL)).status).toBe('new');
    for (const id of ids) expect(await seen.claim('slack', id, TTL)).toBe('busy');
  });

  it('forgets an event after keepMs', async () => {
    const { seen, clock } = setup();
    const ttl = { leaseMs: 50, keepMs: 150 };
    await claimed(await seen.claim('discord', 'm1', ttl)).settle();
    expect(await seen.claim('discord', 'm1', ttl)).toBe('done');
    clock.advance(200);
    await sleep(200); // Redis expires keys on its own clock
    expect(claimed(await seen.claim('discord', 'm1', ttl)).status).toBe('new');
  });
});

describe('RedisSeenEvents keys', () => {
  it('one key per event, `<prefix>:seen:<channel>:<id>`, with a TTL of keepMs in both states', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const seen = new RedisSeenEvents(conn, { prefix });
    const claim = claimed(await seen.claim('telegram', '7:99', { leaseMs: 10_000, keepMs: 86_400_000 }));
    const key = new StoreKeys(prefix).seen('telegram', '7:99');
    expect(key).toBe(`${prefix}:seen:telegram:7%3A99`);
    expect(await conn.get(key)).toMatch(/^p:\d+:[\w-]+$/);
    expect(await conn.pttl(key)).toBeGreaterThan(86_000_000);
    await claim.settle();
    expect(await conn.get(key)).toBe('d');
    expect(await conn.pttl(key)).toBeGreaterThan(86_000_000);
    expect(await conn.keys(`${prefix}:*`)).toEqual([key]);
  });

  it('an unreachable store makes claim throw (the caller fails the request so the platform re-sends)', async () => {
    const dead = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    await expect(new RedisSeenEvents(dead).claim('slack', 'Ev9', TTL)).rejects.toThrow();
    dead.disconnect();
  });
});

describe('MemorySeenEvents', () => {
  it('keeps at most `max` events, forgetting the oldest first', async () => {
    const seen = new MemorySeenEvents(manualClock(), 3);
    for (const id of ['1', '2', '3', '4']) await seen.claim('telegram', id, TTL);
    expect(claimed(await seen.claim('telegram', '1', TTL)).status).toBe('new');
    expect(await seen.claim('telegram', '4', TTL)).toBe('busy');
  });
});
