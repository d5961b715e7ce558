import { performance, PerformanceObserver } from 'node:perf_hooks';

/** A garbage-collection pause of this process: wall-clock start (epoch ms) and duration (ms). */
export type GcPause = [startEpochMs: number, durationMs: number];

/** Most pauses kept between resets (a long window keeps its first ones). */
const MAX_PAUSES = 100_000;

/**
 * Records this process's GC pauses on the wall clock, so pauses of different processes can be set
 * against one another's timings (the tap bench attributes slow taps to them).
 */
export function recordGcPauses(): { pauses(): GcPause[]; reset(): void } {
  let pauses: GcPause[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (pauses.length < MAX_PAUSES) pauses.push([performance.timeOrigin + entry.startTime, entry.duration]);
  }).observe({ entryTypes: ['gc'] });
  return { pauses: () => pauses, reset: () => void (pauses = []) };
}

/** Whether the span [fromEpochMs, toEpochMs] overlaps any of `pauses`. */
export function overlapsPause(pauses: readonly GcPause[], fromEpochMs: number, toEpochMs: number): boolean {
  return pauses.some(([start, duration]) => start < toEpochMs && start + duration > fromEpochMs);
}
