import { performance, PerformanceObserver } from 'node:perf_hooks';

/** A pause of this process's event loop: wall-clock start (epoch ms) and duration (ms). */
export type Pause = [startEpochMs: number, durationMs: number];

/** Most pauses kept between resets (a long window keeps its first ones). */
const MAX_PAUSES = 100_000;

/**
 * Records this process's GC pauses on the wall clock, so pauses of different processes can be set
 * against one another's timings (the tap bench attributes slow taps to them).
 */
export function recordGcPauses(): { pauses(): Pause[]; reset(): void } {
  let pauses: Pause[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (pauses.length < MAX_PAUSES) pauses.push([performance.timeOrigin + entry.startTime, entry.duration]);
  }).observe({ entryTypes: ['gc'] });
  return { pauses: () => pauses, reset: () => void (pauses = []) };
}

/**
 * Records the spans in which this process's event loop did not get back to its timers for more
 * than `thresholdMs` (a long task, a burst of callbacks, a GC pause, the process descheduled), by
 * a 1 ms interval that notes how late it ran. Costs about a thousand wake-ups a second: only the
 * tap row turns it on.
 */
export function recordLoopStalls(thresholdMs = 3): { stalls(): Pause[]; reset(): void; stop(): void } {
  let stalls: Pause[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 1;
    if (late > thresholdMs && stalls.length < MAX_PAUSES) stalls.push([performance.timeOrigin + last + 1, late]);
    last = now;
  }, 1);
  timer.unref();
  return { stalls: () => stalls, reset: () => void (stalls = []), stop: () => clearInterval(timer) };
}

/** Whether the span [fromEpochMs, toEpochMs] overlaps any of `pauses`. */
export function overlapsPause(pauses: readonly Pause[], fromEpochMs: number, toEpochMs: number): boolean {
  return pauses.some(([start, duration]) => start < toEpochMs && start + duration > fromEpochMs);
}
