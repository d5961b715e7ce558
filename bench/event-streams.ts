// Standalone (not part of npm run bench): what open history streams (`GET /v1/runs/:runId/events`)
// cost askgate and Redis, and what they do to an unrelated create (issue 33). One askgate child on
// a private Redis, driven only over HTTP on loopback: a run gets `--rate` creates per second (each
// supersedes the run's pending ask: two announced changes), `--lanes` loops create asks on other
// runs for `--seconds`; first with no stream open, then with `--streams` SSE streams on that run.
// Per-stream costs are the differences between the two windows.
//
// Usage: npx tsx bench/event-streams.ts [--tree=<checkout>] [--streams=2000] [--seconds=10]
//          [--rate=15] [--lanes=4] [--env=NAME=VALUE,...] [--cpu-prof=<dir>]
// `--tree` runs another checkout's askgate (its src/ and bench/askgate-child.ts) with this bench,
// e.g. the code before issue 33: git worktree add ../before 7a48ccf (and link node_modules).
// `--env` passes settings to askgate (e.g. ASKGATE_EVENT_STREAMS_PER_RUN=2000 to lift the cap).
import { connect } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
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

/**
 * Opens `count` SSE streams on the run (50 at a time) in a worker thread, which reads and counts
 * every byte: the stream traffic never shares an event loop with the creates being timed.
 */
async function openStreams(url: string, count: number) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, count } });
  const opened = await new Promise<Record<number, number>>((done, fail) => {
    worker.once('message', done);
    worker.once('error', fail);
  });
  const bytes = async () => {
    worker.postMessage('bytes');
    return new Promise<number>((done) => worker.once('message', done));
  };
  return { statuses: opened, bytes, close: () => worker.terminate() };
}

/**
 * The worker's side of {@link openStreams}: plain sockets with the request written by hand (the
 * HTTP client's parser per chunk cost the bench more CPU than askgate spent on the streams).
 */
async function holdStreams({ url: base, count }: { url: string; count: number }) {
  const url = new URL(base);
  const statuses: Record<number, number> = {};
  let bytes = 0;
  const head = `GET /v1/runs/${RUN}/events HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`;
  await lanes(
    count,
    50,
    () =>
      new Promise<void>((done, fail) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
        socket.setTimeout(30_000, () => socket.destroy(new Error('stream did not open within 30 s')));
        socket.once('data', (first: Buffer) => {
          socket.setTimeout(0);
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1', 0, 16))?.[1] ?? 0);
          statuses[status] = (statuses[status] ?? 0) + 1;
          bytes += first.length;
          socket.on('data', (c: Buffer) => (bytes += c.length));
          done();
        });
        socket.on('error', fail);
      }),
  );
  parentPort!.on('message', () => parentPort!.postMessage(bytes));
  parentPort!.postMessage(statuses);
}

const redisTotal = (w: Window) => Object.values(w.redisCommands).reduce((a, b) => a + b, 0);
const print = (name: string, r: Awaited<ReturnType<typeof window>>) =>
  console.log(
    `${name.padEnd(22)} unrelated creates ${num(r.creates / r.w.seconds, 0).padStart(5)}/s  p50 ${ms(r.latency.p50).padStart(6)} ms  p99 ${ms(r.latency.p99).padStart(6)} ms  ` +
      `| run creates ${num(r.runCreates / r.w.seconds, 1)}/s | Redis ${num(redisTotal(r.w) / r.w.seconds)} cmd/s, askgate ${num(r.w.child.redisCommands / r.w.seconds)} cmd/s | askgate CPU ${r.w.child.cpuCores.toFixed(2)} cores, ELU ${r.w.child.eventLoopUtilization.toFixed(2)}, loop delay p99 ${ms(r.w.child.loopDelayMs.p99)} ms, RSS ${r.w.child.rssMiB.toFixed(0)} MiB | bench ${r.w.cpu.byProcess.bench?.toFixed(2)}, redis ${r.w.cpu.byProcess.redis?.toFixed(2)}, others ${r.w.cpu.othersCores.toFixed(2)} cores`,
  );

if (!isMainThread) await holdStreams(workerData);
else await main();

async function main() {
  const cpuProfDir = arg('cpu-prof', '');
  const stack = await startStack({ tree, env, ...(cpuProfDir && { cpuProfDir: resolve(cpuProfDir) }) });
  let streamsOpen: Awaited<ReturnType<typeof openStreams>> | null = null;
  try {
    await stack.api.json('POST', '/v1/asks', { runId: RUN, questions: QUESTIONS });
    await window(stack, 'warm'); // JIT, connections, Redis
    const idle = await window(stack, null);
    const quiet = await window(stack, 'quiet');
    const before = await stack.child.stats();
    streamsOpen = await openStreams(stack.child.url, streams);
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
      `askgate commands per announced change for all ${accepted} streams together: ${((perSecond(idleLoaded.w) - perSecond(idle.w)) / changes).toFixed(2)}; ` +
        `per additional stream and announced change: ${per(perSecond(idleLoaded.w) - perSecond(idle.w))} askgate commands, ` +
        `${per(redisPerSecond(idleLoaded.w) - redisPerSecond(idle.w))} Redis commands; ` +
        `memory per stream: ${(((after.heapUsedMiB - before.heapUsedMiB) * 1024) / Math.max(1, accepted)).toFixed(1)} KiB heap, ` +
        `${(((after.rssMiB - before.rssMiB) * 1024) / Math.max(1, accepted)).toFixed(1)} KiB RSS; ${num((await streamsOpen.bytes()) / 1024)} KiB received in all`,
    );
    const problems = stack.child.problems();
    if (problems.count > 0)
      console.log(`askgate logged ${problems.count} warnings/errors, e.g. ${problems.samples[0]}`);
  } finally {
    await streamsOpen?.close();
    await stack.close();
  }
}
