/**
 * Timeout precision: `count` API asks (no chat target) created through askgate's HTTP API as fast
 * as it takes them, with deadlines spread evenly over `spreadSeconds` starting just after the
 * creation ends; then lateness of each `no_answer`/`timeout` against its deadline. Also the
 * Redis memory per pending ask, taken when all asks are pending.
 */
import { freemem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { lanes, Semaphore, sleep } from './lib/http.js';
import { info, openWindow, PREFIX, startStack, type Window } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { cpuMeter, type CpuUse } from './lib/machine.js';
import { StoreKeys } from '../src/store/keys.js';
import { RedisAskStore } from '../src/store/redis-store.js';
import { thin } from './full-cycle.js';
import { latenessByRewrite, watchRedis, type LatenessByRewrite, type RedisTimeline } from './lib/redis-timeline.js';

export interface TimeoutsOptions {
  count: number;
  spreadSeconds: number;
  /** Asks placed at once (each waits < 1 s for its release instant, then its POST). */
  createConcurrency?: number;
}

export interface MemoryBreakdown {
  /** used_memory delta / pending asks. */
  bytesPerAsk: number;
  /** INFO memory used_memory and used_memory_rss with every ask pending (absent in older results). */
  usedMemoryBytes?: number;
  rssBytes?: number;
  /** MEMORY USAGE of one ask's own keys (median over a sample). */
  keys: Record<string, number>;
}

export interface TimeoutsResult {
  /** Older results only: a row of the removed `--ab` mode (askgate with parts patched out), left out of every table. */
  before?: boolean;
  count: number;
  spreadSeconds: number;
  createSeconds: number;
  createPerSecond: number;
  createErrors: number;
  /** The first few failed creates (status and body; absent in older results). */
  createErrorSamples?: string[];
  /** Latency of the create requests (ms). */
  createMs: Summary;
  /** CPU while the asks were created (bench = the load generator; absent in older results). */
  createCpu?: CpuUse;
  /** Deadlines that fell before the last ask was created (creation overlapping the firing). */
  deadlinesBeforeCreateEnd: number;
  /** Seconds between the end of the creation and the first deadline (the margin of the projection; absent in older results). */
  idleBeforeDeadlinesSeconds?: number;
  deadlineSpanSeconds: number;
  /** result.at − deadline, as askgate recorded it (ms). */
  latenessMs: Summary;
  /** pub/sub announcement received by a subscriber − deadline (ms): what a waiting agent sees. */
  observedMs: Summary;
  /** The observed figure is taken from every n-th ask (1 = all; absent in older results). */
  observedSampled?: number;
  /** Not resolved by the end, resolved otherwise than by timeout, or later than the reconciler grace (5 s). */
  missed: number;
  notTimeout: number;
  memory: MemoryBreakdown;
  askgateProblems: { count: number; samples: string[] };
  window: Window;
  /** Redis's AOF rewrites and latency events while the timeouts fired (absent in older results). */
  redisTimeline?: RedisTimeline;
  /** Lateness of the asks due during each of those rewrites and of the others (absent in older results). */
  byRewrite?: LatenessByRewrite;
  samples: number[];
}

const QUESTION = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];
const GRACE_MS = 5000;

