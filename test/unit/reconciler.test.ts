import { afterEach, describe, expect, it } from 'vitest';
import { Reconciler, type ReconcilerOptions } from '../../src/queue/reconciler.js';
import { captureLogger, silentLogger } from '../helpers/logs.js';
import { sleep, waitFor } from '../helpers/wait.js';

/** Due entries for ids, listed at sweep time 900. */
const due = (...ids: string[]) => ids.map((askId) => ({ askId, at: 900 }));

const running: Reconciler[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

function make(opts: Partial<ReconcilerOptions>): Reconciler {
  const r = new Reconciler({
    intervalMs: 20,
    batch: 100,
    due: async () => [],
    sweep: async () => {},
    now: () => 1_000,
    logger: silentLogger,
    ...opts,
  });
  running.push(r);
  return r;
}

describe('Reconciler', () => {
  it('sweeps every due id once, with the time it was listed at, passing now() and the batch size', async () => {
    const calls: Array<[number, number]> = [];
    const swept: string[] = [];
    const r = make({
      batch: 7,
      now: () => 42,
      due: async (now, limit) => {
        calls.push([now, limit]);
        return [...due('a', 'b', 'c'), { askId: 'a', at: 900 }];
      },
      sweep: async ({ askId, at }) => {
        expect(at).toBe(900);
        swept.push(askId);
      },
    });
    expect(await r.runOnce()).toBe(3);
    expect(calls).toEqual([[42, 7]]);
    expect(swept.sort()).toEqual(['a', 'b', 'c']);
  });

  it('keeps sweeping the others when one id fails, and reports the error', async () => {
    const log = captureLogger();
    const swept: string[] = [];
    const r = make({
      due: async () => due('ok1', 'bad', 'ok2'),
      sweep: async ({ askId }) => {
        if (askId === 'bad') throw new Error('boom');
        swept.push(askId);
      },
      logger: log,
    });
    await r.runOnce();
    expect(swept.sort()).toEqual(['ok1', 'ok2']);
    expect(log.errors()).toHaveLength(1);
    expect(log.errors()[0]!.message).toBe('boom');
  });

  it('bounds the number of sweeps in flight', async () => {
    let active = 0;
    let peak = 0;
    const ids = Array.from({ length: 25 }, (_, i) => `id${i}`);
    const r = make({
      due: async () => due(...ids),
      sweep: async () => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(5);
        active -= 1;
      },
    });
    expect(await r.runOnce()).toBe(25);
    expect(peak).toBe(10);
  });

  it('reports a failing due() and keeps looping', async () => {
    const log = captureLogger();
    let calls = 0;
    const r = make({
      due: async () => {
        calls += 1;
        if (calls === 1) throw new Error('redis down');
        return [];
      },
      logger: log,
    });
    r.start();
    await waitFor(() => calls >= 3);
    expect(log.errors()).toHaveLength(1);
  });

  it('never overlaps ticks, even when a tick outlasts the interval or runOnce() is called meanwhile', async () => {
    let inTick = 0;
    let overlap = false;
    let ticks = 0;
    const r = make({
      intervalMs: 1,
      due: async () => {
        inTick += 1;
        if (inTick > 1) overlap = true;
        ticks += 1;
        return due('x');
      },
      sweep: async () => {
        await sleep(15);
        inTick -= 1;
      },
    });
    r.start();
    await Promise.all([r.runOnce(), r.runOnce()]);
    await waitFor(() => ticks >= 5);
    expect(overlap).toBe(false);
  });

  it('stop() waits for the tick in flight and stops the loop', async () => {
    let finished = 0;
    let started = 0;
    const r = make({
      due: async () => due('slow'),
      sweep: async () => {
        started += 1;
        await sleep(40);
        finished += 1;
      },
    });
    r.start();
    await waitFor(() => started === 1);
    await r.stop();
    expect(finished).toBe(started);
    const after = started;
    await sleep(60);
    expect(started).toBe(after);
  });

  it('a full batch is followed by the next tick at once: a backlog drains without waiting the interval', async () => {
    // 25 due asks in batches of 10, an interval of an hour: only back-to-back ticks can sweep them all.
    const backlog = Array.from({ length: 25 }, (_, i) => `ask${i}`);
    const swept: string[] = [];
    const r = make({
      intervalMs: 3_600_000,
      batch: 10,
      due: async (_now, limit) => due(...backlog.filter((id) => !swept.includes(id)).slice(0, limit)),
      sweep: async ({ askId }) => {
        swept.push(askId);
      },
    });
    r.start();
    await waitFor(() => swept.length === 25, 2000);
    expect(new Set(swept).size).toBe(25);
  });

  it('a full batch with a failed sweep waits the interval (a failing store is not hammered)', async () => {
    let ticks = 0;
    const r = make({
      intervalMs: 3_600_000,
      batch: 2,
      due: async () => {
        ticks++;
        return due('ok', 'bad');
      },
      sweep: async ({ askId }) => {
        if (askId === 'bad') throw new Error('store down');
      },
    });
    r.start();
    await waitFor(() => ticks === 1, 2000);
    await sleep(200);
    expect(ticks).toBe(1);
  });

  it('with sweepMany, sweeps the tick in chunks (a few in flight), never per id', async () => {
    const chunks: string[][] = [];
    let inFlight = 0;
    let most = 0;
    const r = make({
      batch: 10,
      chunk: 3,
      concurrency: 2,
      due: async () => due(...'abcdefghij'),
      sweep: async () => {
        throw new Error('per-id sweep used');
      },
      sweepMany: async (entries) => {
        most = Math.max(most, ++inFlight);
        chunks.push(entries.map((e) => `${e.askId}@${e.at}`));
        await sleep(5);
        inFlight--;
        return entries.map(() => null);
      },
    });
    expect(await r.runOnce()).toBe(10);
    expect(chunks.map((c) => c.length).sort()).toEqual([1, 3, 3, 3]);
    expect(chunks.flat().sort()).toEqual([...'abcdefghij'].map((id) => `${id}@900`));
    expect(most).toBe(2);
  });

  it('with sweepMany, an ask it reports stopped (or a chunk that throws) is logged by id and the next tick waits the interval', async () => {
    const log = captureLogger();
    let ticks = 0;
    const r = make({
      intervalMs: 3_600_000,
      batch: 4,
      chunk: 2,
      logger: log,
      due: async () => {
        ticks++;
        return due('ok', 'bad', 'x', 'y');
      },
      sweepMany: async (entries) => {
        if (entries[0]!.askId === 'x') throw new Error('chunk failed');
        return entries.map((e) => (e.askId === 'bad' ? new Error('store down') : null));
      },
    });
    r.start();
    await waitFor(() => ticks === 1, 2000);
    await sleep(200);
    expect(ticks).toBe(1);
    const failed = log.entries.filter((e) => e.msg === 'reconciler tick failed').map((e) => e.fields.askId);
    expect(failed.sort()).toEqual(['bad', 'x', 'y']);
  });
});
