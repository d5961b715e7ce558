/**
 * Tap to agent: `pending` asks delivered to Telegram (one chat each) with an agent long-polling
 * each one (`GET /v1/asks/:id?wait=600`); humans then tap at a steady rate. Latency is from the
 * tap's webhook update leaving for askgate to the agent's waiting call returning.
 */
import { performance } from 'node:perf_hooks';
import { HttpClient, Semaphore, sleep } from './lib/http.js';
import { info, openWindow, startStack, type Window } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { telegramWorld, type Delivered } from './lib/world.js';
import { thin } from './full-cycle.js';
import { overlapsPause, recordGcPauses, recordLoopStalls, type Pause } from './lib/pauses.js';

const benchGc = recordGcPauses();

/** Agents' waiting calls opened at once, 100 ms apart (see where they are opened). */
const POLLERS_PER_BURST = 400;

export interface TapToAgentOptions {
  pending: number;
  tapsPerSecond: number;
  tapSeconds: number;
  /**
   * Record both processes' event-loop stalls to attribute the slow taps (default true). The
   * recording is a 1 ms interval timer in each process, which the code before issue 19's own tap
   * row does not run: the same-machine pairs leave it out.
   */
  attribute?: boolean;
  /**
   * Seconds of taps, at the same rate, on asks of their own before the measured taps (default 5).
   * The agents' 10,000 waiting calls open within a few seconds, and askgate's first scavenges after
   * that copy their objects (55 and 30 ms on a 2-core VM): without a warm-up those two pauses held
   * up 29 of the 30 slowest of 3,000 taps, the tail of a moment rather than of 10,000 asks pending.
   */
  warmupSeconds?: number;
  /** The checkout whose askgate runs (default this one; see {@link StackOptions.tree}). */
  tree?: string;
}

export interface TapToAgentResult {
  pending: number;
  tapsPerSecond: number;
  taps: number;
  createSeconds: number;
  createPerSecond: number;
  deliveredSeconds: number;
  latencyMs: Summary;
  /** Achieved tap rate (the generator is open loop; a busy machine can make it lag). */
  achievedTapsPerSecond: number;
  /** The warm-up taps (not in the figures above): how many, and their latency. */
  warmup: { taps: number; latencyMs: Summary };
  lost: number;
  earlyReturns: number;
  /** Why taps were lost: tap posts that failed, and agents' waiting calls that failed. */
  lostWhy: { tapErrors: number; pollErrors: number; pollErrorSamples: string[] };
  redisBytesPerPendingAsk: number;
  askgateProblems: { count: number; samples: string[] };
  window: Window;
  samples: number[];
  /** The taps set against the GC pauses of askgate and of the bench process (fake Telegram, agents). */
  gc: GcAttribution;
  /** The taps set against the event-loop stalls of the two processes (GC pauses among them). */
  stalls?: StallAttribution;
}

/**
 * Which loop held each tap up: askgate's stalls (its loop > 3 ms away from its timers: a long task,
 * a burst, a GC pause), then, for the others, the bench process's; and the latency of the taps
 * that neither loop held up (what is left: Redis, the kernel, the VM).
 */
export interface StallAttribution {
  askgateStalls: number;
  benchStalls: number;
  /** Taps in flight during a stall of askgate's loop. */
  tapsDuringAskgateStall: number;
  /** Of the other taps, those in flight during a stall of the bench process's loop. */
  tapsDuringBenchStall: number;
  latencyOutsideStallsMs: Summary;
}

/** How many taps were in flight while askgate or the bench paused for GC, and the latency of the others. */
export interface GcAttribution {
  askgatePauses: number;
  benchPauses: number;
  /** Taps whose span (update sent → agent returned) overlaps a pause of either process. */
  tapsDuringAPause: number;
  latencyOutsidePausesMs: Summary;
}

const QUESTION = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where should I deploy?',
    options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
  },
];

