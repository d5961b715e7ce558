import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { ChannelError, type OutboxJob } from '../../src/core/ports.js';
import { BullOutbox, type BullOutboxOptions } from '../../src/queue/bull-outbox.js';
import { BullTimeoutScheduler, TIMEOUT_QUEUE, type BullTimeoutOptions } from '../../src/queue/bull-timeouts.js';
import { redisFactoryFromCluster, type RedisFactory } from '../../src/queue/connections.js';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';
import { sleep, waitFor } from '../helpers/wait.js';

// The queue behaviours of test/integration/queue-*.test.ts, on a 3-primary Redis Cluster through
// askgate's own cluster connection factory and a hash-tagged BullMQ prefix.

let cluster: TestCluster;
let connect: RedisFactory;
const open: Array<{ close(opts?: { force?: boolean }): Promise<void> }> = [];
const prefix = () => `{t${randomBytes(5).toString('hex')}}`;

function scheduler(opts: Partial<BullTimeoutOptions> = {}): BullTimeoutScheduler {
  const s = new BullTimeoutScheduler({ connect, prefix: prefix(), retryDelayMs: 50, onError: () => {}, ...opts });
  open.push(s);
  return s;
}

function outbox(opts: Partial<BullOutboxOptions> = {}): BullOutbox {
  const o = new BullOutbox({ connect, prefix: prefix(), baseDelayMs: 50, maxDelayMs: 400, onError: () => {}, ...opts });
  open.push(o);
  return o;
}

function recorder(behave: (job: OutboxJob, attempt: number) => void | Promise<void> = () => {}) {
  const runs: Array<{ job: OutboxJob; at: number }> = [];
  const giveUps: Array<{ job: OutboxJob; error: Error }> = [];
  const handlers = {
    async run(job: OutboxJob) {
      runs.push({ job, at: Date.now() });
      await behave(job, runs.filter((r) => r.job.askId === job.askId).length);
    },
    async giveUp(job: OutboxJob, error: Error) {
      giveUps.push({ job, error });
    },
  };
  return { runs, giveUps, handlers };
}

const deliver = (askId: string, index = 0): OutboxJob => ({ kind: 'deliver', askId, index });

beforeAll(async () => {
  cluster = await startCluster();
  connect = redisFactoryFromCluster({ nodes: cluster.seeds });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close({ force: true })));
});

afterAll(async () => {
  await cluster?.stop();
});

describe('BullTimeoutScheduler on a Redis Cluster', () => {
  it('the factory builds Cluster connections, and every key of a queue shares its hash slot', async () => {
    const p = prefix();
    const s = scheduler({ prefix: p });
    await s.start(async () => {});
    await s.schedule('askSlot1', Date.now() + 60_000);
    const probe = connect('worker');
    try {
      expect(probe).toBeInstanceOf(Cluster);
      await probe.ping();
      const keys: string[] = [];
      for (const node of (probe as Cluster).nodes('master')) keys.push(...(await node.keys(`${p}:${TIMEOUT_QUEUE}:*`)));
      expect(keys.length).toBeGreaterThan(2);
      const slots = new Set(await Promise.all(keys.map((k) => (probe as Cluster).cluster('KEYSLOT', k))));
      expect(slots.size).toBe(1);
    } finally {
      await probe.quit();
    }
  });

  it('fires once, near the due time', async () => {
    const s = scheduler();
    const fired: Array<{ askId: string; at: number }> = [];
    await s.start(async (askId) => void fired.push({ askId, at: Date.now() }));
    const dueAt = Date.now() + 300;
    await s.schedule('askA1', dueAt);
    await waitFor(() => fired.length === 1);
    await sleep(200);
    expect(fired.map((f) => f.askId)).toEqual(['askA1']);
    expect(fired[0]!.at).toBeGreaterThanOrEqual(dueAt - 5);
    expect(fired[0]!.at - dueAt).toBeLessThan(1500);
  });

  it('schedules idempotently, cancels, and fires a job that came due while no worker ran', async () => {
    const p = prefix();
    const producer = scheduler({ prefix: p });
    await producer.schedule('askB1', Date.now() + 150);
    await producer.schedule('askB1', Date.now() + 50);
    await producer.schedule('askC1', Date.now() + 100);
    await producer.cancel('askC1');
    await producer.cancel('never-scheduled');
    await sleep(300);
    const fired: string[] = [];
    await scheduler({ prefix: p }).start(async (askId) => void fired.push(askId));
    await waitFor(() => fired.length >= 1, 3000);
    await sleep(300);
    expect(fired).toEqual(['askB1']);
  });

  it('retries a handler that throws, and re-runs a job whose worker died mid-handler', async () => {
    const s = scheduler();
    let calls = 0;
    await s.start(async () => {
      calls += 1;
      if (calls === 1) throw new Error('redis blip');
    });
    await s.schedule('askE1', Date.now());
    await waitFor(() => calls === 2);

    const p = prefix();
    const tuning = { prefix: p, lockDurationMs: 600, stalledIntervalMs: 200 };
    const dying = scheduler(tuning);
    const firstRuns: string[] = [];
    await dying.start(async (askId) => {
      firstRuns.push(askId);
      await new Promise(() => {});
    });
    await dying.schedule('askF1', Date.now());
    await waitFor(() => firstRuns.length === 1);
    await dying.close({ force: true });
    const rescued: string[] = [];
    await scheduler(tuning).start(async (askId) => void rescued.push(askId));
    await waitFor(() => rescued.length === 1, 8000);
    expect(rescued).toEqual(['askF1']);
  });
});

