import { describe, expect, it } from 'vitest';
import { mergeResults } from '../../bench/merge-results.js';
import type { BenchResults } from '../../bench/report.js';

/** A results object with only the fields the merge reads; the rest is opaque to it. */
function results(over: Partial<BenchResults>): BenchResults {
  return {
    mode: 'full',
    command: 'npm run bench',
    startedAt: '2026-12-05T20:38:20.029Z',
    durationSeconds: 3341,
    baselines: {},
    fullCycle: [],
    timeouts: [],
    failures: [],
    ...over,
  } as BenchResults;
}

const full = results({
  fullCycle: [{ label: 'full' }] as unknown as BenchResults['fullCycle'],
  timeouts: [
    { count: 100_000, p99: 'full' },
    { count: 1_000_000, p99: 'full' },
  ] as unknown as BenchResults['timeouts'],
  tapToAgent: { p99: 'full' } as unknown as BenchResults['tapToAgent'],
  apiCycle: { p50: 'full' } as unknown as BenchResults['apiCycle'],
  baselines: { raw: 'full raw', lateness: ['full lateness'] } as unknown as BenchResults['baselines'],
  failures: [{ scenario: 'million', error: 'full' }],
});

const partial = results({
  command: 'npm run bench -- --only=tap,same-machine',
  startedAt: '2026-12-05T21:44:23.955Z',
  durationSeconds: 515,
  tapToAgent: { p99: 'partial' } as unknown as BenchResults['tapToAgent'],
  sameMachine: { rev: 'partial' } as unknown as BenchResults['sameMachine'],
  baselines: { lateness: ['partial lateness'] } as unknown as BenchResults['baselines'],
  failures: [{ scenario: 'tap', error: 'partial' }],
});

describe('mergeResults (bench/render.ts --merge)', () => {
  it('replaces exactly the parts the partial run measured and keeps the rest of the full run', () => {
    const merged = mergeResults(full, partial);
    expect(merged.tapToAgent).toBe(partial.tapToAgent);
    expect(merged.sameMachine).toBe(partial.sameMachine);
    // Empty lists in the partial run were not measured: the full run's rows stay.
    expect(merged.fullCycle).toEqual(full.fullCycle);
    expect(merged.timeouts).toEqual(full.timeouts);
    expect(merged.apiCycle).toBe(full.apiCycle);
    expect(merged.baselines).toEqual({ raw: 'full raw', lateness: ['partial lateness'] });
    expect(merged.startedAt).toBe(full.startedAt);
    expect(merged.failures).toEqual([...full.failures, ...partial.failures]);
  });

  it('notes the partial run and the parts it replaced, by their names in the report', () => {
    expect(mergeResults(full, partial).reruns).toEqual([
      {
        command: 'npm run bench -- --only=tap,same-machine',
        startedAt: '2026-12-05T21:44:23.955Z',
        durationSeconds: 515,
        parts: ['tap row (§2)', 'same-machine pairs', 'baseline lateness (§5)'],
      },
    ]);
  });

  it('adds to earlier reruns and leaves its inputs as they were', () => {
    const fullCopy = structuredClone(full);
    const twice = mergeResults(mergeResults(full, partial), partial);
    expect(twice.reruns).toHaveLength(2);
    expect(full).toEqual(fullCopy);
    expect(full.reruns).toBeUndefined();
  });

  it('replaces timeout and full-cycle rows one by one: --only=million keeps the other timeout rows', () => {
    const million = results({
      command: 'npm run bench -- --only=million',
      timeouts: [{ count: 1_000_000, p99: 'again' }] as unknown as BenchResults['timeouts'],
      fullCycle: [{ label: 'slack × 100' }] as unknown as BenchResults['fullCycle'],
    });
    const merged = mergeResults(full, million);
    expect(merged.timeouts).toEqual([
      { count: 100_000, p99: 'full' },
      { count: 1_000_000, p99: 'again' },
    ]);
    expect(merged.fullCycle).toEqual([{ label: 'full' }, { label: 'slack × 100' }]);
    expect(merged.tapToAgent).toBe(full.tapToAgent);
    expect(merged.reruns?.[0]?.parts).toEqual([
      'full-cycle row slack × 100 (§1)',
      'timeout row at 1,000,000 pending (§3)',
    ]);
  });
});