/** MEMORY USAGE (median over a sample) of one ask's keys. */
async function keyBreakdown(
  admin: Redis,
  keys: StoreKeys,
  asks: { runId: string; id: string }[],
): Promise<Record<string, number>> {
  const usage = async (key: string) => Number((await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  const out: Record<string, number[]> = {
    'ask record': [],
    'run hash': [],
    'id → run map': [],
    'BullMQ timeout job hash': [],
  };
  for (const a of asks) {
    out['ask record']!.push(await usage(keys.ask(a.runId, a.id)));
    out['run hash']!.push(await usage(keys.run(a.runId)));
    out['id → run map']!.push(await usage(keys.idMap(a.id)));
    out['BullMQ timeout job hash']!.push(await usage(`{${PREFIX}}:askgate-timeouts:timeout-${a.id}`));
  }
  // Keys a checkout does not write are left out.
  return Object.fromEntries(Object.entries(out).flatMap(([k, v]) => (median(v) > 0 ? [[k, median(v)]] : [])));
}

export interface MemoryResult extends MemoryBreakdown {
  count: number;
  redisArgs: string[];
}

/** Redis memory per pending API ask: `count` asks with a 1-hour timeout, used_memory delta ÷ count. */
export async function memoryPerAsk(count: number, redisArgs: string[] = []): Promise<MemoryResult> {
  const stack = await startStack({ redisArgs });
  const keys = new StoreKeys(PREFIX);
  try {
    await sleep(300);
    const mem0 = Number((await info(stack.admin, 'memory')).used_memory);
    const gate = new Semaphore(200);
    const made: { runId: string; id: string }[] = [];
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        gate.run(async () => {
          const reply = await stack.api.json(
            'POST',
            '/v1/asks',
            { runId: `m-${i}`, questions: QUESTION, timeoutSeconds: 3600 },
            60_000,
          );
          if (reply.status === 201) made.push({ runId: `m-${i}`, id: reply.body.id });
        }),
      ),
    );
    await sleep(300);
    const mem1 = Number((await info(stack.admin, 'memory')).used_memory);
    const sample = made.filter((_, n) => n % Math.max(1, Math.floor(made.length / 25)) === 0).slice(0, 25);
    return {
      count: made.length,
      redisArgs,
      bytesPerAsk: (mem1 - mem0) / Math.max(1, made.length),
      keys: await keyBreakdown(stack.admin, keys, sample),
    };
  } finally {
    await stack.close();
  }
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** Free memory the machine needs for `count` pending asks: Redis (~4 KB each, with slack) twice over (an AOF rewrite forks it). */
export function memoryNeededBytes(count: number): number {
  return count * 4096 * 2;
}

/**
 * Fixed-width store of ask ids (ASCII, up to {@link ID_WIDTH} − 1 characters) in one buffer, so a
 * million of them cost 32 MB instead of a million strings.
 */
const ID_WIDTH = 32;
class IdTable {
  private readonly bytes: Uint8Array;
  constructor(readonly count: number) {
    this.bytes = new Uint8Array(count * ID_WIDTH);
  }
  set(i: number, id: string): void {
    if (id.length >= ID_WIDTH) throw new Error(`ask id longer than ${ID_WIDTH - 1} characters: ${id}`);
    const at = i * ID_WIDTH;
    this.bytes[at] = id.length;
    for (let k = 0; k < id.length; k++) this.bytes[at + 1 + k] = id.charCodeAt(k);
  }
  has(i: number): boolean {
    return this.bytes[i * ID_WIDTH] !== 0;
  }
  get(i: number): string {
    const at = i * ID_WIDTH;
    return String.fromCharCode(...this.bytes.subarray(at + 1, at + 1 + this.bytes[at]!));
  }
}

/**
 * Diagnostic `BENCH_REDIS_STALLS=<ms>/<everyMs>`: blocks Redis (`DEBUG SLEEP`) for `ms` every
 * `everyMs` while the timeouts fire, as a Redis stalling through an AOF rewrite on a slow machine
 * does; needs `BENCH_REDIS_ARGS="--enable-debug-command local"` (refused at once without it, before
 * the stalls start). Returns the stopper.
 */
async function stallRedis(url: string, spec: string | undefined): Promise<() => Promise<void>> {
  const [ms, every] = (spec ?? '').split('/').map(Number);
  if (!ms || !every) return async () => undefined;
  const conn = new Redis(url, { maxRetriesPerRequest: null });
  await conn.call('DEBUG', 'SLEEP', '0').catch((err: Error) => {
    conn.disconnect();
    throw err;
  });
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(every);
      if (!stopped) await conn.call('DEBUG', 'SLEEP', String(ms / 1000));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    conn.disconnect();
  };
}

