import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { sleep, waitFor } from '../helpers/wait.js';
import {
  connectWithRetry,
  createStoreConnection,
  createSubscriberConnection,
  isRedisUnavailable,
  STORE_SOCKET_TIMEOUT_MS,
  storeRetryDelayMs,
  watchConnection,
} from '../../src/store/redis-setup.js';
import type { Logger } from '../../src/core/ports.js';
import { seeded } from '../helpers/seeded.js';

/**
 * R9 at the connection level: askgate's store connection (built by the same factory as in
 * `main.ts`) behind the TCP fault proxy, under a steady load of commands batched per turn, through
 * the ways the reliability run cuts the link. After every heal the connection must answer again
 * within RECOVERY_MS, every command that failed meanwhile must have failed as "Redis unavailable"
 * (the API's 503), and no reply may ever reach the wrong command.
 */

/** Heal → first successful command: the reconnect delay (≤ 1.1 s) plus the handshake, with room for a loaded machine. */
const RECOVERY_MS = 2500;

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const random = seeded(9);
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo));

let redis: TestRedis;
let proxy: FaultProxy;
let conn: Redis;
const recoveries: Record<string, number[]> = {};
const load = {
  ok: 0,
  unavailable: 0,
  other: [] as string[],
  mismatches: [] as string[],
  running: true,
  done: Promise.resolve(),
};

/** What askgate's hot path looks like to the connection: writes, reads and scripts issued together, several in flight. */
async function runLoad(): Promise<void> {
  let inFlight = 0;
  for (let i = 0; load.running; i++) {
    if (inFlight < 60) {
      const key = `rc:${i % 40}`;
      const value = `v${i}`;
      const settle = <T>(p: Promise<T>, check: (v: T) => void) => {
        inFlight++;
        p.then(
          (v) => {
            load.ok++;
            check(v);
          },
          (err: Error) => {
            if (isRedisUnavailable(err)) load.unavailable++;
            else load.other.push(err.message);
          },
        ).finally(() => inFlight--);
      };
      // Same turn: one batch, in order, so the GET must see this SET (unless one of them failed).
      let wrote = false;
      settle(conn.set(key, value, 'PX', 60_000), () => (wrote = true));
      settle(conn.get(key), (v) => {
        if (wrote && v !== value) load.mismatches.push(`GET ${key}: ${v} instead of ${value}`);
      });
      settle(conn.eval('return ARGV[1]', 0, value), (v) => {
        if (v !== value) load.mismatches.push(`EVAL echoed ${String(v)} instead of ${value}`);
      });
      settle(conn.hset(`rc:h:${i % 10}`, 'doc', 'x'.repeat(2000 + (i % 5) * 3000)), () => {});
    }
    await sleep(10);
  }
  while (inFlight > 0) await sleep(10);
}

/** Heals the proxy and returns how long the connection took to answer a PING again (at most `withinMs`). */
async function healAndMeasure(scenario: string, withinMs = RECOVERY_MS): Promise<number> {
  proxy.heal();
  const healed = Date.now();
  for (;;) {
    try {
      await conn.ping();
      break;
    } catch {
      if (Date.now() - healed > withinMs + 5000) break;
      await sleep(10);
    }
  }
  const ms = Date.now() - healed;
  (recoveries[scenario] ??= []).push(ms);
  expect(ms, `${scenario}: connection status ${conn.status} ${ms} ms after the heal`).toBeLessThan(withinMs);
  expect(conn.status).toBe('ready');
  return ms;
}

/** A reset rule that fires on the first `n` matching chunks (then leaves the link alone), and counts its hits. */
function firstN(n: number, match: (chunk: Buffer, direction: 'up' | 'down') => boolean) {
  const rule = {
    n,
    hits: 0,
    resetWhen: (chunk: Buffer, direction: 'up' | 'down') => rule.hits < n && match(chunk, direction) && ++rule.hits > 0,
  };
  return rule;
}

/** Case-insensitive: ioredis sends command names in lower case. */
const has = (chunk: Buffer, text: string) => chunk.toString('latin1').toLowerCase().includes(text.toLowerCase());

beforeAll(async () => {
  redis = await startRedis();
  proxy = await FaultProxy.start(redis.port, seeded(4));
  conn = createStoreConnection(proxy.redisUrl);
  watchConnection(conn, 'store', quiet);
  await connectWithRetry(conn, quiet, 5000);
  load.done = runLoad();
});

afterAll(async () => {
  load.running = false;
  await load.done;
  if (process.env.REDIS_RECONNECT_REPORT) {
    for (const [scenario, ms] of Object.entries(recoveries))
      console.log(
        `${scenario}: n=${ms.length} median ${[...ms].sort((a, b) => a - b)[ms.length >> 1]} ms, max ${Math.max(...ms)} ms`,
      );
    console.log(
      `load: ${load.ok} ok, ${load.unavailable} unavailable, ${load.other.length} other, ${load.mismatches.length} mismatches`,
    );
  }
  conn?.disconnect();
  await proxy?.close();
  await redis?.dispose();
});

