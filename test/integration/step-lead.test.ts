import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { Job, Queue } from 'bullmq';
import type { AskRecord } from '../../src/core/schemas.js';
import type { NotYet } from '../../src/core/ports.js';
import { BullStepScheduler, STEP_QUEUE } from '../../src/queue/bull-steps.js';
import { stepJobId } from '../../src/queue/jobs.js';
import { queuePrefix } from '../contracts/queue.contract.js';
import { captureLogger, silentLogger } from '../helpers/logs.js';
import { redisForFile } from '../helpers/redis-file.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { eventually } from '../helpers/http.js';

// Step jobs queued `leadMs` ahead of their time (ASKGATE_STEP_LEAD_MS): the handler says when the
// step is due, the scheduler holds it in memory until then without a worker slot, and the job
// waits in the delayed set, a lead past the step's time, as its backstop.

const shared = redisForFile();
const LEAD = 1200;

/** A handler that knows each ask's due time, as the gateway does from the record. */
function dueAware(due: Map<string, number>, fail?: (call: number) => boolean) {
  const calls: Array<{ askId: string; at: number; early: boolean }> = [];
  const handler = async (askId: string): Promise<void | NotYet> => {
    const at = Date.now();
    const dueAt = due.get(askId)!;
    calls.push({ askId, at, early: at < dueAt });
    if (at < dueAt) return { notBefore: dueAt };
    if (fail?.(calls.filter((c) => c.askId === askId && !c.early).length)) throw new Error('store down');
  };
  return { calls, handler };
}

