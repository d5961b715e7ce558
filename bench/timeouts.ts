/**
 * Timeout precision: `count` API asks (no chat target) created through askgate's HTTP API as fast
 * as it takes them, with deadlines spread evenly over `spreadSeconds` starting just after the
 * creation ends; then lateness of each `no_answer`/`timeout` against its deadline. Also the
 * Redis memory per pending ask, taken when all asks are pending.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Semaphore, sleep } from './lib/http.js';
import { info, openWindow, PREFIX, startStack, type Window } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { StoreKeys } from '../src/store/keys.js';
import { thin } from './full-cycle.js';

export interface TimeoutsOptions {
  count: number;
  spreadSeconds: number;
  /** Asks placed at once (each waits < 1 s for its release instant, then its POST). */
  createConcurrency?: number;
  /** askgate as before the bench's optimisations (the `--ab` comparison). */
  before?: boolean;
}

export interface MemoryBreakdown {
  /** used_memory delta / pending asks. */
  bytesPerAsk: number;
  /** MEMORY USAGE of one ask's own keys (median over a sample). */
  keys: Record<string, number>;
}

export interface TimeoutsResult {
  before?: boolean;
  count: number;
  spreadSeconds: number;
  createSeconds: number;
  createPerSecond: number;
  createErrors: number;
  /** Latency of the create requests (ms). */
  createMs: Summary;
  /** Deadlines that fell before the last ask was created (creation overlapping the firing). */
  deadlinesBeforeCreateEnd: number;
  deadlineSpanSeconds: number;
  /** result.at − deadline, as askgate recorded it (ms). */
  latenessMs: Summary;
  /** pub/sub announcement received by a subscriber − deadline (ms): what a waiting agent sees. */
  observedMs: Summary;
  /** Not resolved by the end, resolved otherwise than by timeout, or later than the reconciler grace (5 s). */
  missed: number;
  notTimeout: number;
  memory: MemoryBreakdown;
  askgateProblems: { count: number; samples: string[] };
  window: Window;
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
    'ask hash': [],
    'run hash': [],
    'run asks list': [],
    'id → run map': [],
    'BullMQ timeout job hash': [],
  };
  for (const a of asks) {
    out['ask hash']!.push(await usage(keys.ask(a.runId, a.id)));
    out['run hash']!.push(await usage(keys.run(a.runId)));
    out['run asks list']!.push(await usage(keys.asks(a.runId)));
    out['id → run map']!.push(await usage(keys.idMap(a.id)));
    out['BullMQ timeout job hash']!.push(await usage(`{${PREFIX}}:askgate-timeouts:timeout-${a.id}`));
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
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

export async function timeouts(opts: TimeoutsOptions): Promise<TimeoutsResult> {
  const { count, spreadSeconds } = opts;
  const stack = await startStack({
    env: { ASKGATE_RECONCILE_GRACE_MS: String(GRACE_MS) },
    ...(opts.before ? { before: true } : {}),
  });
  const keys = new StoreKeys(PREFIX);
  const sub = new Redis(stack.redis.url, { maxRetriesPerRequest: null });
  try {
    const announced = new Map<string, number>();
    sub.on('message', (_channel: string, id: string) => {
      if (!announced.has(id)) announced.set(id, Date.now());
    });
    await sub.subscribe(keys.resolvedChannel());
    const ids: string[] = new Array(count);
    const runs: string[] = new Array(count);
    const deadlines = new Float64Array(count);
    // Calibration: askgate's create rate, so the window of deadlines can start right after the
    // creation ends. The calibration asks are cancelled again (they end before the measurement).
    const calibration = Math.min(2000, Math.max(200, Math.ceil(count / 20)));
    const calGate = new Semaphore(200);
    const c0 = Date.now();
    await Promise.all(
      Array.from({ length: calibration }, (_, i) =>
        calGate.run(() =>
          stack.api
            .json('POST', '/v1/asks', { runId: `cal-${i}`, questions: QUESTION, timeoutSeconds: 3600 }, 60_000)
            .catch(() => undefined),
        ),
      ),
    );
    const calRate = calibration / Math.max(0.001, (Date.now() - c0) / 1000);
    await Promise.all(
      Array.from({ length: calibration }, (_, i) =>
        calGate.run(() => stack.api.request('DELETE', `/v1/runs/cal-${i}`).catch(() => undefined)),
      ),
    );
    await sleep(500);
    const mem0 = Number((await info(stack.admin, 'memory')).used_memory);

    // Deadlines: evenly spread over the window, which starts 5 s after the projected end of the
    // creation. The deadline is askgate's createdAt + whole seconds, so each request is released
    // at the instant that makes `createdAt + timeoutSeconds` land on its target.
    const gate = new Semaphore(opts.createConcurrency ?? 3000);
    let createErrors = 0;
    const t0 = Date.now();
    const windowStart = t0 + (count / (calRate * 0.8)) * 1000 + 5000;
    const createMs: number[] = [];
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        gate.run(async () => {
          const now = Date.now();
          const target = windowStart + (spreadSeconds * 1000 * i) / count;
          const timeoutSeconds = Math.max(2, Math.floor((target - now) / 1000));
          const release = target - timeoutSeconds * 1000;
          if (release > now) await sleep(release - now);
          runs[i] = `t-${i}`;
          const sent = performance.now();
          const reply = await stack.api
            .json('POST', '/v1/asks', { runId: runs[i], questions: QUESTION, timeoutSeconds }, 60_000)
            .catch((e: Error) => ({ status: 0, body: { error: e.message } as any }));
          if (reply.status !== 201) {
            createErrors++;
            return;
          }
          createMs.push(performance.now() - sent);
          ids[i] = reply.body.id;
          deadlines[i] = Date.parse(reply.body.expiresAt);
        }),
      ),
    );
    const createEnd = Date.now();
    const createSeconds = (createEnd - t0) / 1000;
    const valid = ids.map((id, i) => (id ? i : -1)).filter((i) => i >= 0);
    let beforeEnd = 0;
    let minDeadline = Infinity;
    let maxDeadline = 0;
    for (const i of valid) {
      if (deadlines[i]! < createEnd) beforeEnd++;
      minDeadline = Math.min(minDeadline, deadlines[i]!);
      maxDeadline = Math.max(maxDeadline, deadlines[i]!);
    }

    await sleep(300);
    const mem1 = Number((await info(stack.admin, 'memory')).used_memory);
    const sample = valid.filter((_, n) => n % Math.max(1, Math.floor(valid.length / 25)) === 0).slice(0, 25);
    const memory: MemoryBreakdown = {
      bytesPerAsk: (mem1 - mem0) / Math.max(1, valid.length),
      keys: await keyBreakdown(
        stack.admin,
        keys,
        sample.map((i) => ({ runId: runs[i]!, id: ids[i]! })),
      ),
    };

    const close = await openWindow(stack);
    const stopAt = maxDeadline + GRACE_MS + 15_000;
    // The calibration asks were announced too (cancelled): count only the measured ones.
    const resolvedCount = () => valid.reduce((n, i) => n + (announced.has(ids[i]!) ? 1 : 0), 0);
    while (Date.now() < stopAt && resolvedCount() < valid.length) await sleep(500);
    await sleep(500);
    const window = await close();
    if (process.env.BENCH_TRACE_EXPIRE) {
      const trace = await stack.child.trace();
      const t0 = trace.reduce((a, b) => Math.min(a, b[0]), Infinity);
      const bySecond = new Map<number, (typeof trace)[number][]>();
      for (const t of trace)
        bySecond.set(Math.floor((t[0] - t0) / 1000), [...(bySecond.get(Math.floor((t[0] - t0) / 1000)) ?? []), t]);
      for (const [sec, l] of [...bySecond].sort((a, b) => a[0] - b[0])) {
        const col = (k: number) => summarize(l.map((x) => x[k]!));
        console.error(
          `[trace] +${sec}s n=${l.length} entry-late p50=${col(1).p50} max=${col(1).max} get p50=${col(2).p50} max=${col(2).max} expire p50=${col(3).p50} max=${col(3).max}`,
        );
      }
    }

    const lateness: number[] = [];
    const observed: number[] = [];
    let missed = 0;
    let notTimeout = 0;
    for (let from = 0; from < valid.length; from += 1000) {
      const batch = valid.slice(from, from + 1000);
      const pipe = stack.admin.pipeline();
      for (const i of batch) pipe.hget(keys.ask(runs[i]!, ids[i]!), 'doc');
      const replies = (await pipe.exec()) ?? [];
      batch.forEach((i, n) => {
        const doc = replies[n]?.[1];
        if (typeof doc !== 'string') return void missed++;
        const record = JSON.parse(doc) as {
          status: string;
          result: { status: string; reason?: string; at?: string } | null;
        };
        if (!record.result) return void missed++;
        if (record.result.reason !== 'timeout') notTimeout++;
        const late = Date.parse(record.result.at!) - deadlines[i]!;
        if (late > GRACE_MS) missed++;
        lateness.push(late);
        const seen = announced.get(ids[i]!);
        if (seen !== undefined) observed.push(seen - deadlines[i]!);
      });
    }
    return {
      ...(opts.before ? { before: true } : {}),
      count,
      spreadSeconds,
      createSeconds,
      createPerSecond: valid.length / createSeconds,
      createErrors,
      createMs: summarize(createMs),
      deadlinesBeforeCreateEnd: beforeEnd,
      deadlineSpanSeconds: (maxDeadline - minDeadline) / 1000,
      latenessMs: summarize(lateness),
      observedMs: summarize(observed),
      missed,
      notTimeout,
      memory,
      askgateProblems: stack.child.problems(),
      window,
      samples: thin(lateness, 5000),
    };
  } finally {
    sub.disconnect();
    await stack.close();
  }
}