describe('store connection behind a faulty link (R9)', () => {
  it('reconnects with a delay capped at 1.1 s and never gives up on its own', () => {
    const delays = Array.from({ length: 40 }, (_, i) => storeRetryDelayMs(i + 1));
    expect(delays[0]).toBeLessThan(150);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1100);
    expect(delays.every((d) => Number.isFinite(d) && d >= 50)).toBe(true);
  });

  it('link cut (every connection reset, new ones accepted and closed at once) for 0.3–3 s, and once for 5 s: back within 2.5 s of the heal', async () => {
    for (const outageMs of [between(300, 1000), between(1000, 3000), between(300, 3000), between(2000, 3000), 5000]) {
      proxy.set({ refuse: true });
      proxy.cutAll();
      await sleep(outageMs);
      await healAndMeasure('cut');
    }
  });

  it('flapping link: refused in bursts of 20–150 ms, so reconnects die mid-handshake with EPIPE / ECONNRESET', async () => {
    for (let round = 0; round < 3; round++) {
      const until = Date.now() + 2000;
      proxy.cutAll();
      while (Date.now() < until) {
        proxy.set({ refuse: true });
        await sleep(between(20, 150));
        proxy.set({ refuse: false });
        await sleep(between(0, 60));
        if (random() < 0.5) proxy.cutAll();
      }
      await healAndMeasure('flapping');
    }
  });

  it('cut at each step of the handshake: HELLO, CLIENT SETINFO, the INFO ready check, and the INFO reply', async () => {
    const points: [string, (chunk: Buffer, direction: 'up' | 'down') => boolean][] = [
      ['hello', (c, d) => d === 'up' && has(c, 'HELLO')],
      ['setinfo', (c, d) => d === 'up' && has(c, 'SETINFO')],
      ['info', (c, d) => d === 'up' && has(c, '$4\r\ninfo\r\n')],
      ['info-reply', (c, d) => d === 'down' && has(c, 'redis_version')],
    ];
    for (const [point, match] of points) {
      // Several reconnects in a row die at that point, then the link is left alone.
      const rule = firstN(between(2, 5), match);
      proxy.set({ resetWhen: rule.resetWhen });
      proxy.cutAll();
      await waitFor(() => rule.hits === rule.n, 10_000);
      await healAndMeasure(`handshake-${point}`);
    }
  });

  it('blackhole, then the link cut; and round trips beyond the command timeout, then the link cut', async () => {
    proxy.set({ blackhole: true });
    await sleep(2000);
    proxy.heal();
    await sleep(between(0, 300));
    proxy.set({ refuse: true });
    proxy.cutAll();
    await sleep(2000);
    await healAndMeasure('blackhole-then-cut');

    proxy.set({ latencyMs: 900 });
    await sleep(2500);
    proxy.heal();
    await sleep(between(0, 500));
    proxy.set({ refuse: true });
    proxy.cutAll();
    await sleep(3000);
    await healAndMeasure('slow-then-cut');
  });

  it('link cut during a blackhole: the reconnect is accepted and never answered (a hung proxy); the handshake is given up and retried, back after the heal', async () => {
    proxy.set({ blackhole: true });
    proxy.cutAll();
    // Reconnects made now reach a peer that accepted and stays silent, even after the heal.
    await waitFor(() => conn.status === 'connect', 5000);
    await sleep(between(1000, 2000));
    await healAndMeasure('handshake-never-answered', STORE_SOCKET_TIMEOUT_MS + RECOVERY_MS);
  });

  it('the result bus subscriber (no command timeout): after the same hung reconnect it subscribes again and gets messages', async () => {
    const sub = createSubscriberConnection(proxy.redisUrl);
    watchConnection(sub, 'subscriber', quiet);
    const got: string[] = [];
    sub.on('message', (_channel: string, message: string) => got.push(message));
    try {
      await sub.subscribe('rc:bus');
      proxy.set({ blackhole: true });
      proxy.cutAll();
      await waitFor(() => sub.status === 'connect', 5000);
      await sleep(between(1000, 2000));
      proxy.heal();
      const healed = Date.now();
      // ioredis re-subscribes once it is ready again; publish until a message gets through.
      for (let i = 0; got.length === 0 && Date.now() - healed < STORE_SOCKET_TIMEOUT_MS + RECOVERY_MS; i++) {
        await conn.publish('rc:bus', `m${i}`).catch(() => 0);
        await sleep(50);
      }
      expect(got.length, `subscriber status ${sub.status} ${Date.now() - healed} ms after the heal`).toBeGreaterThan(0);
    } finally {
      sub.disconnect();
    }
  });

  it('while it was down every command failed as "Redis unavailable" (503), and no reply went to the wrong command', async () => {
    await sleep(500);
    expect(load.ok).toBeGreaterThan(200);
    expect(load.unavailable).toBeGreaterThan(0);
    expect(load.other).toEqual([]);
    expect(load.mismatches).toEqual([]);
  });
});
