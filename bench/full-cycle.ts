/**
 * Full cycle: an agent's `POST /v1/asks?wait=60` → delivery to the platform fake → the simulated
 * human taps the first option as soon as the message is stored → the agent's call returns.
 * Closed loop: each run asks again as soon as its previous ask returned; one chat per run.
 * With several askgate replicas, run i talks to replica i % N and the taps go to the replicas
 * round-robin, so an ask waiting on one replica is often answered through another.
 */
import { performance } from 'node:perf_hooks';
import { sleep } from './lib/http.js';
import { openWindow, replicaName, startStack, type Window } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { worldFor, type ChannelName } from './lib/world.js';

/** One full-cycle row. */
export interface FullCycleOptions {
  channel: ChannelName;
  concurrency: number;
  warmupMs: number;
  measureMs: number;
  /** Telegram only: how askgate receives updates (default webhook). */
  telegramMode?: 'webhook' | 'polling';
  /** Telegram only: askgate's per-chat send spacing (default 0 = off for the bench; askgate's default is 1000). */
  telegramSendIntervalMs?: number;
  cpuProfDir?: string;
  /** askgate processes sharing the Redis (default 1; Telegram webhook mode and Slack only). */
  replicas?: number;
}

/** What one full-cycle row measured. */
export interface FullCycleResult {
  label: string;
  channel: ChannelName;
  concurrency: number;
  /** askgate processes (1 unless the row asked for replicas). */
  replicas: number;
  telegramMode?: string;
  telegramSendIntervalMs?: number;
  cycles: number;
  seconds: number;
  cyclesPerSecond: number;
  /** Agent's view: ask sent → result received (ms). */
  cycleMs: Summary;
  /** Tap update sent to askgate → the agent's waiting call returned (ms). */
  tapToAgentMs: Summary;
  /** With replicas: the same, split by whether the tap went to the replica the agent waits on. */
  tapToAgentByReplica?: { same: Summary; cross: Summary };
  errors: number;
  errorSamples: string[];
  counts: { delivered: number; finalized: number; acks: number; tapErrors: number };
  askgateProblems: { count: number; samples: string[] };
  window: Window;
  perCycle: { redisServerCommands: number; clientCommands: number; clientWrites: number };
  /** Raw samples for charts (thinned). */
  samples: { cycleMs: number[]; tapToAgentMs: number[] };
}

const QUESTION = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where should I deploy?',
    options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
  },
];