describe('BullOutbox on a Redis Cluster', () => {
  it('runs a job once with its data; a job enqueued twice while waiting runs once', async () => {
    const o = outbox();
    const rec = recorder();
    await o.enqueue(deliver('askF1'));
    await o.enqueue(deliver('askF1'));
    await o.enqueue(deliver('askF1', 1));
    await o.enqueue({ kind: 'finalize', askId: 'askF1', index: 0 });
    await o.start(rec.handlers);
    await waitFor(() => rec.runs.length >= 3);
    await sleep(200);
    expect(rec.runs.map((r) => `${r.job.kind}/${r.job.index}`).sort()).toEqual(['deliver/0', 'deliver/1', 'finalize/0']);
    await o.enqueue(deliver('askF1'));
    await waitFor(() => rec.runs.length === 4);
  });

  it('retries with backoff, waits out retryAfterMs without spending attempts, gives up once', async () => {
    const o = outbox({ attempts: 3 });
    const rec = recorder((job, attempt) => {
      if (job.askId === 'askB1' && attempt < 3) throw new Error(`transient ${attempt}`);
      if (job.askId === 'askC1' && attempt <= 4) throw new ChannelError('429 Too Many Requests', false, 100);
      if (job.askId === 'askD1') throw new ChannelError('400 chat not found', true);
      if (job.askId === 'askE1') throw new Error('502 Bad Gateway');
    });
    await o.start(rec.handlers);
    for (const id of ['askB1', 'askC1', 'askD1', 'askE1']) await o.enqueue(deliver(id));
    await waitFor(() => rec.giveUps.length === 2 && rec.runs.filter((r) => r.job.askId === 'askC1').length === 5, 8000);
    await sleep(300);
    const runsOf = (id: string) => rec.runs.filter((r) => r.job.askId === id);
    expect(runsOf('askB1')).toHaveLength(3);
    expect(runsOf('askB1')[1]!.at - runsOf('askB1')[0]!.at).toBeGreaterThanOrEqual(44);
    expect(runsOf('askC1')).toHaveLength(5);
    expect(runsOf('askC1')[1]!.at - runsOf('askC1')[0]!.at).toBeGreaterThanOrEqual(100);
    expect(runsOf('askD1')).toHaveLength(1);
    expect(runsOf('askE1')).toHaveLength(3);
    expect(rec.giveUps.map((g) => `${g.job.askId}:${g.error.message}`).sort()).toEqual(['askD1:400 chat not found', 'askE1:502 Bad Gateway']);
  });

  it('a job waits in the cluster for a worker started later (another replica)', async () => {
    const p = prefix();
    const producer = outbox({ prefix: p });
    await producer.enqueue(deliver('askH1'));
    await producer.close();
    const rec = recorder();
    await outbox({ prefix: p }).start(rec.handlers);
    await waitFor(() => rec.runs.length === 1);
    expect(rec.runs[0]!.job).toEqual(deliver('askH1'));
  });

  it('a job BullMQ fails for stalling too often gets no give-up; its id is free again for the reconciler', async () => {
    const tuning = { prefix: prefix(), lockDurationMs: 300, stalledIntervalMs: 100 };
    const starts: number[] = [];
    for (let round = 1; round <= 2; round++) {
      const dying = outbox(tuning);
      await dying.start({ run: async () => { starts.push(round); await new Promise(() => {}); }, giveUp: async () => {} });
      if (round === 1) await dying.enqueue(deliver('askI1'));
      await waitFor(() => starts.length === round);
      await dying.close({ force: true });
    }
    const rec = recorder();
    const errors: Error[] = [];
    const survivor = outbox({ ...tuning, onError: (err) => errors.push(err) });
    await survivor.start(rec.handlers);
    await waitFor(() => errors.some((e) => /stalled more than once/.test(e.message)), 8000);
    await sleep(200);
    expect(rec.giveUps).toEqual([]);
    expect(rec.runs).toEqual([]);
    await survivor.enqueue(deliver('askI1'));
    await waitFor(() => rec.runs.length === 1);
  });
});
