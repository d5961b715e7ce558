import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError, type OutboxJob } from '../../src/core/ports.js';
import { DEFAULT_BACKOFF, isPermanent, retryAfterOf, retryDelayMs } from '../../src/queue/backoff.js';
import { MemoryOutbox, type MemoryOutboxOptions } from '../../src/queue/memory-outbox.js';
import { MemoryTimeoutScheduler } from '../../src/queue/memory-timeouts.js';
import { sleep, waitFor } from '../helpers/wait.js';


const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe('retryDelayMs', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('grows exponentially from the base, with ±10 % jitter, capped at the max', () => {
    expect(retryDelayMs(1, new Error('x'), policy, () => 0.5)).toBe(100);
    expect(retryDelayMs(2, new Error('x'), policy, () => 0.5)).toBe(200);
    expect(retryDelayMs(3, new Error('x'), policy, () => 0)).toBe(360);
    expect(retryDelayMs(3, new Error('x'), policy, () => 1)).toBe(440);
    expect(retryDelayMs(20, new Error('x'), policy, () => 0.5)).toBe(1000);
    expect(retryDelayMs(5000, new Error('x'), DEFAULT_BACKOFF, () => 0.5)).toBe(60_000);
  });
  it("waits at least a ChannelError's retryAfterMs, uncapped, plus a small jitter", () => {
    const err = new ChannelError('429', false, 5000);
    expect(retryDelayMs(1, err, policy, () => 0)).toBe(5000);
    expect(retryDelayMs(1, err, policy, () => 0.999)).toBeLessThanOrEqual(5500);
    expect(retryDelayMs(1, new ChannelError('429', false, 30), policy, () => 0.999)).toBeLessThanOrEqual(40);
  });
  it('recognises permanent errors and retry hints', () => {
    expect(isPermanent(new ChannelError('gone', true))).toBe(true);
    expect(isPermanent(new ChannelError('busy', false, 10))).toBe(false);
    expect(isPermanent(new Error('plain'))).toBe(false);
    expect(retryAfterOf(new ChannelError('busy', false, 10))).toBe(10);
    expect(retryAfterOf(new ChannelError('busy', false, -1))).toBeUndefined();
    expect(retryAfterOf(new Error('plain'))).toBeUndefined();
  });
});

describe('MemoryTimeoutScheduler', () => {
  function make(opts: ConstructorParameters<typeof MemoryTimeoutScheduler>[0] = {}) {
    const s = new MemoryTimeoutScheduler({ retryDelayMs: 20, onError: () => {}, ...opts });
    closers.push(() => s.close());
    return s;
  }

  it('fires once, at or after the due time', async () => {
    const s = make();
    const fired: Array<{ askId: string; at: number }> = [];
    await s.start(async (askId) => {
      fired.push({ askId, at: Date.now() });
    });
    const dueAt = Date.now() + 80;
    await s.schedule('a1', dueAt);
    await waitFor(() => fired.length === 1);
    await sleep(50);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.at).toBeGreaterThanOrEqual(dueAt - 2);
  });

  it('schedules idempotently and cancels', async () => {
    const s = make();
    const fired: string[] = [];
    await s.start(async (askId) => {
      fired.push(askId);
    });
    await s.schedule('b1', Date.now() + 30);
    await s.schedule('b1', Date.now() + 10);
    await s.schedule('b2', Date.now() + 30);
    await s.cancel('b2');
    await s.cancel('unknown');
    await sleep(120);
    expect(fired).toEqual(['b1']);
  });

  it('fires timeouts that came due before start()', async () => {
    const s = make();
    await s.schedule('c1', Date.now() - 1000);
    await s.schedule('c2', Date.now() + 10);
    await sleep(40);
    const fired: string[] = [];
    await s.start(async (askId) => {
      fired.push(askId);
    });
    await waitFor(() => fired.length === 2);
    expect(fired.sort()).toEqual(['c1', 'c2']);
  });

  it('retries a throwing handler, and stops after the last attempt', async () => {
    const errors: Error[] = [];
    const s = make({ attempts: 3, onError: (e) => errors.push(e) });
    const calls: Record<string, number> = {};
    await s.start(async (askId) => {
      calls[askId] = (calls[askId] ?? 0) + 1;
      if (askId === 'always' || calls[askId] === 1) throw new Error('boom');
    });
    await s.schedule('once', Date.now());
    await s.schedule('always', Date.now());
    await waitFor(() => calls.once === 2 && errors.length === 1);
    await sleep(150);
    expect(calls).toEqual({ once: 2, always: 3 });
    expect(errors[0]!.message).toMatch(/always/);
  });

  it('close() clears pending timers', async () => {
    const s = new MemoryTimeoutScheduler();
    const fired: string[] = [];
    await s.start(async (askId) => {
      fired.push(askId);
    });
    await s.schedule('d1', Date.now() + 20);
    await s.close();
    await sleep(60);
    expect(fired).toEqual([]);
  });
});

