import type { Redis } from 'ioredis';
import { info } from './stack.js';

/** One AOF rewrite Redis ran, as the timeline saw it (epoch ms, to the poll's resolution). */
export interface RewriteSpan {
  startMs: number;
  endMs: number;
}

/** A latency event Redis logged (`LATENCY HISTORY`: one entry per second, its worst). */
export interface LatencyEvent {
  event: string;
  /** Epoch ms of the second it was logged in. */
  atMs: number;
  ms: number;
}

/** What Redis did over a stretch of time: its AOF rewrites, its latency events, its AOF's growth. */
export interface RedisTimeline {
  rewrites: RewriteSpan[];
  events: LatencyEvent[];
  /** Bytes the AOF grew by over the stretch, summed over the polls it grew between (a poll where a rewrite's end shrank it counts nothing). */
  aofBytesWritten: number;
  /** Times Redis wrote the AOF while a previous fsync was still running (it then blocks if that lasts > 2 s). */
  delayedFsyncs: number;
}

/**
 * Polls `INFO persistence` every `everyMs` until stopped, so a result can be set against when Redis
 * rewrote its AOF; on stop, reads the latency events logged since it started. A stalled Redis
 * delays only the polls on `redis`.
 */
export function watchRedis(redis: Redis, everyMs = 100): () => Promise<RedisTimeline> {
  const sinceMs = Date.now();
  const rewrites: RewriteSpan[] = [];
  let open: number | null = null;
  let lastSize: number | null = null;
  let aofBytesWritten = 0;
  let fsync0: number | null = null;
  let fsync1 = 0;
  let stopped = false;
  const poll = async () => {
    const p = await info(redis, 'persistence');
    const now = Date.now();
    const rewriting = p.aof_rewrite_in_progress === '1';
    if (rewriting && open === null) open = now;
    if (!rewriting && open !== null) {
      rewrites.push({ startMs: open, endMs: now });
      open = null;
    }
    // aof_current_size falls back to the new base's size when a rewrite ends; growth is what it gained in between.
    const size = Number(p.aof_current_size ?? 0);
    if (lastSize !== null && size > lastSize) aofBytesWritten += size - lastSize;
    lastSize = size;
    fsync1 = Number(p.aof_delayed_fsync ?? 0);
    fsync0 ??= fsync1;
  };
  const loop = (async () => {
    while (!stopped) {
      await poll().catch(() => undefined);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    if (open !== null) rewrites.push({ startMs: open, endMs: Date.now() });
    const latest = (await redis.call('LATENCY', 'LATEST')) as [string, number, number, number][];
    const events: LatencyEvent[] = [];
    for (const [event] of latest ?? []) {
      const history = (await redis.call('LATENCY', 'HISTORY', event)) as [number, number][];
      for (const [at, ms] of history)
        if (at * 1000 >= sinceMs - 1000) events.push({ event, atMs: at * 1000, ms: Number(ms) });
    }
    events.sort((a, b) => a.atMs - b.atMs);
    return { rewrites, events, aofBytesWritten, delayedFsyncs: fsync1 - (fsync0 ?? fsync1) };
  };
}

/** p99 of `values` (NaN when empty). */
const p99 = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? NaN;

/** Lateness of the asks due during each rewrite (start to end + `afterMs`), and of all the others. */
export interface LatenessByRewrite {
  /** Epoch ms of the first deadline (the zero of the seconds below). */
  firstDeadlineMs: number;
  /** Per rewrite (seconds from the first deadline): asks due in it, their p99 and max lateness (ms). */
  during: { fromS: number; toS: number; asks: number; p99Ms: number; maxMs: number }[];
  /** Asks due outside every rewrite span. */
  outside: { asks: number; p99Ms: number; maxMs: number };
}

/**
 * Splits lateness by whether the ask fell due during an AOF rewrite (or within `afterMs` after one
 * ended: what piled up then drains after it). `deadlines[i]` and `lateness[i]` belong to one ask.
 */
export function latenessByRewrite(
  deadlines: ArrayLike<number>,
  lateness: ArrayLike<number>,
  rewrites: readonly RewriteSpan[],
  firstDeadlineMs: number,
  afterMs = 5000,
): LatenessByRewrite {
  const inside = rewrites.map(() => [] as number[]);
  const outside: number[] = [];
  for (let i = 0; i < lateness.length; i++) {
    const at = deadlines[i]!;
    const k = rewrites.findIndex((r) => at >= r.startMs && at < r.endMs + afterMs);
    (k >= 0 ? inside[k]! : outside).push(lateness[i]!);
  }
  const max = (v: number[]) => v.reduce((a, b) => Math.max(a, b), -Infinity);
  return {
    firstDeadlineMs,
    during: rewrites.map((r, k) => ({
      fromS: (r.startMs - firstDeadlineMs) / 1000,
      toS: (r.endMs - firstDeadlineMs) / 1000,
      asks: inside[k]!.length,
      p99Ms: p99(inside[k]!),
      maxMs: max(inside[k]!),
    })),
    outside: { asks: outside.length, p99Ms: p99(outside), maxMs: max(outside) },
  };
}