export async function timeouts(opts: TimeoutsOptions): Promise<TimeoutsResult> {
  const { count, spreadSeconds } = opts;
  if (freemem() < memoryNeededBytes(count))
    throw new Error(
      `timeouts ${count}: needs about ${(memoryNeededBytes(count) / 2 ** 30).toFixed(1)} GiB free, the machine has ${(freemem() / 2 ** 30).toFixed(1)} GiB`,
    );
  const stack = await startStack({
    env: { ASKGATE_RECONCILE_GRACE_MS: String(GRACE_MS) },
  });
  const keys = new StoreKeys(PREFIX);
  const sub = new Redis(stack.redis.url, { maxRetriesPerRequest: null });
  const reader = new Redis(stack.redis.url, { maxRetriesPerRequest: null, enableAutoPipelining: true });
  try {
    // What the generator keeps per ask: its id (fixed width), deadline and create latency, in
    // typed arrays; run ids are `t-<i>`. Only every OBSERVE_EVERY-th ask's announcement time is kept.
    const ids = new IdTable(count);
    const deadlines = new Float64Array(count);
    const createMs = new Float64Array(count);
    let created = 0;
    const runOf = (i: number) => `t-${i}`;
    const OBSERVE_EVERY = Math.max(1, Math.floor(count / 20_000));
    const watched = new Map<string, number>();
    const announced = new Map<string, number>();
    let announcements = 0;
    let listening = false;
    sub.on('message', (_channel: string, id: string) => {
      if (!listening) return;
      announcements++;
      if (watched.has(id) && !announced.has(id)) announced.set(id, Date.now());
    });
    await sub.subscribe(keys.resolvedChannel());
    // Calibration: askgate's create rate, so the window of deadlines can start right after the
    // creation ends. The calibration asks are cancelled again (they end before the measurement).
    const calibration = count > 100_000 ? 10_000 : Math.min(2000, Math.max(200, Math.ceil(count / 20)));
    // Above 100,000 asks, calibrated at the creation's own concurrency (200 at a time measured
    // ~20 % below what 3,000 at a time reach, which left the deadlines waiting).
    const calLanes = count > 100_000 ? (opts.createConcurrency ?? 3000) : 200;
    // Above 100,000 asks, a first burst warms askgate up: measured cold, the rate came out at 55–70 %
    // of the creation's own, and the deadlines began 5–8 minutes after the creation ended.
    let calRate = 0;
    for (const round of count > 100_000 ? ['warm-up', 'calibration'] : ['calibration']) {
      const c0 = Date.now();
      await lanes(calibration, calLanes, (i) =>
        stack.api
          .json('POST', '/v1/asks', { runId: `cal-${i}`, questions: QUESTION, timeoutSeconds: 3600 }, 60_000)
          .then(
            () => undefined,
            () => undefined,
          ),
      );
      calRate = calibration / Math.max(0.001, (Date.now() - c0) / 1000);
      if (process.env.BENCH_DEBUG)
        console.error(`[timeouts ${count}] ${round}: ${calibration} asks at ${calRate.toFixed(0)}/s`);
      await lanes(calibration, 200, (i) =>
        stack.api.request('DELETE', `/v1/runs/cal-${i}`).then(
          () => undefined,
          () => undefined,
        ),
      );
    }
    await sleep(500);
    listening = true;
    const mem0 = Number((await info(stack.admin, 'memory')).used_memory);

    // Deadlines: evenly spread over the window, which starts 5 s after the projected end of the
    // creation. The deadline is askgate's createdAt + whole seconds, so each request is released
    // at the instant that makes `createdAt + timeoutSeconds` land on its target.
    let createErrors = 0;
    const createErrorSamples: string[] = [];
    const t0 = Date.now();
    // Beyond 100,000 asks the create rate drops further below the calibration's (Redis grows, AOF
    // rewrites): a wider margin keeps the deadlines after the creation.
    const margin = count > 100_000 ? 0.75 : 0.8;
    const windowStart = t0 + (count / (calRate * margin)) * 1000 + 5000;
    const progress = process.env.BENCH_DEBUG
      ? setInterval(
          () =>
            console.error(
              `[timeouts ${count}] +${((Date.now() - t0) / 1000).toFixed(0)} s: created ${created}, failed ${createErrors}; first deadline in ${((windowStart - Date.now()) / 1000).toFixed(0)} s`,
            ),
          10_000,
        )
      : undefined;
    const stopCreateCpu = cpuMeter({ bench: process.pid, askgate: stack.child.pid, redis: stack.redis.pid() });
    await lanes(count, opts.createConcurrency ?? 3000, async (i) => {
      const now = Date.now();
      const target = windowStart + (spreadSeconds * 1000 * i) / count;
      const timeoutSeconds = Math.max(2, Math.floor((target - now) / 1000));
      const release = target - timeoutSeconds * 1000;
      if (release > now) await sleep(release - now);
      const sent = performance.now();
      const reply = await stack.api
        .json('POST', '/v1/asks', { runId: runOf(i), questions: QUESTION, timeoutSeconds }, 60_000)
        .catch((e: Error) => ({ status: 0, body: { error: e.message } as any }));
      if (reply.status !== 201) {
        if (createErrors++ < 5) createErrorSamples.push(`${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
        return;
      }
      createMs[created++] = performance.now() - sent;
      ids.set(i, reply.body.id);
      if (i % OBSERVE_EVERY === 0) watched.set(reply.body.id, i);
      deadlines[i] = Date.parse(reply.body.expiresAt);
    });
    clearInterval(progress);
    const createEnd = Date.now();
    const createCpu = stopCreateCpu();
    const createSeconds = (createEnd - t0) / 1000;
    let beforeEnd = 0;
    let minDeadline = Infinity;
    let maxDeadline = 0;
    for (let i = 0; i < count; i++) {
      if (!ids.has(i)) continue;
      if (deadlines[i]! < createEnd) beforeEnd++;
      minDeadline = Math.min(minDeadline, deadlines[i]!);
      maxDeadline = Math.max(maxDeadline, deadlines[i]!);
    }

    await sleep(300);
    const memInfo = await info(stack.admin, 'memory');
    const mem1 = Number(memInfo.used_memory);
    const step = Math.max(1, Math.floor(count / 25));
    const sample: { runId: string; id: string }[] = [];
    for (let i = 0; i < count && sample.length < 25; i += step)
      if (ids.has(i)) sample.push({ runId: runOf(i), id: ids.get(i) });
    const memory: MemoryBreakdown = {
      bytesPerAsk: (mem1 - mem0) / Math.max(1, created),
      keys: await keyBreakdown(stack.admin, keys, sample),
      usedMemoryBytes: mem1,
      rssBytes: Number(memInfo.used_memory_rss),
    };

    const close = await openWindow(stack);
    const stopTimeline = watchRedis(stack.admin);
    const stopStalls = await stallRedis(stack.redis.url, process.env.BENCH_REDIS_STALLS);
    const stopAt = maxDeadline + GRACE_MS + 15_000;
    while (Date.now() < stopAt && announcements < created) await sleep(500);
    await sleep(500);
    await stopStalls();
    const window = await close();
    const redisTimeline = await stopTimeline();
    // Read every record back through askgate's own store code (so a change of the record's
    // encoding changes nothing here), 500 at a time on one auto-pipelined connection.
    const store = new RedisAskStore(reader, { prefix: PREFIX });
    const lateness = new Float64Array(created);
    const dueAt = new Float64Array(created);
    let measured = 0;
    let missed = 0;
    let notTimeout = 0;
    await lanes(count, 500, async (i) => {
      if (!ids.has(i)) return;
      const record = await store.get(ids.get(i)).catch(() => null);
      const result = record?.result as { reason?: string; at?: string } | null | undefined;
      if (!result?.at) return void missed++;
      if (result.reason !== 'timeout') notTimeout++;
      const late = Date.parse(result.at) - deadlines[i]!;
      if (late > GRACE_MS) missed++;
      dueAt[measured] = deadlines[i]!;
      lateness[measured++] = late;
    });
    const observed: number[] = [];
    for (const [id, i] of watched) {
      const seen = announced.get(id);
      if (seen !== undefined) observed.push(seen - deadlines[i]!);
    }
    const late = lateness.subarray(0, measured);
    return {
      count,
      spreadSeconds,
      createSeconds,
      createPerSecond: created / createSeconds,
      createErrors,
      createErrorSamples,
      createMs: summarize(createMs.subarray(0, created)),
      createCpu,
      deadlinesBeforeCreateEnd: beforeEnd,
      idleBeforeDeadlinesSeconds: (minDeadline - createEnd) / 1000,
      deadlineSpanSeconds: (maxDeadline - minDeadline) / 1000,
      latenessMs: summarize(late),
      observedMs: summarize(observed),
      observedSampled: OBSERVE_EVERY,
      missed,
      notTimeout,
      memory,
      askgateProblems: stack.child.problems(),
      window,
      redisTimeline,
      byRewrite: latenessByRewrite(dueAt.subarray(0, measured), late, redisTimeline.rewrites, minDeadline),
      samples: thin(Array.from(late), 5000),
    };
  } finally {
    sub.disconnect();
    reader.disconnect();
    await stack.close();
  }
}
