import { describe, expect, it } from 'vitest';
import { EffectRunner, type BatchItem } from '../../src/app/effect-runner.js';
import { silentLogger } from '../helpers/logs.js';

/** A runner over fakes that log each call; `fail` names the calls that throw. */
function runner(fail: { enqueue?: string; scheduleMany?: boolean; rescheduleSweeps?: boolean } = {}) {
  const log: string[] = [];
  const r = new EffectRunner({
    indexes: {
      markForSweep: async () => {},
      rescheduleSweep: async (id: string, at: number, seenAt?: number) => {
        log.push(`resweep ${id} ${at} ${seenAt}`);
        return true;
      },
      rescheduleSweeps: async (moves) => {
        log.push(`resweeps ${moves.map((m) => `${m.askId}@${m.at}/${m.seenAt}`).join(' ')}`);
        if (fail.rescheduleSweeps) throw new Error('index down');
        return moves.map(() => true);
      },
      unmarkSweep: async (id: string) => void log.push(`unmark ${id}`),
      removeFromConversation: async () => {},
    },
    outbox: {
      enqueue: async (job) => {
        if (fail.enqueue === job.askId) throw new Error('queue down');
        log.push(`enqueue ${job.kind} ${job.askId}`);
      },
    },
    steps: {
      schedule: async (id, step) => void log.push(`schedule ${step} ${id}`),
      scheduleMany: async (all) => {
        log.push(`schedules ${all.map((s) => `${s.step}:${s.askId}@${s.at}`).join(' ')}`);
        if (fail.scheduleMany) throw new Error('queue down');
      },
      cancel: async () => {},
    },
    metrics: { askCreated: () => {}, askResolved: () => {}, deliveryFailed: () => {}, guardBlocked: () => {} },
    logger: silentLogger,
    clock: { now: () => 1 },
  });
  return { r, log };
}

const pending = (askId: string, seenAt: number): BatchItem => ({
  askId,
  seenAt,
  effects: [
    { type: 'schedule', step: 'timeout', at: 900 },
    { type: 'schedule', step: 'remind-1', at: 300 },
    { type: 'resweep', at: 905 },
  ],
});
const undelivered = (askId: string): BatchItem => ({
  askId,
  seenAt: 30,
  effects: [
    { type: 'enqueue', job: { kind: 'deliver', index: 0 } },
    { type: 'schedule', step: 'timeout', at: 900 },
    { type: 'resweep', at: 60 },
  ],
});

describe('EffectRunner.strictMany: a reconciler batch in one schedule call and one resweep call', () => {
  it('runs each ask’s own effects first, then every schedule in one call, then every resweep (with its seenAt) in one call', async () => {
    const { r, log } = runner();
    const done: BatchItem = { askId: 'c', effects: [{ type: 'unsweep' }] };
    const stopped = await r.strictMany([pending('a', 10), undelivered('b'), done]);
    expect(stopped).toEqual([null, null, null]);
    expect(log.slice(0, 2).sort()).toEqual(['enqueue deliver b', 'unmark c']);
    expect(log.slice(2)).toEqual(['schedules timeout:a@900 remind-1:a@300 timeout:b@900', 'resweeps a@905/10 b@60/30']);
  });

  it('an ask whose own effect failed is neither scheduled nor reswept (it stays due); the others go on', async () => {
    const { r, log } = runner({ enqueue: 'b' });
    const stopped = await r.strictMany([pending('a', 10), undelivered('b')]);
    expect(stopped[0]).toBeNull();
    expect(String(stopped[1])).toContain('queue down');
    expect(log).toEqual(['schedules timeout:a@900 remind-1:a@300', 'resweeps a@905/10']);
  });

  it('a failed schedule call stops every ask that had a schedule: none is reswept', async () => {
    const { r, log } = runner({ scheduleMany: true });
    const stopped = await r.strictMany([
      pending('a', 10),
      { askId: 'd', seenAt: 5, effects: [{ type: 'resweep', at: 50 }] },
    ]);
    expect(String(stopped[0])).toContain('queue down');
    expect(stopped[1]).toBeNull();
    expect(log.at(-1)).toBe('resweeps d@50/5');
  });

  it('a failed resweep call is reported for every ask it carried', async () => {
    const { r } = runner({ rescheduleSweeps: true });
    const stopped = await r.strictMany([pending('a', 10), pending('b', 11)]);
    expect(stopped.map(String)).toEqual(['Error: index down', 'Error: index down']);
  });

  it('makes no call for a batch with nothing to schedule or resweep', async () => {
    const { r, log } = runner();
    expect(await r.strictMany([])).toEqual([]);
    expect(log).toEqual([]);
  });
});
