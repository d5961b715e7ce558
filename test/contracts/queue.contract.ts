import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError, type OutboxJob } from '../../src/core/ports.js';
import type { Step } from '../../src/core/effects.js';
import { BullOutbox, type BullOutboxOptions } from '../../src/queue/bull-outbox.js';
import { BullStepScheduler, STEP_QUEUE, type BullStepOptions } from '../../src/queue/bull-steps.js';
import { closeConnection, type RedisFactory } from '../../src/queue/connections.js';
import { captureLogger, silentLogger } from '../helpers/logs.js';
import { sleep, waitFor } from '../helpers/wait.js';

// The BullMQ adapters' contract, run against a standalone redis-server
// (test/integration/queue-*.test.ts) and a 3-primary Redis Cluster
// (test/reliability/cluster-queue.test.ts) through askgate's own connection factories.

/** A fresh hash-tagged BullMQ prefix, so tests never share a queue. */
export const queuePrefix = () => `{t${randomBytes(5).toString('hex')}}`;

/** Records every run (with its start time) and every give-up; `behave` decides each run's fate. */
function recorder(behave: (job: OutboxJob, attempt: number) => void | Promise<void> = () => {}) {
  const runs: Array<{ job: OutboxJob; at: number }> = [];
  const giveUps: Array<{ job: OutboxJob; error: Error }> = [];
  return {
    runs,
    giveUps,
    handlers: {
      async run(job: OutboxJob) {
        runs.push({ job, at: Date.now() });
        await behave(job, runs.filter((r) => r.job.askId === job.askId).length);
      },
      async giveUp(job: OutboxJob, error: Error) {
        giveUps.push({ job, error });
      },
    },
  };
}

const deliver = (askId: string, index = 0): OutboxJob => ({ kind: 'deliver', askId, index });

