/** `bench/render.ts --merge`: a partial run's parts put into a full run's results. */
import type { BenchResults } from './report.js';

/** A partial run merged into a full one: what ran, when, and which parts of the results it replaced. */
export interface Rerun {
  command: string;
  startedAt: string;
  durationSeconds: number;
  parts: string[];
}

/** The parts of {@link BenchResults} a partial run can bring (each replaces the full run's when measured), by their name in the report. */
const MERGEABLE = {
  fullCycle: 'full-cycle rows (§1)',
  apiCycle: 'API cycle (§1b)',
  tapToAgent: 'tap row (§2)',
  timeouts: 'timeout rows (§3)',
  steps: 'policy steps (§3b)',
  restart: 'restart row (§6)',
  redisCost: 'Redis cost row',
  memoryVariants: 'memory variants',
  sameMachine: 'same-machine pairs',
} as const;

/**
 * `full` with the parts `partial` measured in their place (a list counts when not empty), and the
 * partial run noted in `reruns`; baselines merge by kind (raw, add/remove, lateness).
 */
export function mergeResults(full: BenchResults, partial: BenchResults): BenchResults {
  const merged: BenchResults = { ...full, baselines: { ...full.baselines } };
  const parts: string[] = [];
  for (const [key, name] of Object.entries(MERGEABLE) as [keyof typeof MERGEABLE, string][]) {
    const value = partial[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    (merged as unknown as Record<string, unknown>)[key] = value;
    parts.push(name);
  }
  for (const kind of ['raw', 'addRemove', 'lateness'] as const) {
    if (partial.baselines[kind] === undefined) continue;
    (merged.baselines as Record<string, unknown>)[kind] = partial.baselines[kind];
    parts.push(`baseline ${kind} (§5)`);
  }
  merged.failures = [...full.failures, ...partial.failures];
  merged.reruns = [
    ...(full.reruns ?? []),
    { command: partial.command, startedAt: partial.startedAt, durationSeconds: partial.durationSeconds, parts },
  ];
  return merged;
}
