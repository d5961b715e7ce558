/**
 * Restart with many pending asks (issue 19): `count` asks (1-hour timeout) are created, askgate
 * is killed with SIGKILL before any of their sweep marks falls due, every mark is made due (see
 * below), then askgate starts again on the same Redis and the bench measures:
 *
 * - spawn → listening (the child reports `ready` once askgate listens);
 * - the first answer served: right after it listens, an agent waits on one pending ask
 *   (`GET /v1/asks/:id?wait=30`) and a second client answers it (`POST /v1/asks/:id/answer`);
 * - the first reconciler pass done: no sweep mark due any more (`ZCOUNT <prefix>:sweep -inf now`
 *   reaches 0, polled every {@link POLL_MS} ms);
 * - askgate's event-loop delay and CPU during that pass.
 */
import { performance } from 'node:perf_hooks';
import { startAskgateChild, type AskgateChild } from './lib/askgate.js';
import { telegramWorld } from './lib/world.js';
import { HttpClient, lanes, sleep } from './lib/http.js';
import { PREFIX, startRedisOnly } from './lib/stack.js';
import { freePort } from '../test/helpers/redis-server.js';
import { StoreKeys } from '../src/store/keys.js';

/** Options of {@link restart}. */
export interface RestartOptions {
  count: number;
  /** Asks to a Telegram chat each (the fake), all delivered before the kill; else API asks. */
  telegram?: boolean;
  /** The first process's sweep delay: long enough for the creation to end before any mark is due. */
  sweepDelayMs: number;
}

/** What the restart row measured (ms are from the new process's spawn unless said otherwise). */
export interface RestartResult {
  count: number;
  /** The asks went to Telegram chats (see {@link RestartOptions.telegram}); absent in older results. */
  telegram?: boolean;
  sweepDelayMs: number;
  createSeconds: number;
  createPerSecond: number;
  createErrors: number;
  /** Sweep marks in the ZSET, and those already due, when askgate was killed (due should be 0). */
  marksAtKill: number;
  dueAtKill: number;
  /** Marks due when the new process was spawned. */
  dueAtRestart: number;
  /** Time from the kill to the restart (waiting for every mark to fall due). */
  downSeconds: number;
  listeningMs: number;
  /** The first process's spawn → listening, on an empty Redis: the start-up cost without a backlog (absent in older results). */
  emptyListeningMs?: number;
  /** Spawn → the waiting agent's call returned `answered`. */
  firstAnswerMs: number;
  /** Listening → the same. */
  firstAnswerAfterListenMs: number;
  firstAnswerStatus: string;
  /** Spawn → no sweep mark due (null: not within the limit). */
  firstPassMs: number | null;
  firstPassAfterListenMs: number | null;
  /** askgate during the pass (listening → pass done). */
  duringPass: { loopDelayMs: { p50: number; p99: number; max: number }; cpuMs: number; redisCommands: number };
  askgateProblems: { count: number; samples: string[] };
}

const QUESTION = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];
const POLL_MS = 50;
const PASS_LIMIT_MS = 300_000;

