// Standalone (not part of npm run bench): what open history streams (`GET /v1/runs/:runId/events`)
// cost askgate and Redis, and what they do to an unrelated create (issue 33). One askgate child on
// a private Redis, driven only over HTTP on loopback: a run gets `--rate` creates per second (each
// supersedes the run's pending ask: two announced changes), `--lanes` loops create asks on other
// runs for `--seconds`; first with no stream open, then with `--streams` SSE streams on that run.
// Per-stream costs are the differences between the two windows.
//
// Usage: npx tsx bench/event-streams.ts [--tree=<checkout>] [--streams=2000] [--seconds=10]
//          [--rate=15] [--lanes=4] [--env=NAME=VALUE,...]
// `--tree` runs another checkout's askgate (its src/ and bench/askgate-child.ts) with this bench,
// e.g. the code before issue 33: git worktree add ../before 7a48ccf (and link node_modules).
// `--env` passes settings to askgate (e.g. ASKGATE_EVENT_STREAMS_PER_RUN=2000 to lift the cap).
import { request, type ClientRequest } from 'node:http';
import { resolve } from 'node:path';
import { startStack, openWindow, type Stack, type Window } from './lib/stack.js';
import { lanes, sleep } from './lib/http.js';
import { ms, num, summarize } from './lib/stats.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const tree = resolve(arg('tree', resolve(import.meta.dirname, '..')));
const streams = Number(arg('streams', '2000'));
const seconds = Number(arg('seconds', '10'));
const rate = Number(arg('rate', '15'));
const width = Number(arg('lanes', '4'));
const env = Object.fromEntries(
  arg('env', '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const QUESTIONS = [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }];
const RUN = 'streamed-run';

/** One window: the streamed run gets `rate` creates/s, and with `label` unrelated creates run in a closed loop. */
async function window(stack: Stack, label: string | null) {
  const latencies: number[] = [];
  let runCreates = 0;
  const until = performance.now() + seconds * 1000;
  const end = await openWindow(stack);
  const churn = (async () => {
    for (let i = 0; performance.now() < until; i++) {
      const next = performance.now() + 1000 / rate;
      await stack.api.json('POST', '/v1/asks', { runId: RUN, questions: QUESTIONS });
      runCreates++;
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  let seq = 0;
  await lanes(label ? width : 0, width, async (lane) => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const reply = await stack.api.json('POST', '/v1/asks', {
        runId: `${label}-${lane}-${seq++}`,
        questions: QUESTIONS,
      });
      if (reply.status !== 201) throw new Error(`unrelated create answered ${reply.status}`);
      latencies.push(performance.now() - t0);
    }
  });
  await churn;
  const w = await end();
  return { latency: summarize(latencies), creates: latencies.length, runCreates, w };
}

/** Opens `count` SSE streams on the run (50 at a time); each one's bytes are read and counted. */
async function openStreams(url: URL, count: number) {
  const open: ClientRequest[] = [];
  const statuses: Record<number, number> = {};
  let bytes = 0;
  await lanes(
    count,
    50,
    () =>
      new Promise<void>((done, fail) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: `/v1/runs/${RUN}/events`,
            agent: false,
            headers: { accept: 'text/event-stream' },
          },
          (res) => {
            statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('error', () => undefined);
            done();
          },
        );
        req.setTimeout(30_000, () => req.destroy(new Error('stream did not open within 30 s')));
        req.on('error', fail);
        req.end();
        open.push(req);
      }),
  );
  return { statuses, bytes: () => bytes, close: () => open.forEach((r) => r.destroy()) };
}

const redisTotal = (w: Window) => Object.values(w.redisCommands).reduce((a, b) => a + b, 0);
const print = (name: string, r: Awaited<ReturnType<typeof window>>) =>
  console.log(
    `${name.padEnd(22)} unrelated creates ${num(r.creates / r.w.seconds, 0).padStart(5)}/s  p50 ${ms(r.latency.p50).padStart(6)} ms  p99 ${ms(r.latency.p99).padStart(6)} ms  ` +
      `| run creates ${num(r.runCreates / r.w.seconds, 1)}/s | Redis ${num(redisTotal(r.w) / r.w.seconds)} cmd/s, askgate ${num(r.w.child.redisCommands / r.w.seconds)} cmd/s | askgate CPU ${r.w.child.cpuCores.toFixed(2)} cores, RSS ${r.w.child.rssMiB.toFixed(0)} MiB`,
  );

const stack = await startStack({ tree, env });
let streamsOpen: Awaited<ReturnType<typeof openStreams>> | null = null;
try {
  await stack.api.json('POST', '/v1/asks', { runId: RUN, questions: QUESTIONS });
  await window(stack, 'warm'); // JIT, connections, Redis
  const idle = await window(stack, null);
  const quiet = await window(stack, 'quiet');
  const before = await stack.child.stats();
  streamsOpen = await openStreams(new URL(stack.child.url), streams);
  await sleep(2000); // the replays are sent
  const after = await stack.child.stats();
  const idleLoaded = await window(stack, null);
  const loaded = await window(stack, 'loaded');
  const accepted = streamsOpen.statuses[200] ?? 0;
  console.log(`tree ${tree}; ${streams} streams asked for: ${JSON.stringify(streamsOpen.statuses)} (status: count)`);
  print('no stream open', quiet);
  print(`${accepted} streams open`, loaded);
  // Only the run's creates: what the streams add, per stream and per announced change (2 per create).
  const perSecond = (w: Window) => w.child.redisCommands / w.seconds;
  const redisPerSecond = (w: Window) => redisTotal(w) / w.seconds;
  const changes = (2 * idleLoaded.runCreates) / idleLoaded.w.seconds;
  const per = (extra: number) => (extra / Math.max(1, accepted) / changes).toFixed(3);
  console.log(
    `run creates only: askgate ${num(perSecond(idle.w))} -> ${num(perSecond(idleLoaded.w))} Redis cmd/s, Redis ${num(redisPerSecond(idle.w))} -> ${num(redisPerSecond(idleLoaded.w))} cmd/s (commandstats), ~${num(changes)} changes/s`,
  );
  console.log(
    `per additional stream and announced change: ${per(perSecond(idleLoaded.w) - perSecond(idle.w))} askgate commands, ` +
      `${per(redisPerSecond(idleLoaded.w) - redisPerSecond(idle.w))} Redis commands; ` +
      `memory per stream: ${(((after.heapUsedMiB - before.heapUsedMiB) * 1024) / Math.max(1, accepted)).toFixed(1)} KiB heap, ` +
      `${(((after.rssMiB - before.rssMiB) * 1024) / Math.max(1, accepted)).toFixed(1)} KiB RSS; ${num(streamsOpen.bytes() / 1024)} KiB received in all`,
  );
  const problems = stack.child.problems();
  if (problems.count > 0) console.log(`askgate logged ${problems.count} warnings/errors, e.g. ${problems.samples[0]}`);
} finally {
  streamsOpen?.close();
  await stack.close();
}