describe('BullStepScheduler with a lead', () => {
  const open: BullStepScheduler[] = [];
  const admin = () => {
    const r = new Redis(shared.redis.url);
    open.push({ close: async () => void r.disconnect() } as unknown as BullStepScheduler);
    return r;
  };
  const scheduler = (prefix: string, leadMs = LEAD, logger = silentLogger) => {
    const s = new BullStepScheduler({ connect: shared.connect, prefix, leadMs, retryDelayMs: 50, logger });
    open.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close({ force: true })));
  });

  it('runs the job ahead, holds the step with its job as backstop, and fires it once, never before its time', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const due = new Map([['askL1', Date.now() + LEAD + 800]]);
    const { calls, handler } = dueAware(due);
    await s.start({ timeout: handler });
    await s.schedule('askL1', 'timeout', due.get('askL1')!);

    await waitFor(() => calls.length === 1, 5000);
    expect(calls[0]!.early).toBe(true);
    // While held, the job waits in the delayed set, due a lead after the step.
    const jobId = stepJobId('timeout', 'askL1');
    // BullMQ scores a delayed job `due ms × 4096 + a counter`.
    const score = await eventually(async () => Number(await admin().zscore(`${prefix}:${STEP_QUEUE}:delayed`, jobId)));
    const backstop = Math.floor(score / 4096);
    expect(backstop).toBeGreaterThanOrEqual(due.get('askL1')! + LEAD - 50);

    // `>=`: a held call before the step's time (a third call) fails the assertions below, not this wait.
    await waitFor(() => calls.length >= 2, 5000);
    expect(calls[1]!.early).toBe(false);
    expect(calls[1]!.at).toBeGreaterThanOrEqual(due.get('askL1')!);
    // Once the held step ran, its backstop is dropped: it never runs.
    await eventually(async () => (await admin().exists(`${prefix}:${STEP_QUEUE}:${jobId}`)) === 0, 2000);
    await sleep(LEAD + 300);
    expect(calls).toHaveLength(2);
  });

  it('hands the held step what the early call read, and leaves its job to the cancel the step itself made', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const dueAt = Date.now() + LEAD + 600;
    const read = { id: 'askL9' } as AskRecord;
    const seen: Array<AskRecord | undefined> = [];
    const jobId = stepJobId('timeout', 'askL9');
    const remove = vi.spyOn(Queue.prototype, 'remove');
    try {
      await s.start({
        timeout: async (askId, given) => {
          seen.push(given);
          if (Date.now() < dueAt) return { notBefore: dueAt, seen: read };
          // As the timeout's commit does: its effects unschedule the timeout.
          await s.cancel(askId, 'timeout');
        },
      });
      await s.schedule('askL9', 'timeout', dueAt);
      await waitFor(() => seen.length >= 2, 5000);
      expect(seen).toEqual([undefined, read]);
      await eventually(async () => (await admin().exists(`${prefix}:${STEP_QUEUE}:${jobId}`)) === 0, 2000);
      await sleep(200);
      expect(seen).toHaveLength(2);
      // Removed by the cancel alone: the held run does not remove it a second time.
      expect(remove.mock.calls.filter(([id]) => id === jobId)).toHaveLength(1);
    } finally {
      remove.mockRestore();
    }
  });

  it('never runs a held step before its time by its clock, though timers fire early by it', async () => {
    // Timers count the loop's own milliseconds, not the clock's: a timer set for what the clock says
    // is left may fire a little before the clock gets there (up to 1 ms with the system clock). A
    // clock at 90% speed makes each timer early by a tenth of its wait (over 100 ms here).
    const start = Date.now();
    const clock = { now: () => start + Math.floor((Date.now() - start) * 0.9) };
    const s = new BullStepScheduler({
      connect: shared.connect,
      prefix: queuePrefix(),
      leadMs: LEAD,
      clock,
      logger: silentLogger,
    });
    open.push(s);
    const dueAt = clock.now() + LEAD + 600;
    const calls: Array<{ at: number; given: boolean }> = [];
    await s.start({
      timeout: async (askId, given) => {
        calls.push({ at: clock.now(), given: given !== undefined });
        if (clock.now() < dueAt) return { notBefore: dueAt, seen: { id: askId } as AskRecord };
        await s.cancel(askId, 'timeout');
      },
    });
    await s.schedule('askL6', 'timeout', dueAt);
    await waitFor(() => calls.length >= 2, 5000);
    await sleep(300);
    // The job's early call, then the held step once, at its time.
    expect(calls.map((c) => c.given)).toEqual([false, true]);
    expect(calls[0]!.at).toBeLessThan(dueAt);
    expect(calls[1]!.at).toBeGreaterThanOrEqual(dueAt);
  });

  it('drops a held step that is cancelled (its ask ended)', async () => {
    const s = scheduler(queuePrefix());
    const due = new Map([['askL2', Date.now() + LEAD + 600]]);
    const { calls, handler } = dueAware(due);
    await s.start({ timeout: handler });
    await s.schedule('askL2', 'timeout', due.get('askL2')!);
    await waitFor(() => calls.length === 1, 5000);
    await s.cancel('askL2', 'timeout');
    await sleep(due.get('askL2')! - Date.now() + 400);
    expect(calls).toHaveLength(1);
  });

  it('a cancel that lands while the early job moves to the delayed set leaves nothing held and no job', async () => {
    const prefix = queuePrefix();
    const s = scheduler(prefix);
    const due = new Map([['askL7', Date.now() + LEAD + 600]]);
    const { calls, handler } = dueAware(due);
    const move = Job.prototype.moveToDelayed;
    const spy = vi.spyOn(Job.prototype, 'moveToDelayed').mockImplementation(async function (this: Job, ...args) {
      // The ask ends (an answer's commit cancels its timeout) while the worker is moving the job.
      await s.cancel('askL7', 'timeout');
      return move.apply(this, args);
    });
    try {
      await s.start({ timeout: handler });
      await s.schedule('askL7', 'timeout', due.get('askL7')!);
      await waitFor(() => calls.length === 1, 5000);
      await eventually(
        async () => (await admin().exists(`${prefix}:${STEP_QUEUE}:${stepJobId('timeout', 'askL7')}`)) === 0,
        2000,
      );
      await sleep(due.get('askL7')! - Date.now() + 400);
      expect(calls).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('a held step cancelled while its handler runs, and still early, is not held again', async () => {
    const s = scheduler(queuePrefix());
    const dueAt = Date.now() + LEAD + 600;
    const calls: number[] = [];
    await s.start({
      timeout: async (askId) => {
        calls.push(Date.now());
        // The held run: the ask ends meanwhile, and the clock says it is (still) early.
        if (calls.length === 2) await s.cancel(askId, 'timeout');
        return { notBefore: calls.length === 1 ? dueAt : dueAt + 300 };
      },
    });
    await s.schedule('askL8', 'timeout', dueAt);
    await waitFor(() => calls.length === 2, 5000);
    await sleep(800);
    expect(calls).toHaveLength(2);
  });

  it('a held step whose handler fails is run again by its job', async () => {
    const logger = captureLogger();
    const s = scheduler(queuePrefix(), LEAD, logger);
    const due = new Map([['askL3', Date.now() + LEAD + 500]]);
    // The first on-time run fails; the retry through the queue succeeds.
    const { calls, handler } = dueAware(due, (n) => n === 1);
    await s.start({ timeout: handler });
    await s.schedule('askL3', 'timeout', due.get('askL3')!);
    await waitFor(() => calls.filter((c) => !c.early).length === 2, 8000);
    const onTime = calls.filter((c) => !c.early);
    expect(onTime[0]!.at).toBeGreaterThanOrEqual(due.get('askL3')!);
    expect(onTime[1]!.at).toBeGreaterThanOrEqual(due.get('askL3')! + LEAD - 50);
    expect(logger.entries.some((e) => e.msg === 'timeout failed; its job will run it again')).toBe(true);
  });

  it('a worker that stops while holding a step leaves its job, which the next worker runs', async () => {
    const prefix = queuePrefix();
    const first = scheduler(prefix);
    const due = new Map([['askL4', Date.now() + LEAD + 1500]]);
    const one = dueAware(due);
    await first.start({ timeout: one.handler });
    await first.schedule('askL4', 'timeout', due.get('askL4')!);
    await waitFor(() => one.calls.length === 1, 5000);
    await first.close({ force: true });
    expect(one.calls).toHaveLength(1);
    const jobKey = `${prefix}:${STEP_QUEUE}:${stepJobId('timeout', 'askL4')}`;
    expect(await admin().exists(jobKey)).toBe(1);

    const second = scheduler(prefix);
    const two = dueAware(due);
    await second.start({ timeout: two.handler });
    await waitFor(() => two.calls.some((c) => !c.early), 6000);
    expect(two.calls.find((c) => !c.early)!.at).toBeGreaterThanOrEqual(due.get('askL4')!);
  });

  it('queues the job its lead ahead of the step (none without a lead)', async () => {
    const at = Date.now() + 10_000;
    const delays: number[] = [];
    for (const lead of [0, LEAD]) {
      const prefix = queuePrefix();
      await scheduler(prefix, lead).schedule('askL5', 'timeout', at);
      const delay = await admin().hget(`${prefix}:${STEP_QUEUE}:${stepJobId('timeout', 'askL5')}`, 'delay');
      delays.push(at - Number(delay));
    }
    // Each job is due at schedule time + delay; what is left to `at` is the lead (± the call's own time).
    const scheduledAt = Date.now();
    expect(delays[0]).toBeGreaterThan(scheduledAt - 2000);
    expect(delays[0]).toBeLessThanOrEqual(scheduledAt);
    expect(delays[1]! - delays[0]!).toBeGreaterThan(LEAD - 200);
    expect(delays[1]! - delays[0]!).toBeLessThan(LEAD + 200);
  });
});