export async function restart(opts: RestartOptions): Promise<RestartResult> {
  const { count } = opts;
  const { redis, admin } = await startRedisOnly(
    process.env.BENCH_REDIS_ARGS ? process.env.BENCH_REDIS_ARGS.split(' ') : [],
  );
  const keys = new StoreKeys(PREFIX);
  const port = await freePort();
  const world = opts.telegram ? await telegramWorld(count) : null;
  let delivered = 0;
  if (world) world.onDelivered = () => void delivered++;
  const env = (extra: Record<string, string>) => ({
    REDIS_URL: redis.url,
    PORT: String(port),
    ASKGATE_KEY_PREFIX: PREFIX,
    ASKGATE_TIMEOUT_MIN_SECONDS: '1',
    BENCH_CHANNELS: world?.name ?? '',
    ...(world?.childEnv(port) ?? {}),
    ...extra,
  });
  const children: AskgateChild[] = [];
  const clients: HttpClient[] = [];
  const dueNow = async () => Number(await admin.zcount(keys.sweep(), '-inf', String(Date.now())));
  try {
    const emptySpawned = performance.now();
    const first = await startAskgateChild({ env: env({ ASKGATE_SWEEP_DELAY_MS: String(opts.sweepDelayMs) }) });
    const emptyListeningMs = performance.now() - emptySpawned;
    children.push(first);
    await world?.attach([first.url]);
    const api = new HttpClient(first.url);
    clients.push(api);
    let createErrors = 0;
    let firstId = '';
    const t0 = Date.now();
    await lanes(count, 200, async (i) => {
      const reply = await api
        .json(
          'POST',
          '/v1/asks',
          { runId: `r-${i}`, questions: QUESTION, timeoutSeconds: 3600, ...(world ? { to: world.target(i) } : {}) },
          60_000,
        )
        .catch((e: Error) => ({ status: 0, body: { error: e.message } as any }));
      if (reply.status !== 201) createErrors++;
      else if (i === 0) firstId = reply.body.id;
    });
    for (let waited = 0; world && delivered < count - createErrors && waited < 300_000; waited += 100) await sleep(100);
    const createSeconds = (Date.now() - t0) / 1000;
    const marksAtKill = await admin.zcard(keys.sweep());
    const dueAtKill = await dueNow();
    process.kill(first.pid, 'SIGKILL');
    const killedAt = Date.now();
    api.close();
    if (!firstId) throw new Error(`restart: the first ask was not created (${createErrors} creates failed)`);

    // Every mark made due: the worst case, a crash that left every ask to re-check. A healthy ask's
    // mark sits at its deadline (+ grace) once it is delivered or needs nothing delivered (changes
    // 14 and 28), so waiting for the marks to fall due would wait out the asks' hour; a crash before
    // the deliveries were confirmed leaves them due at creation + the sweep delay instead.
    const ttl = await admin.pttl(keys.sweep());
    await admin.zunionstore(keys.sweep(), 1, keys.sweep(), 'WEIGHTS', 0);
    if (ttl > 0) await admin.pexpire(keys.sweep(), ttl);
    const dueAtRestart = await dueNow();
    const downSeconds = (Date.now() - killedAt) / 1000;

    const spawned = performance.now();
    const second = await startAskgateChild({ env: env({}) });
    const listening = performance.now();
    children.push(second);
    await world?.attach([second.url]);
    await second.reset();
    const s0 = await second.stats();
    const agent = new HttpClient(second.url);
    const human = new HttpClient(second.url);
    clients.push(agent, human);
    const waited = agent.json('GET', `/v1/asks/${firstId}?wait=30`, undefined, 40_000).then((r) => ({
      at: performance.now(),
      status: String(r.body?.status ?? r.status),
    }));
    const answered = human
      .json('POST', `/v1/asks/${firstId}/answer`, { answers: { env: ['Staging'] } }, 40_000)
      .catch(() => undefined);
    let passAt: number | null = null;
    while (performance.now() - spawned < PASS_LIMIT_MS) {
      if ((await dueNow()) === 0) {
        passAt = performance.now();
        break;
      }
      await sleep(POLL_MS);
    }
    const s1 = await second.stats();
    const first1 = await waited;
    await answered;
    return {
      count,
      ...(world ? { telegram: true } : {}),
      sweepDelayMs: opts.sweepDelayMs,
      createSeconds,
      createPerSecond: (count - createErrors) / createSeconds,
      createErrors,
      marksAtKill,
      dueAtKill,
      dueAtRestart,
      downSeconds,
      listeningMs: listening - spawned,
      emptyListeningMs,
      firstAnswerMs: first1.at - spawned,
      firstAnswerAfterListenMs: first1.at - listening,
      firstAnswerStatus: first1.status,
      firstPassMs: passAt === null ? null : passAt - spawned,
      firstPassAfterListenMs: passAt === null ? null : passAt - listening,
      duringPass: {
        loopDelayMs: s1.loopDelayMs,
        cpuMs: s1.cpuUserMs + s1.cpuSystemMs - s0.cpuUserMs - s0.cpuSystemMs,
        redisCommands: s1.redis.commands - s0.redis.commands,
      },
      askgateProblems: second.problems(),
    };
  } finally {
    for (const c of clients) c.close();
    await Promise.all(children.map((c) => c.stop()));
    await world?.close().catch(() => {});
    admin.disconnect();
    await redis.dispose();
  }
}