export async function fullCycle(opts: FullCycleOptions): Promise<FullCycleResult> {
  const { channel, concurrency } = opts;
  const mode = channel === 'telegram' ? (opts.telegramMode ?? 'webhook') : undefined;
  const interval = channel === 'telegram' ? (opts.telegramSendIntervalMs ?? 0) : undefined;
  const replicas = opts.replicas ?? 1;
  const label = `${channel}${mode === 'polling' ? ' (polling)' : ''}${interval ? ` (pacing ${interval} ms)` : ''} × ${concurrency}${replicas > 1 ? ` (${replicas} askgate processes)` : ''}`;
  const world = await worldFor(channel, concurrency, {
    ...(mode ? { telegramMode: mode } : {}),
    ...(interval !== undefined ? { telegramSendIntervalMs: interval } : {}),
  });
  const stack = await startStack({
    world,
    replicas,
    ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
  });
  try {
    const runOfChat = new Map<string, number>();
    const tapSent = new Map<string, { at: number; replica: number }>();
    for (let i = 0; i < concurrency; i++) runOfChat.set(world.target(i).chat, i);
    world.onDelivered = (d) => {
      const run = runOfChat.get(d.chat);
      if (run === undefined) return;
      world.tap(d, run, (at, replica) => tapSent.set(d.chat, { at, replica })).catch(() => world.counts.tapErrors++);
    };

    let measuring = false;
    let stopping = false;
    const cycleMs: number[] = [];
    const tapMs: number[] = [];
    const tapSameMs: number[] = [];
    const tapCrossMs: number[] = [];
    let errors = 0;
    const errorSamples: string[] = [];
    const runOne = async (i: number) => {
      const target = world.target(i);
      const api = stack.apis[i % replicas]!;
      const body = JSON.stringify({ runId: `run-${i}`, to: target, questions: QUESTION, timeoutSeconds: 600 });
      for (let n = 0; !stopping && n < 1_000_000; n++) {
        const t0 = performance.now();
        let ok = false;
        let problem = '';
        try {
          const reply = await api.request('POST', '/v1/asks?wait=60', body, {}, 70_000);
          ok = reply.status === 201 && reply.body.includes('"status":"answered"');
          if (!ok) problem = `${reply.status} ${reply.body.slice(0, 200)}`;
        } catch (error) {
          problem = (error as Error).message;
        }
        const t1 = performance.now();
        if (!measuring) continue;
        if (!ok) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(problem);
          await sleep(10);
          continue;
        }
        cycleMs.push(t1 - t0);
        const tapped = tapSent.get(target.chat);
        if (tapped !== undefined && tapped.at >= t0) {
          tapMs.push(t1 - tapped.at);
          (tapped.replica === i % replicas ? tapSameMs : tapCrossMs).push(t1 - tapped.at);
        }
      }
    };
    const debug = process.env.BENCH_DEBUG
      ? (m: string) => console.error(`[full-cycle ${label}] ${(performance.now() / 1000).toFixed(1)} ${m}`)
      : () => {};
    debug('started');
    const runs = Array.from({ length: concurrency }, (_, i) => runOne(i));
    await sleep(opts.warmupMs);
    const close = await openWindow(stack);
    measuring = true;
    await sleep(opts.measureMs);
    measuring = false;
    const window = await close();
    debug('window closed');
    stopping = true;
    await settle(Promise.all(runs), 75_000);
    debug('runs settled');
    const cycles = cycleMs.length;
    const serverCommands = Object.values(window.redisCommands).reduce((a, b) => a + b, 0);
    return {
      label,
      channel,
      concurrency,
      replicas,
      ...(mode ? { telegramMode: mode } : {}),
      ...(interval !== undefined ? { telegramSendIntervalMs: interval } : {}),
      cycles,
      seconds: window.seconds,
      cyclesPerSecond: cycles / window.seconds,
      cycleMs: summarize(cycleMs),
      tapToAgentMs: summarize(tapMs),
      ...(replicas > 1 ? { tapToAgentByReplica: { same: summarize(tapSameMs), cross: summarize(tapCrossMs) } } : {}),
      errors,
      errorSamples,
      counts: { ...world.counts },
      askgateProblems: problemsOf(stack.children.map((c) => c.problems())),
      window,
      perCycle: {
        redisServerCommands: serverCommands / Math.max(1, cycles),
        clientCommands: window.child.redisCommands / Math.max(1, cycles),
        clientWrites: window.child.redisWrites / Math.max(1, cycles),
      },
      samples: { cycleMs: thin(cycleMs, 5000), tapToAgentMs: thin(tapMs, 5000) },
    };
  } finally {
    await stack.close();
  }
}

/** Warning and error lines of all replicas; samples tagged with the replica's name when there are several. */
function problemsOf(each: { count: number; samples: string[] }[]): { count: number; samples: string[] } {
  if (each.length === 1) return each[0]!;
  return {
    count: each.reduce((a, p) => a + p.count, 0),
    samples: each.flatMap((p, i) => p.samples.slice(0, 4).map((s) => `[${replicaName(i)}] ${s}`)),
  };
}

/** Waits for `work`, at most `ms` (the timer does not keep the process alive). */
export async function settle(work: Promise<unknown>, msec: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((r) => (timer = setTimeout(r, msec)))]);
  clearTimeout(timer);
}

/** At most `max` evenly spaced samples. */
export function thin(values: number[], max: number): number[] {
  if (values.length <= max) return values.slice();
  const step = values.length / max;
  return Array.from({ length: max }, (_, i) => values[Math.floor(i * step)]!);
}
