import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BullTimeoutScheduler, type BullTimeoutOptions } from '../../src/queue/bull-timeouts.js';
import { redisFactoryFromUrl, type RedisFactory } from '../../src/queue/connections.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep, waitFor } from '../helpers/wait.js';

let redis: TestRedis;
let connect: RedisFactory;
const open: BullTimeoutScheduler[] = [];

const prefix = () => `{t${randomBytes(5).toString('hex')}}`;

function scheduler(opts: Partial<BullTimeoutOptions> & { prefix: string }): BullTimeoutScheduler {
  const s = new BullTimeoutScheduler({ connect, retryDelayMs: 50, onError: () => {}, ...opts });
  open.push(s);
  return s;
}

beforeAll(async () => {
  redis = await startRedis();
  connect = redisFactoryFromUrl(redis.url);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close({ force: true })));
});

afterAll(async () => {
  await redis?.dispose();
});

describe('BullTimeoutScheduler', () => {
  it('fires once, near the due time', async () => {
    const s = scheduler({ prefix: prefix() });
    const fired: Array<{ askId: string; at: number }> = [];
    await s.start(async (askId) => {
      fired.push({ askId, at: Date.now() });
    });
    const dueAt = Date.now() + 300;
    await s.schedule('askA1', dueAt);
    await waitFor(() => fired.length === 1);
    await sleep(200);
    expect(fired.map((f) => f.askId)).toEqual(['askA1']);
    // BullMQ computes the due time from its own Date.now() at add, a few ms after ours.
    expect(fired[0]!.at).toBeGreaterThanOrEqual(dueAt - 5);
    expect(fired[0]!.at - dueAt).toBeLessThan(1500);
  });

  it('schedules idempotently: the same ask twice fires once', async () => {
    const s = scheduler({ prefix: prefix() });
    const fired: string[] = [];
    await s.start(async (askId) => {
      fired.push(askId);
    });
    await s.schedule('askB1', Date.now() + 150);
    await s.schedule('askB1', Date.now() + 50);
    await waitFor(() => fired.length >= 1);
    await sleep(300);
    expect(fired).toEqual(['askB1']);
  });

  it('cancel prevents the firing; cancelling an unknown ask is harmless', async () => {
    const s = scheduler({ prefix: prefix() });
    const fired: string[] = [];
    await s.start(async (askId) => {
      fired.push(askId);
    });
    await s.schedule('askC1', Date.now() + 200);
    await s.schedule('askC2', Date.now() + 200);
    await s.cancel('askC1');
    await s.cancel('never-scheduled');
    await waitFor(() => fired.length === 1);
    await sleep(200);
    expect(fired).toEqual(['askC2']);
  });

  it('fires a timeout that came due while no worker ran, once a worker starts', async () => {
    const p = prefix();
    const producer = scheduler({ prefix: p });
    await producer.schedule('askD1', Date.now() + 50);
    await sleep(300);
    const fired: string[] = [];
    const worker = scheduler({ prefix: p });
    const startedAt = Date.now();
    await worker.start(async (askId) => {
      fired.push(askId);
    });
    await waitFor(() => fired.length === 1);
    expect(fired).toEqual(['askD1']);
    expect(Date.now() - startedAt).toBeLessThan(2000);
  });

  it('retries a timeout whose handler throws', async () => {
    const s = scheduler({ prefix: prefix() });
    let calls = 0;
    await s.start(async () => {
      calls += 1;
      if (calls === 1) throw new Error('redis blip');
    });
    await s.schedule('askE1', Date.now());
    await waitFor(() => calls === 2);
    await sleep(200);
    expect(calls).toBe(2);
  });

  it('re-runs a job whose worker died mid-handler (stalled job recovery)', async () => {
    const p = prefix();
    const tuning = { lockDurationMs: 600, stalledIntervalMs: 200 };
    const dying = scheduler({ prefix: p, ...tuning });
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    const firstRuns: string[] = [];
    await dying.start(async (askId) => {
      firstRuns.push(askId);
      await hung;
    });
    await dying.schedule('askF1', Date.now());
    await waitFor(() => firstRuns.length === 1);
    // A forced close stops lock renewal without finishing the job: what a killed process leaves.
    await dying.close({ force: true });

    const rescued: string[] = [];
    const survivor = scheduler({ prefix: p, ...tuning });
    await survivor.start(async (askId) => {
      rescued.push(askId);
    });
    await waitFor(() => rescued.length === 1, 8000);
    release();
    expect(rescued).toEqual(['askF1']);
  });

  it('fails fast when Redis was never reachable, went away, or hangs', async () => {
    const never = new BullTimeoutScheduler({ connect: redisFactoryFromUrl('redis://127.0.0.1:1'), producerDeadlineMs: 500, onError: () => {} });
    let started = Date.now();
    await expect(never.schedule('askG1', Date.now() + 1000)).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(1500);
    await never.close();

    const own = await startRedis();
    const s = new BullTimeoutScheduler({ connect: redisFactoryFromUrl(own.url, { commandTimeoutMs: 300 }), onError: () => {} });
    try {
      await s.schedule('askG2', Date.now() + 60_000);
      process.kill(own.pid(), 'SIGSTOP');
      started = Date.now();
      await expect(s.schedule('askG3', Date.now() + 60_000)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1500);
      process.kill(own.pid(), 'SIGCONT');
      await own.stop();
      started = Date.now();
      await expect(s.schedule('askG4', Date.now() + 60_000)).rejects.toThrow();
      await s.cancel('askG4'); // best effort: never throws
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      try {
        process.kill(own.pid(), 'SIGCONT');
      } catch {
        // already exited
      }
      await s.close();
      await own.dispose();
    }
  });
});