/** The {@link BullStepScheduler} contract; `connect()` gives the Redis factory once the server is up. */
export function stepSchedulerContract(name: string, connect: () => RedisFactory): void {
  describe(`BullStepScheduler: ${name}`, () => {
    const open: Array<{ close(opts?: { force?: boolean }): Promise<void> }> = [];
    const prefix = queuePrefix;
    function scheduler<S extends string = Step>(opts: Partial<BullStepOptions<S>> = {}): BullStepScheduler<S> {
      const s = new BullStepScheduler<S>({
        connect: connect(),
        prefix: prefix(),
        retryDelayMs: 50,
        logger: silentLogger,
        ...opts,
      });
      open.push(s);
      return s;
    }
    /** A bare BullMQ queue on the steps' queue, to write jobs as older or broken code would. */
    function rawQueue(p: string) {
      const conn = connect()('producer');
      const queue = new Queue(STEP_QUEUE, { connection: conn, prefix: p });
      open.push({
        close: async () => {
          await queue.close();
          await closeConnection(conn);
        },
      });
      return queue;
    }
    /** Handlers of the timeout alone. */
    const onTimeout = (run: (askId: string) => Promise<void>) => ({ timeout: run });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close({ force: true })));
    });

    it('fires once, near the due time', async () => {
      const s = scheduler({ prefix: prefix() });
      const fired: Array<{ askId: string; at: number }> = [];
      await s.start(
        onTimeout(async (askId) => {
          fired.push({ askId, at: Date.now() });
        }),
      );
      const dueAt = Date.now() + 300;
      await s.schedule('askA1', 'timeout', dueAt);
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
      await s.start(
        onTimeout(async (askId) => {
          fired.push(askId);
        }),
      );
      await s.schedule('askB1', 'timeout', Date.now() + 150);
      await s.schedule('askB1', 'timeout', Date.now() + 50);
      await waitFor(() => fired.length >= 1);
      await sleep(300);
      expect(fired).toEqual(['askB1']);
    });

    it('cancel prevents the firing; cancelling an unknown ask is harmless', async () => {
      const s = scheduler({ prefix: prefix() });
      const fired: string[] = [];
      await s.start(
        onTimeout(async (askId) => {
          fired.push(askId);
        }),
      );
      // Due late enough that the cancel lands first even on a loaded machine (a loaded CI run took
      // longer than 200 ms between the schedule and the cancel, and the job fired as it should).
      await s.schedule('askC1', 'timeout', Date.now() + 1500);
      await s.schedule('askC2', 'timeout', Date.now() + 1500);
      await s.cancel('askC1', 'timeout');
      await s.cancel('never-scheduled', 'timeout');
      await waitFor(() => fired.length === 1);
      await sleep(200);
      expect(fired).toEqual(['askC2']);
    });

    it('fires a timeout that came due while no worker ran, once a worker starts', async () => {
      const p = prefix();
      const producer = scheduler({ prefix: p });
      await producer.schedule('askD1', 'timeout', Date.now() + 50);
      await sleep(300);
      const fired: string[] = [];
      const worker = scheduler({ prefix: p });
      const startedAt = Date.now();
      await worker.start(
        onTimeout(async (askId) => {
          fired.push(askId);
        }),
      );
      await waitFor(() => fired.length === 1);
      expect(fired).toEqual(['askD1']);
      expect(Date.now() - startedAt).toBeLessThan(2000);
    });

    it('retries a timeout whose handler throws', async () => {
      const s = scheduler({ prefix: prefix() });
      let calls = 0;
      await s.start(
        onTimeout(async () => {
          calls += 1;
          if (calls === 1) throw new Error('redis blip');
        }),
      );
      await s.schedule('askE1', 'timeout', Date.now());
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
      await dying.start(
        onTimeout(async (askId) => {
          firstRuns.push(askId);
          await hung;
        }),
      );
      await dying.schedule('askF1', 'timeout', Date.now());
      await waitFor(() => firstRuns.length === 1);
      // A forced close stops lock renewal without finishing the job: what a killed process leaves.
      await dying.close({ force: true });

      const rescued: string[] = [];
      const survivor = scheduler({ prefix: p, ...tuning });
      await survivor.start(
        onTimeout(async (askId) => {
          rescued.push(askId);
        }),
      );
      await waitFor(() => rescued.length === 1, 8000);
      release();
      expect(rescued).toEqual(['askF1']);
    });
    it('scheduleMany adds only the steps without a job: an existing job keeps its time', async () => {
      const p = prefix();
      const s = scheduler({ prefix: p });
      const at = Date.now() + 60_000;
      await s.schedule('askM1', 'timeout', at);
      const before = await rawQueue(p).getJob('timeout-askM1');
      await s.scheduleMany([
        { askId: 'askM1', step: 'timeout', at: at + 30_000 },
        { askId: 'askM2', step: 'timeout', at: at + 30_000 },
        { askId: 'askM2', step: 'remind-1', at: at - 30_000 },
      ]);
      const raw = rawQueue(p);
      expect((await raw.getJob('timeout-askM1'))?.delay).toBe(before?.delay);
      expect((await raw.getJob('timeout-askM2'))?.name).toBe('timeout');
      expect((await raw.getJob('remind-1-askM2'))?.name).toBe('remind-1');
      expect(await raw.getDelayedCount()).toBe(3);
      await s.scheduleMany([]);
    });

    it('keeps the job id and queue of timeouts from before steps: timeout-<askId> on askgate-timeouts', async () => {
      const p = prefix();
      const s = scheduler({ prefix: p });
      await s.schedule('askJ1', 'timeout', Date.now() + 60_000);
      const job = await rawQueue(p).getJob('timeout-askJ1');
      expect(job?.name).toBe('timeout');
      expect(job?.data).toEqual({}); // the name is the step, the id names the ask
    });

    it('schedules two steps of one ask independently: cancelling one, the other fires', async () => {
      const s = scheduler<'timeout' | 'reminder'>({ steps: ['timeout', 'reminder'] });
      const fired: string[] = [];
      await s.start({
        timeout: async (askId) => void fired.push(`timeout ${askId}`),
        reminder: async (askId) => void fired.push(`reminder ${askId}`),
      });
      // Due late enough that both cancels land first on a loaded machine (see the cancel test above).
      await s.schedule('askK1', 'reminder', Date.now() + 1500);
      await s.schedule('askK1', 'timeout', Date.now() + 1550);
      await s.schedule('askK2', 'reminder', Date.now() + 1500);
      await s.schedule('askK2', 'timeout', Date.now() + 1550);
      await s.cancel('askK1', 'reminder');
      await s.cancel('askK2', 'timeout');
      await waitFor(() => fired.length === 2);
      await sleep(300);
      expect(fired.sort()).toEqual(['reminder askK2', 'timeout askK1']);
    });

    it('drops and logs job data that fails validation, never dispatching it', async () => {
      const p = prefix();
      const raw = rawQueue(p);
      await raw.add('timeout', { askId: '' }, { jobId: 'timeout-bad1' });
      await raw.add('bogus', { askId: 'askM1', step: 'bogus' }, { jobId: 'bogus-askM1' });
      await raw.add('timeout', { askId: 42 }, { jobId: 'timeout-bad2' });
      const log = captureLogger();
      const s = scheduler({ prefix: p, logger: log });
      const fired: string[] = [];
      await s.start(onTimeout(async (askId) => void fired.push(askId)));
      await waitFor(() => log.entries.filter((e) => e.msg === 'invalid step job dropped').length === 3);
      await sleep(200);
      expect(fired).toEqual([]);
      expect(
        log.entries
          .filter((e) => e.level === 'error')
          .map((e) => e.fields.jobId)
          .sort(),
      ).toEqual(['bogus-askM1', 'timeout-bad1', 'timeout-bad2']);
      expect(await raw.getJobCounts('wait', 'delayed', 'active')).toEqual({ wait: 0, delayed: 0, active: 0 });
    });
  });
}

