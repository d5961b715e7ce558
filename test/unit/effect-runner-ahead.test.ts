import { describe, expect, it } from 'vitest';
import { EffectRunner } from '../../src/app/effect-runner.js';
import type { Effect } from '../../src/core/effects.js';
import { silentLogger } from '../helpers/logs.js';

/** A runner whose sweep mark fails the first `failures` times; `log` lists what ran, in order. */
function runner(failures = 0, enqueueFails = false) {
  const log: string[] = [];
  let left = failures;
  const r = new EffectRunner({
    indexes: {
      markForSweep: async (_id: string, at: number) => {
        log.push(`mark ${at}`);
        if (left-- > 0) throw new Error('NOSCRIPT then gone');
      },
      rescheduleSweep: async () => true,
      rescheduleSweeps: async (moves) => moves.map(() => true),
      unmarkSweep: async () => void log.push('unmark'),
      removeFromConversation: async () => void log.push('leave'),
    },
    outbox: {
      enqueue: async (job) => {
        if (enqueueFails) throw new Error('queue down');
        log.push(`enqueue ${job.kind}`);
      },
    },
    steps: {
      schedule: async (_id, step) => void log.push(`schedule ${step}`),
      scheduleMany: async () => {},
      cancel: async () => {},
    },
    metrics: { askCreated: () => {}, askResolved: () => {}, deliveryFailed: () => {}, guardBlocked: () => {} },
    logger: silentLogger,
    clock: { now: () => 1 },
  });
  return { r, log };
}

const mark: Effect[] = [{ type: 'sweepAt', at: 5 }];

describe('EffectRunner.ahead: the write-ahead mark, then the write it guards', () => {
  it('the mark is issued before the write', async () => {
    const { r, log } = runner();
    const result = await r.ahead('a1', mark, async () => (log.push('write'), 'ok'));
    expect(result).toBe('ok');
    expect(log).toEqual(['mark 5', 'write']);
  });

  it('a failed mark stops the write', async () => {
    const { r, log } = runner(1);
    await expect(r.ahead('a1', mark, async () => void log.push('write'))).rejects.toThrow(/NOSCRIPT/);
    expect(log).toEqual(['mark 5']);
  });

  it('settle sends the unmark with the rest, and a failure marks the ask due only after the unmark', async () => {
    const { r: failing, log } = runner(0, true);
    await failing.settle('a1', [
      { type: 'unsweep' },
      { type: 'leave', conversation: { channel: 'c', chat: '1' } },
      { type: 'enqueue', job: { kind: 'finalize', index: 0 } },
    ]);
    expect(log).toEqual(['unmark', 'leave', 'mark 1']);
  });

  it('strict runs consecutive schedules and jobs together, in the order given', async () => {
    const { r, log } = runner();
    await r.strict('a1', [
      { type: 'schedule', step: 'timeout', at: 9 },
      { type: 'enqueue', job: { kind: 'deliver', index: 0 } },
      { type: 'sweepAt', at: 7 },
    ]);
    expect(log).toEqual(['schedule timeout', 'enqueue deliver', 'mark 7']);
  });
});
