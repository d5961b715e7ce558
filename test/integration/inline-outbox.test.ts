import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError, type OutboxJob } from '../../src/core/ports.js';
import { BullOutbox, OUTBOX_QUEUE } from '../../src/queue/bull-outbox.js';
import { closeConnection } from '../../src/queue/connections.js';
import { InlineOutbox, type RetryingOutbox } from '../../src/queue/inline-outbox.js';
import { queuePrefix } from '../contracts/queue.contract.js';
import { silentLogger } from '../helpers/logs.js';
import { redisForFile } from '../helpers/redis-file.js';
import { sleep, waitFor } from '../helpers/wait.js';

const shared = redisForFile();

/** A job as the effect runner hands it over, with a field only an in-process run can see. */
type Marked = OutboxJob & { inProcess?: true };
const deliver = (askId: string, index = 0): Marked => ({ kind: 'deliver', askId, index, inProcess: true });

/** Records every run (whether it ran in-process, i.e. saw the marker) and every give-up. */
function recorder(behave: (job: Marked, attempt: number) => void | Promise<void> = () => {}) {
  const runs: Array<{ job: OutboxJob; inProcess: boolean }> = [];
  const giveUps: Array<{ job: OutboxJob; error: Error }> = [];
  return {
    runs,
    giveUps,
    handlers: {
      async run(job: Marked) {
        const { inProcess, ...data } = job;
        runs.push({ job: data, inProcess: inProcess === true });
        await behave(job, runs.filter((r) => r.job.askId === job.askId).length);
      },
      async giveUp(job: OutboxJob, error: Error) {
        giveUps.push({ job, error });
      },
    },
  };
}