describe('MemoryOutbox', () => {
  function make(opts: MemoryOutboxOptions = {}) {
    const o = new MemoryOutbox({ baseDelayMs: 20, maxDelayMs: 200, onError: () => {}, ...opts });
    closers.push(() => o.close());
    return o;
  }
  function recorder(behave: (attempt: number) => void = () => {}) {
    const runs: Array<{ job: OutboxJob; at: number }> = [];
    const giveUps: Array<{ job: OutboxJob; error: Error }> = [];
    return {
      runs,
      giveUps,
      handlers: {
        async run(job: OutboxJob) {
          runs.push({ job, at: Date.now() });
          behave(runs.length);
        },
        async giveUp(job: OutboxJob, error: Error) {
          giveUps.push({ job, error });
        },
      },
    };
  }
  const job: OutboxJob = { kind: 'deliver', askId: 'ask1', index: 0 };

  it('runs a job once', async () => {
    const o = make();
    const rec = recorder();
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 1);
    await sleep(30);
    expect(rec.runs.map((r) => r.job)).toEqual([job]);
    expect(rec.giveUps).toEqual([]);
  });

  it('retries with backoff, then succeeds', async () => {
    const o = make();
    const rec = recorder((n) => {
      if (n < 3) throw new Error('transient');
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 3);
    await sleep(60);
    expect(rec.runs).toHaveLength(3);
    expect(rec.runs[2]!.at - rec.runs[0]!.at).toBeGreaterThanOrEqual(18 + 36 - 2);
    expect(rec.giveUps).toEqual([]);
  });

  it("waits at least a ChannelError's retryAfterMs", async () => {
    const o = make();
    const rec = recorder((n) => {
      if (n === 1) throw new ChannelError('429', false, 150);
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 2);
    expect(rec.runs[1]!.at - rec.runs[0]!.at).toBeGreaterThanOrEqual(149);
  });

  it('rate-limit waits do not use up attempts: more 429s than attempts still deliver', async () => {
    const o = make({ attempts: 2 });
    const rec = recorder((n) => {
      if (n <= 4) throw new ChannelError('429', false, 5);
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 5);
    await sleep(30);
    expect(rec.runs).toHaveLength(5);
    expect(rec.giveUps).toEqual([]);
  });

  it('gives up once on a permanent error, without retrying', async () => {
    const o = make();
    const rec = recorder(() => {
      throw new ChannelError('forbidden', true);
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.giveUps.length === 1);
    await sleep(80);
    expect(rec.runs).toHaveLength(1);
    expect(rec.giveUps).toHaveLength(1);
    expect(rec.giveUps[0]!.error).toBeInstanceOf(ChannelError);
  });

  it('gives up once when the attempts run out', async () => {
    const o = make({ attempts: 3 });
    const rec = recorder(() => {
      throw new Error('502');
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.giveUps.length === 1);
    await sleep(100);
    expect(rec.runs).toHaveLength(3);
    expect(rec.giveUps).toHaveLength(1);
  });

  it('runs a job enqueued twice while it waits once; runs it again after it finished', async () => {
    const o = make();
    const rec = recorder();
    await o.enqueue(job);
    await o.enqueue(job);
    await o.enqueue({ ...job, kind: 'finalize' });
    await o.start(rec.handlers);
    await waitFor(() => rec.runs.length === 2);
    await sleep(30);
    expect(rec.runs).toHaveLength(2);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 3);
  });

  it('bounds concurrency', async () => {
    const o = make({ concurrency: 2 });
    let active = 0;
    let peak = 0;
    let done = 0;
    await o.start({
      async run() {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(10);
        active -= 1;
        done += 1;
      },
      async giveUp() {},
    });
    for (let i = 0; i < 6; i++) await o.enqueue({ kind: 'deliver', askId: `c${i}`, index: 0 });
    await waitFor(() => done === 6);
    expect(peak).toBe(2);
  });

  it('close() drops delayed retries', async () => {
    const o = new MemoryOutbox({ baseDelayMs: 20 });
    const rec = recorder(() => {
      throw new Error('transient');
    });
    await o.start(rec.handlers);
    await o.enqueue(job);
    await waitFor(() => rec.runs.length === 1);
    await o.close();
    await sleep(80);
    expect(rec.runs).toHaveLength(1);
    expect(rec.giveUps).toEqual([]);
  });
});
