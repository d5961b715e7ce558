import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STEPS } from '../../src/core/effects.js';
import { BullStepScheduler, QUEUE_EVENTS_MAX, STEP_QUEUE, stepBackoff } from '../../src/queue/bull-steps.js';
import { closeConnection, redisFactoryFromUrl, type RedisFactory } from '../../src/queue/connections.js';
import { queuePrefix } from '../contracts/queue.contract.js';
import { silentLogger } from '../helpers/logs.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

// A pending step job is one Redis hash per ask; these tests keep it in the compact listpack
// encoding (every field under hash-max-listpack-value, 64 B).

let redis: TestRedis;
let connect: RedisFactory;
let admin: Redis;
const open: Array<{ close(opts?: { force?: boolean }): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedis();
  connect = redisFactoryFromUrl(redis.url);
  admin = new Redis(redis.url);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close({ force: true })));
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.dispose();
});

/** Whether `key` is gone within 2 s (a finished job is removed just after its handler returns). */
async function gone(key: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if ((await admin.exists(key)) === 0) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

function scheduler(prefix: string): BullStepScheduler {
  const s = new BullStepScheduler({ connect, prefix, retryDelayMs: 50, logger: silentLogger });
  open.push(s);
  return s;
}

/** A bare BullMQ queue on the steps' queue, adding jobs as given. */
function rawQueue(prefix: string): Queue {
  const conn = connect('producer');
  const queue = new Queue(STEP_QUEUE, { connection: conn, prefix });
  open.push({ close: async () => void (await queue.close(), await closeConnection(conn)) });
  return queue;
}
/** Starts a scheduler and waits until `dropped` jobs are in the failed set; the asks it ran meanwhile. */
async function runUntilDropped(prefix: string, queue: Queue, dropped: number): Promise<string[]> {
  const s = scheduler(prefix);
  const fired: string[] = [];
  await s.start(Object.fromEntries(STEPS.map((step) => [step, async (askId: string) => void fired.push(askId)])));
  for (let i = 0; i < 250 && (await queue.getFailedCount()) < dropped; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await queue.getFailedCount()).toBe(dropped);
  return fired;
}

describe('step jobs: compact in Redis', () => {
  it.each([...STEPS])('a pending %s job is a listpack hash whose opts leave the id out', async (step) => {
    const prefix = queuePrefix();
    const askId = 'Ab3dEf6hIj9lMn'; // 14 characters, as newAskId() makes them
    await scheduler(prefix).schedule(askId, step, Date.now() + 3_600_000);
    const key = `${prefix}:${STEP_QUEUE}:${step}-${askId}`;
    expect(await admin.object('ENCODING', key)).toBe('listpack');
    const job = await admin.hgetall(key);
    expect(job.data).toBe('{}'); // the name is the step, the id names the ask
    expect(JSON.parse(job.opts!)).toEqual({ attempts: 5, backoff: { type: 'step' }, delay: expect.any(Number) });
  });

  it('runs each step with the ask its job id names, though the job carries no data', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const fired: string[] = [];
    const handlers = Object.fromEntries(
      STEPS.map((step) => [step, async (askId: string) => void fired.push(`${step} ${askId}`)]),
    );
    await s.start(handlers);
    await Promise.all(STEPS.map((step, i) => s.schedule(`ask-${i}-x`, step, Date.now())));
    await waitFor(() => fired.length === STEPS.length);
    expect(fired.sort()).toEqual(STEPS.map((step, i) => `${step} ask-${i}-x`).sort());
  });

  it('drops a job whose name is no step or whose id does not name an ask, and runs no handler', async () => {
    const prefix = queuePrefix();
    const queue = rawQueue(prefix);
    await queue.add('constructor', {}, { jobId: 'constructor-askX1' });
    await queue.add('timeout', {}, { jobId: 'remind-1-askX2' });
    await queue.add('timeout', {}, { jobId: 'timeout-' });
    await queue.add('timeout', { askId: 'askX3', extra: 1 }, { jobId: 'timeout-askX3' });
    expect(await runUntilDropped(prefix, queue, 4)).toEqual([]);
  });

  it('drops a job that carries data (the {askId, step} of pre-release builds), even one naming a known ask', async () => {
    const prefix = queuePrefix();
    const queue = rawQueue(prefix);
    await queue.add('timeout', { askId: 'askP1', step: 'timeout' }, { jobId: 'timeout-askP1' });
    await queue.add('timeout', { askId: 'askP2' }, { jobId: 'timeout-askP2' });
    expect(await runUntilDropped(prefix, queue, 2)).toEqual([]);
  });

  it('keeps the events stream of the queue to about QUEUE_EVENTS_MAX entries', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const at = Date.now() + 3_600_000;
    for (let i = 0; i < QUEUE_EVENTS_MAX + 500; i += 100)
      await Promise.all(Array.from({ length: 100 }, (_, j) => s.schedule(`askS${i + j}`, 'timeout', at)));
    expect(await admin.xlen(`${prefix}:${STEP_QUEUE}:events`)).toBeLessThanOrEqual(QUEUE_EVENTS_MAX + 100);
  });

  it('retries with the exponential delay computed by the worker', () => {
    expect([1, 2, 3, 4].map((n) => stepBackoff(1000, n))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('removes a completed job, so the same step of the ask can be scheduled and fire again', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const fired: string[] = [];
    await s.start({ timeout: async (askId) => void fired.push(askId) });
    await s.schedule('askC1', 'timeout', Date.now());
    await waitFor(() => fired.length === 1);
    expect(await gone(`${prefix}:${STEP_QUEUE}:timeout-askC1`)).toBe(true);
    await s.schedule('askC1', 'timeout', Date.now());
    await waitFor(() => fired.length === 2);
    expect(fired).toEqual(['askC1', 'askC1']);
  });
});
