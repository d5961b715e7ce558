/** `bench/render.ts --merge`: a partial run's parts put into a full run's results. */
import type { BenchResults } from './report.js';

/** A partial run merged into a full one: what ran, when, and which parts of the results it replaced. */
export interface Rerun {
  command: string;
  startedAt: string;
  durationSeconds: number;
  parts: string[];
}

/** The parts of {@link BenchResults} a partial run brings whole (each replaces the full run's when measured), by their name in the report. */
const WHOLE_PARTS = {
  apiCycle: 'API cycle (§1b)',
  tapToAgent: 'tap row (§2)',
  steps: 'policy steps (§3b)',
  restart: 'restart row (§6)',
  redisCost: 'Redis cost row',
  memoryVariants: 'memory variants',
  sameMachine: 'same-machine pairs',
} as const;

/**
 * `full` with the parts `partial` measured in their place, and the partial run noted in `reruns`.
 * Timeout and full-cycle rows are replaced one by one (by pending count, by label), so
 * `--only=million` replaces the 1,000,000 row and keeps the others; baselines merge by kind.
 */
export function mergeResults(full: BenchResults, partial: BenchResults): BenchResults {
  const merged: BenchResults = { ...full, baselines: { ...full.baselines } };
  const parts: string[] = [];
  for (const [key, name] of Object.entries(WHOLE_PARTS) as [keyof typeof WHOLE_PARTS, string][]) {
    if (partial[key] === undefined) continue;
    (merged as unknown as Record<string, unknown>)[key] = partial[key];
    parts.push(name);
  }
  merged.fullCycle = byRow(full.fullCycle, partial.fullCycle, (r) => r.label);
  parts.push(...partial.fullCycle.map((r) => `full-cycle row ${r.label} (§1)`));
  merged.timeouts = byRow(full.timeouts, partial.timeouts, (t) => t.count);
  parts.push(...partial.timeouts.map((t) => `timeout row at ${t.count.toLocaleString('en-US')} pending (§3)`));
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

/** `rows` with each of `again` in place of the row of the same key (appended when it had none). */
function byRow<T>(rows: readonly T[], again: readonly T[], key: (row: T) => string | number): T[] {
  const out = [...rows];
  for (const row of again) {
    const at = out.findIndex((r) => key(r) === key(row));
    if (at >= 0) out[at] = row;
    else out.push(row);
  }
  return out;
}