/** The {@link BullOutbox} contract; `connect()` gives the Redis factory once the server is up. */
export function outboxContract(name: string, connect: () => RedisFactory): void {
  describe(`BullOutbox: ${name}`, () => {
    const open: BullOutbox[] = [];
    const prefix = queuePrefix;
    function outbox(opts: Partial<BullOutboxOptions> = {}): BullOutbox {
      const o = new BullOutbox({
        connect: connect(),
        prefix: prefix(),
        baseDelayMs: 50,
        maxDelayMs: 400,
        logger: silentLogger,
        ...opts,
      });
      open.push(o);
      return o;
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((o) => o.close({ force: true })));
    });

    it('runs a job once with its data', async () => {
      const o = outbox();
      const rec = recorder();
      await o.start(rec.handlers);
      await o.enqueue({ kind: 'finalize', askId: 'askA1', index: 2 });
      await waitFor(() => rec.runs.length === 1);
      await sleep(100);
      expect(rec.runs.map((r) => r.job)).toEqual([{ kind: 'finalize', askId: 'askA1', index: 2 }]);
      expect(rec.giveUps).toEqual([]);
    });

    it('retries with exponential backoff, then succeeds', async () => {
      const o = outbox();
      const rec = recorder((_job, attempt) => {
        if (attempt < 3) throw new Error(`transient ${attempt}`);
      });
      await o.start(rec.handlers);
      await o.enqueue(deliver('askB1'));
      await waitFor(() => rec.runs.length === 3);
      await sleep(150);
      expect(rec.runs).toHaveLength(3);
      expect(rec.giveUps).toEqual([]);
      // 50 ms then 100 ms, each with ±10 % jitter.
      expect(rec.runs[1]!.at - rec.runs[0]!.at).toBeGreaterThanOrEqual(44);
      expect(rec.runs[2]!.at - rec.runs[1]!.at).toBeGreaterThanOrEqual(89);
    });

    it("waits at least a ChannelError's retryAfterMs before the retry", async () => {
      const o = outbox();
      const rec = recorder((_job, attempt) => {
        if (attempt === 1) throw new ChannelError('429 Too Many Requests', false, 400);
      });
      await o.start(rec.handlers);
      await o.enqueue(deliver('askC1'));
      await waitFor(() => rec.runs.length === 2);
      expect(rec.runs[1]!.at - rec.runs[0]!.at).toBeGreaterThanOrEqual(400);
      expect(rec.giveUps).toEqual([]);
    });

    it('rate-limit waits do not use up attempts: more 429s than attempts still deliver', async () => {
      const o = outbox({ attempts: 2 });
      const rec = recorder((_job, attempt) => {
        if (attempt <= 4) throw new ChannelError('429 Too Many Requests', false, 20);
      });
      await o.start(rec.handlers);
      await o.enqueue(deliver('askDefer'));
      await waitFor(() => rec.runs.length === 5);
      await sleep(100);
      expect(rec.runs).toHaveLength(5);
      expect(rec.giveUps).toEqual([]);
    });

    it('does not retry a permanent ChannelError and gives up once', async () => {
      const o = outbox();
      const rec = recorder(() => {
        throw new ChannelError('400 chat not found', true);
      });
      await o.start(rec.handlers);
      await o.enqueue(deliver('askD1', 1));
      await waitFor(() => rec.giveUps.length === 1);
      await sleep(300);
      expect(rec.runs).toHaveLength(1);
      expect(rec.giveUps).toHaveLength(1);
      expect(rec.giveUps[0]!.job).toEqual(deliver('askD1', 1));
      expect(rec.giveUps[0]!.error).toBeInstanceOf(ChannelError);
      expect(rec.giveUps[0]!.error.message).toBe('400 chat not found');
    });

    it('gives up once after the last attempt failed', async () => {
      const o = outbox({ attempts: 3 });
      const rec = recorder(() => {
        throw new Error('502 Bad Gateway');
      });
      await o.start(rec.handlers);
      await o.enqueue(deliver('askE1'));
      await waitFor(() => rec.giveUps.length === 1);
      await sleep(300);
      expect(rec.runs).toHaveLength(3);
      expect(rec.giveUps).toHaveLength(1);
      expect(rec.giveUps[0]!.error.message).toBe('502 Bad Gateway');
    });

    it('runs a job enqueued twice while it waits only once; other kinds and indexes are separate jobs', async () => {
      const o = outbox();
      const rec = recorder();
      await o.enqueue(deliver('askF1'));
      await o.enqueue(deliver('askF1'));
      await o.enqueue(deliver('askF1', 1));
      await o.enqueue({ kind: 'finalize', askId: 'askF1', index: 0 });
      await o.start(rec.handlers);
      await waitFor(() => rec.runs.length >= 3);
      await sleep(200);
      expect(rec.runs.map((r) => `${r.job.kind}/${r.job.index}`).sort()).toEqual([
        'deliver/0',
        'deliver/1',
        'finalize/0',
      ]);
    });

    it('runs a job again when it is enqueued after it finished', async () => {
      const o = outbox();
      const rec = recorder();
      await o.start(rec.handlers);
      await o.enqueue(deliver('askG1'));
      await waitFor(() => rec.runs.length === 1);
      await sleep(50);
      await o.enqueue(deliver('askG1'));
      await waitFor(() => rec.runs.length === 2);
    });

    it('keeps a job that waits in Redis for a worker started later (another replica)', async () => {
      const p = prefix();
      const producer = outbox({ prefix: p });
      await producer.enqueue(deliver('askH1'));
      await producer.close();
      const consumer = outbox({ prefix: p });
      const rec = recorder();
      await consumer.start(rec.handlers);
      await waitFor(() => rec.runs.length === 1);
      expect(rec.runs[0]!.job).toEqual(deliver('askH1'));
    });

    it('does not give up on a job BullMQ failed itself for stalling too often (crashed workers); a later enqueue runs it', async () => {
      const p = prefix();
      const tuning = { prefix: p, lockDurationMs: 300, stalledIntervalMs: 100 };
      const hung = new Promise<void>(() => {});
      const starts: number[] = [];
      // Two workers die mid-job (forced close, lock left to expire): maxStalledCount is 1.
      for (let round = 1; round <= 2; round++) {
        const dying = outbox(tuning);
        await dying.start({
          run: async () => {
            starts.push(round);
            await hung;
          },
          giveUp: async () => {},
        });
        if (round === 1) await dying.enqueue(deliver('askI1'));
        await waitFor(() => starts.length === round);
        await dying.close({ force: true });
      }
      const rec = recorder();
      const log = captureLogger();
      const survivor = outbox({ ...tuning, logger: log });
      await survivor.start(rec.handlers);
      await waitFor(() => log.entries.some((e) => /stalled more than once/.test(e.msg ?? '')), 8000);
      await sleep(200);
      // Not a platform failure: no give-up (which would mark the delivery failed) ...
      expect(rec.giveUps).toEqual([]);
      expect(rec.runs).toEqual([]);
      // ... and the job id is free again, so the reconciler's re-enqueue runs it.
      await survivor.enqueue(deliver('askI1'));
      await waitFor(() => rec.runs.length === 1);
      expect(rec.runs[0]!.job).toEqual(deliver('askI1'));
    });
  });
}
