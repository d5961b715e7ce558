import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChannelError, type OutboxJob } from '../../src/core/ports.js';
import { DEFAULT_BACKOFF, isPermanent, retryAfterOf, retryDelayMs } from '../../src/queue/backoff.js';
import { MemoryOutbox, type MemoryOutboxOptions } from '../../src/queue/memory-outbox.js';
import { MemoryStepScheduler, type MemoryStepOptions } from '../../src/queue/memory-steps.js';
import { captureLogger, silentLogger } from '../helpers/logs.js';
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

describe('MemoryStepScheduler', () => {
  // Fake timers and an injected clock (an hour off the system one): no real waiting, and due
  // times are read against the clock the scheduler was given.
  const clock = { now: () => Date.now() + 3_600_000 };
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
    vi.useRealTimers();
  });
  function make(opts: Partial<MemoryStepOptions> = {}) {
    const s = new MemoryStepScheduler({ retryDelayMs: 20, logger: silentLogger, clock, ...opts });
    closers.push(() => s.close());
    return s;
  }
  /** Handlers of the timeout alone. */
  const onTimeout = (run: (askId: string) => Promise<void>) => ({ timeout: run });

  it('fires once, at or after the due time', async () => {
    const s = make();
    const fired: Array<{ askId: string; at: number }> = [];
    await s.start(
      onTimeout(async (askId) => {
        fired.push({ askId, at: clock.now() });
      }),
    );
    const dueAt = clock.now() + 80;
    await s.schedule('a1', 'timeout', dueAt);
    await vi.advanceTimersByTimeAsync(79);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(fired).toHaveLength(1);
    expect(fired[0]!.at).toBeGreaterThanOrEqual(dueAt);
  });

  it('a step 30 days away (past one timer’s 24.8-day reach) fires once, at its time, not at once', async () => {
    const s = make();
    const fired: number[] = [];
    await s.start(onTimeout(async () => void fired.push(clock.now())));
    const dueAt = clock.now() + 30 * 86_400_000;
    await s.schedule('a30', 'timeout', dueAt);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(25 * 86_400_000);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(dueAt - clock.now() - 1);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual([dueAt]);
  });

  it('calls a handler that says its step is not due yet again at that time, once', async () => {
    const s = make();
    const calls: number[] = [];
    const later = clock.now() + 300;
    await s.start({
      timeout: async () => {
        calls.push(clock.now());
        if (clock.now() < later) return { notBefore: later };
      },
    });
    await s.schedule('a0', 'timeout', clock.now() + 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(289);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeGreaterThanOrEqual(later);
  });

  it('a step cancelled while its handler runs, and early, is not armed again', async () => {
    const s = make();
    const calls: number[] = [];
    const later = clock.now() + 300;
    await s.start({
      timeout: async (askId) => {
        calls.push(clock.now());
        // The ask ends while the early call runs.
        await s.cancel(askId, 'timeout');
        return { notBefore: later };
      },
    });
    await s.schedule('a9', 'timeout', clock.now() + 10);
    await vi.advanceTimersByTimeAsync(10);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(1);
    // Gone: a new schedule of the same step arms it again.
    await s.schedule('a9', 'timeout', clock.now() + 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(2);
  });

  it('schedules idempotently and cancels', async () => {
    const s = make();
    const fired: string[] = [];
    await s.start(
      onTimeout(async (askId) => {
        fired.push(askId);
      }),
    );
    await s.schedule('b1', 'timeout', clock.now() + 30);
    await s.schedule('b1', 'timeout', clock.now() + 10);
    await s.schedule('b2', 'timeout', clock.now() + 30);
    await s.cancel('b2', 'timeout');
    await s.cancel('unknown', 'timeout');
    await vi.advanceTimersByTimeAsync(120);
    expect(fired).toEqual(['b1']);
  });

  it('schedules two steps of one ask independently: cancelling one leaves the other', async () => {
    const s = new MemoryStepScheduler<'timeout' | 'reminder'>({ logger: silentLogger, clock });
    closers.push(() => s.close());
    const fired: string[] = [];
    await s.start({
      timeout: async (askId) => void fired.push(`timeout ${askId}`),
      reminder: async (askId) => void fired.push(`reminder ${askId}`),
    });
    await s.schedule('s1', 'reminder', clock.now() + 10);
    await s.schedule('s1', 'timeout', clock.now() + 20);
    await s.schedule('s2', 'reminder', clock.now() + 10);
    await s.schedule('s2', 'timeout', clock.now() + 20);
    await s.cancel('s1', 'reminder');
    await s.cancel('s2', 'timeout');
    await vi.advanceTimersByTimeAsync(60);
    expect(fired.sort()).toEqual(['reminder s2', 'timeout s1']);
  });

  it('fires timeouts that came due before start()', async () => {
    const s = make();
    await s.schedule('c1', 'timeout', clock.now() - 1000);
    await s.schedule('c2', 'timeout', clock.now() + 10);
    await vi.advanceTimersByTimeAsync(40);
    const fired: string[] = [];
    await s.start(
      onTimeout(async (askId) => {
        fired.push(askId);
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(fired.sort()).toEqual(['c1', 'c2']);
  });

  it('retries a throwing handler, and stops after the last attempt', async () => {
    const log = captureLogger();
    const s = make({ attempts: 3, logger: log });
    const calls = new Map<string, number>();
    await s.start(
      onTimeout(async (askId) => {
        calls.set(askId, (calls.get(askId) ?? 0) + 1);
        if (askId === 'always' || calls.get(askId) === 1) throw new Error('boom');
      }),
    );
    await s.schedule('once', 'timeout', clock.now());
    await s.schedule('always', 'timeout', clock.now());
    // Retries after ~20 ms and ~40 ms (±10 %), then a quiet stretch.
    await vi.advanceTimersByTimeAsync(250);
    expect(Object.fromEntries(calls)).toEqual({ once: 2, always: 3 });
    expect(log.errors()).toHaveLength(1);
    expect(log.entries[0]!.fields.askId).toBe('always');
  });

  it('close() clears pending timers', async () => {
    const s = new MemoryStepScheduler({ logger: silentLogger, clock });
    const fired: string[] = [];
    await s.start(
      onTimeout(async (askId) => {
        fired.push(askId);
      }),
    );
    await s.schedule('d1', 'timeout', clock.now() + 20);
    await s.close();
    await vi.advanceTimersByTimeAsync(60);
    expect(fired).toEqual([]);
  });
});

describe('MemoryOutbox', () => {
  function make(opts: Partial<MemoryOutboxOptions> = {}) {
    const o = new MemoryOutbox({ baseDelayMs: 20, maxDelayMs: 200, logger: silentLogger, ...opts });
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
    const o = new MemoryOutbox({ baseDelayMs: 20, logger: silentLogger });
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