/** A promise released from outside: a job that runs until the test says so. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('InlineOutbox over BullMQ (real redis-server)', () => {
  const open: InlineOutbox[] = [];
  let prefix: string;
  function outbox(opts: { concurrency?: number; attempts?: number } = {}) {
    prefix = queuePrefix();
    const queue = new BullOutbox({
      connect: shared.connect,
      prefix,
      baseDelayMs: 30,
      maxDelayMs: 200,
      attempts: opts.attempts ?? 3,
      logger: silentLogger,
    });
    const o = new InlineOutbox({ queue, concurrency: opts.concurrency ?? 8, logger: silentLogger });
    open.push(o);
    return o;
  }
  /** Jobs the BullMQ queue holds in any state. */
  async function queued(): Promise<number> {
    const conn = shared.connect('producer');
    const q = new Queue(OUTBOX_QUEUE, { connection: conn, prefix });
    try {
      const counts = await q.getJobCounts('wait', 'active', 'delayed', 'completed', 'failed', 'prioritized');
      return Object.values(counts).reduce((a, b) => a + b, 0);
    } finally {
      await q.close();
      await closeConnection(conn);
    }
  }
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  it('runs a job in-process as it is enqueued, with the object it was given, and never queues it', async () => {
    const o = outbox();
    const rec = recorder();
    await o.start(rec.handlers);
    await o.enqueue(deliver('askI1'));
    // Started before enqueue resolved: a queued job would not have run yet.
    expect(rec.runs).toEqual([{ job: { kind: 'deliver', askId: 'askI1', index: 0 }, inProcess: true }]);
    await waitFor(() => o.inFlight === 0);
    expect(await queued()).toBe(0);
  });

  it('hands a retryable failure to BullMQ, which retries it with the attempts left', async () => {
    const o = outbox({ attempts: 3 });
    const rec = recorder((_job, attempt) => {
      if (attempt < 3) throw new Error(`transient ${attempt}`);
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askI2'));
    await waitFor(() => rec.runs.length === 3);
    await sleep(150);
    expect(rec.runs.map((r) => r.inProcess)).toEqual([true, false, false]);
    expect(rec.runs[1]!.job).toEqual({ kind: 'deliver', askId: 'askI2', index: 0 });
    expect(rec.giveUps).toEqual([]);
  });

  it('counts the in-process attempt: a job that always fails gives up once after `attempts` runs in all', async () => {
    const o = outbox({ attempts: 2 });
    const rec = recorder(() => {
      throw new Error('down');
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askI3'));
    await waitFor(() => rec.giveUps.length === 1);
    await sleep(200);
    expect(rec.runs.map((r) => r.inProcess)).toEqual([true, false]);
    expect(rec.giveUps).toHaveLength(1);
  });

  it('gives up in-process at once on a permanent error, nothing queued', async () => {
    const o = outbox();
    const rec = recorder(() => {
      throw new ChannelError('400 chat not found', true);
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askI4'));
    await waitFor(() => rec.giveUps.length === 1);
    expect(rec.giveUps[0]!.job).toEqual({ kind: 'deliver', askId: 'askI4', index: 0 });
    expect(rec.runs).toHaveLength(1);
    expect(await queued()).toBe(0);
  });

  it('a rate-limit wait spends no attempt: with one attempt, a 429 first still delivers from the queue', async () => {
    const o = outbox({ attempts: 1 });
    const rec = recorder((_job, attempt) => {
      if (attempt === 1) throw new ChannelError('429 Too Many Requests', false, 50);
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askI5'));
    await waitFor(() => rec.runs.length === 2);
    await sleep(100);
    expect(rec.runs.map((r) => r.inProcess)).toEqual([true, false]);
    expect(rec.giveUps).toEqual([]);
  });

  it('spills to BullMQ beyond the concurrency limit', async () => {
    const o = outbox({ concurrency: 1 });
    const held = gate();
    const rec = recorder((job) => (job.askId === 'askHeld' ? held.opened : undefined));
    await o.start(rec.handlers);
    await o.enqueue(deliver('askHeld'));
    await o.enqueue(deliver('askSpilled'));
    await waitFor(() => rec.runs.length === 2);
    expect(rec.runs).toEqual([
      { job: { kind: 'deliver', askId: 'askHeld', index: 0 }, inProcess: true },
      { job: { kind: 'deliver', askId: 'askSpilled', index: 0 }, inProcess: false },
    ]);
    held.open();
  });

  it('the same job enqueued again while it runs runs once', async () => {
    const o = outbox();
    const held = gate();
    const rec = recorder(() => held.opened);
    await o.start(rec.handlers);
    await o.enqueue(deliver('askDup'));
    await o.enqueue(deliver('askDup'));
    await o.enqueue(deliver('askDup'));
    held.open();
    await waitFor(() => o.inFlight === 0);
    await sleep(200);
    expect(rec.runs).toHaveLength(1);
    expect(await queued()).toBe(0);
  });

  it("the reconciler's re-drive skips a job running here and queues one that is not", async () => {
    const o = outbox();
    const held = gate();
    const rec = recorder((job) => (job.askId === 'askSlow' ? held.opened : undefined));
    await o.start(rec.handlers);
    await o.enqueue(deliver('askSlow'));
    await o.requeue({ kind: 'deliver', askId: 'askSlow', index: 0 });
    expect(await queued()).toBe(0);
    await o.requeue({ kind: 'deliver', askId: 'askIdle', index: 0 });
    await waitFor(() => rec.runs.length === 2);
    expect(rec.runs[1]).toEqual({ job: { kind: 'deliver', askId: 'askIdle', index: 0 }, inProcess: false });
    held.open();
  });

  it('close waits for the jobs in flight; a job they enqueue while closing goes to the queue', async () => {
    const o = outbox();
    const held = gate();
    let followUp: Promise<void> | undefined;
    const rec = recorder(async (job) => {
      if (job.kind !== 'deliver') return;
      await held.opened;
      followUp = o.enqueue({ kind: 'finalize', askId: job.askId, index: 0 });
      await followUp;
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askClose'));
    let closed = false;
    const closing = o.close().then(() => (closed = true));
    await sleep(100);
    expect(closed).toBe(false);
    held.open();
    await closing;
    await followUp;
    // The follow-up went to BullMQ: run by its worker before it closed, or still queued.
    const [first, ...rest] = rec.runs;
    expect(first).toEqual({ job: { kind: 'deliver', askId: 'askClose', index: 0 }, inProcess: true });
    expect(rest.every((r) => !r.inProcess && r.job.kind === 'finalize')).toBe(true);
    expect(rest.length + (await queued())).toBe(1);
  });

  it('a job that fails and cannot be handed over is reported lost (the ask is made due for the reconciler)', async () => {
    const lost: OutboxJob[] = [];
    const queue: RetryingOutbox = {
      attemptsPerJob: 3,
      backoff: { baseDelayMs: 10, maxDelayMs: 10 },
      enqueue: async () => {},
      retryLater: async () => {
        throw new Error('Redis unavailable');
      },
      start: async () => {},
      close: async () => {},
    };
    const o = new InlineOutbox({
      queue,
      concurrency: 4,
      logger: silentLogger,
      onLost: async (job) => void lost.push(job),
    });
    const rec = recorder(() => {
      throw new Error('transient');
    });
    await o.start(rec.handlers);
    await o.enqueue(deliver('askLost'));
    await waitFor(() => lost.length === 1);
    expect(lost).toEqual([{ kind: 'deliver', askId: 'askLost', index: 0 }]);
    await o.close();
  });
});