export async function tapToAgent(opts: TapToAgentOptions): Promise<TapToAgentResult> {
  const { pending } = opts;
  const warmupTaps = Math.round(opts.tapsPerSecond * (opts.warmupSeconds ?? 5));
  // Asks 0…pending−1 are the measured ones; the warm-up taps answer the ones after them.
  const asks = pending + warmupTaps;
  const world = await telegramWorld(asks);
  const attribute = opts.attribute ?? true;
  const env: Record<string, string> = attribute ? { BENCH_LOOP_STALLS: '1' } : {};
  const stack = await startStack({
    world,
    env,
    ...(opts.tree ? { tree: opts.tree } : {}),
  });
  const pollers = new HttpClient(stack.child.url);
  try {
    const delivered = new Map<string, Delivered>();
    world.onDelivered = (d) => delivered.set(d.chat, d);
    const mem0 = Number((await info(stack.admin, 'memory')).used_memory);

    const ids: string[] = new Array(asks);
    const gate = new Semaphore(100);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: asks }, (_, i) =>
        gate.run(async () => {
          const body = { runId: `run-${i}`, to: world.target(i), questions: QUESTION, timeoutSeconds: 3600 };
          const reply = await stack.api.json('POST', '/v1/asks', body);
          if (reply.status !== 201)
            throw new Error(`ask failed: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
          ids[i] = reply.body.id;
        }),
      ),
    );
    const createSeconds = (performance.now() - t0) / 1000;
    for (let waited = 0; delivered.size < asks && waited < 300_000; waited += 100) await sleep(100);
    const deliveredSeconds = (performance.now() - t0) / 1000;
    await sleep(1000);
    const mem1 = Number((await info(stack.admin, 'memory')).used_memory);

    // Every agent waits on its ask.
    const returnedAt = new Array<number>(asks).fill(0);
    let earlyReturns = 0;
    let pollErrors = 0;
    const pollErrorSamples: string[] = [];
    let tapping = false;
    for (let i = 0; i < asks; i++) {
      // New connections in bursts: 10,000 at once overflowed the listen backlog askgate had before
      // LISTEN_BACKLOG (Node's 511), and now and then the kernel reset hundreds ("socket hang up").
      if (i > 0 && i % POLLERS_PER_BURST === 0) await sleep(100);
      void pollers
        .request('GET', `/v1/asks/${ids[i]}?wait=600`, undefined, {}, 660_000)
        .then((reply) => {
          returnedAt[i] = performance.now();
          if (!tapping || !reply.body.includes('"status":"answered"')) earlyReturns++;
        })
        .catch((error: Error) => {
          if (pollErrors++ < 3) pollErrorSamples.push(`${(performance.now() / 1000).toFixed(1)} s: ${error.message}`);
        });
    }
    await sleep(Math.min(10_000, 1000 + asks / 5));

    const taps = Math.min(pending, Math.round(opts.tapsPerSecond * opts.tapSeconds));
    const sentAt = new Array<number>(asks).fill(0);
    /** Taps asks from…to−1 at the row's rate; returns the seconds it took to send them. */
    const tapRange = async (from: number, to: number) => {
      const start = performance.now();
      const interval = 1000 / opts.tapsPerSecond;
      const inflight: Promise<void>[] = [];
      for (let i = from; i < to; i++) {
        const wait = start + (i - from) * interval - performance.now();
        if (wait > 1) await sleep(wait);
        const d = delivered.get(world.target(i).chat)!;
        inflight.push(world.tap(d, i, (at) => (sentAt[i] = at)).catch(() => void world.counts.tapErrors++));
      }
      const span = (performance.now() - start) / 1000;
      await Promise.all(inflight);
      const until = performance.now() + 15_000;
      while (performance.now() < until && returnedAt.slice(from, to).some((t) => t === 0)) await sleep(50);
      return span;
    };
    tapping = true;
    await tapRange(pending, asks);
    const warmupLatency = returnedAt
      .slice(pending)
      .flatMap((t, k) => (t && sentAt[pending + k] ? [t - sentAt[pending + k]!] : []));
    const close = await openWindow(stack);
    benchGc.reset();
    const benchStalls = attribute ? recordLoopStalls() : null;
    const tapSpan = await tapRange(0, taps);
    const window = await close();
    benchStalls?.stop();
    // Another checkout's askgate (the code before issue 19) does not report its GC pauses.
    const askgatePauses = opts.tree ? [] : await stack.child.gcPauses();
    const pauses: Pause[] = [...askgatePauses, ...benchGc.pauses()];
    const askgateStalls = attribute ? await stack.child.loopStalls() : [];
    const latency: number[] = [];
    const outsidePauses: number[] = [];
    const outsideStalls: number[] = [];
    let duringAskgateStall = 0;
    let duringBenchStall = 0;
    let lost = 0;
    const epoch = performance.timeOrigin;
    for (let i = 0; i < taps; i++) {
      if (!returnedAt[i] || !sentAt[i]) {
        lost++;
        continue;
      }
      const ms = returnedAt[i]! - sentAt[i]!;
      const [from, to] = [epoch + sentAt[i]!, epoch + returnedAt[i]!];
      latency.push(ms);
      if (!overlapsPause(pauses, from, to)) outsidePauses.push(ms);
      if (overlapsPause(askgateStalls, from, to)) duringAskgateStall++;
      else if (overlapsPause(benchStalls?.stalls() ?? [], from, to) || overlapsPause(benchGc.pauses(), from, to))
        duringBenchStall++;
      else outsideStalls.push(ms);
    }
    return {
      pending,
      tapsPerSecond: opts.tapsPerSecond,
      taps,
      createSeconds,
      createPerSecond: asks / createSeconds,
      deliveredSeconds,
      latencyMs: summarize(latency),
      achievedTapsPerSecond: taps / tapSpan,
      warmup: { taps: warmupTaps, latencyMs: summarize(warmupLatency) },
      lost,
      earlyReturns,
      lostWhy: { tapErrors: world.counts.tapErrors, pollErrors, pollErrorSamples: [...pollErrorSamples] },
      redisBytesPerPendingAsk: (mem1 - mem0) / asks,
      askgateProblems: stack.child.problems(),
      window,
      samples: thin(latency, 5000),
      gc: {
        askgatePauses: askgatePauses.length,
        benchPauses: pauses.length - askgatePauses.length,
        tapsDuringAPause: latency.length - outsidePauses.length,
        latencyOutsidePausesMs: summarize(outsidePauses),
      },
      ...(benchStalls && {
        stalls: {
          askgateStalls: askgateStalls.length,
          benchStalls: benchStalls.stalls().length,
          tapsDuringAskgateStall: duringAskgateStall,
          tapsDuringBenchStall: duringBenchStall,
          latencyOutsideStallsMs: summarize(outsideStalls),
        },
      }),
    };
  } finally {
    pollers.close();
    await stack.close();
  }
}
