/**
 * Cost of console event streams (issue 33): askgate (a child process, Redis) holding 300 pending
 * asks, then `BENCH_CONSOLE_STREAMS` consoles (default 1,000) opening `/console/events` on
 * loopback, 100 at a time. Reports per additional stream: Redis commands and askgate's memory
 * (RSS and heap after the snapshots were sent; peak RSS while they were), the snapshot's size,
 * and the p50/p99 of an unrelated `POST /v1/asks` with no stream open and with all of them open.
 * With `BENCH_CONSOLE_IDLE=1` the consoles never read (their data stays in the kernel or askgate).
 *
 *   npx tsx bench/console-streams.ts            # this checkout
 *   BENCH_TREE=/tmp/askgate-before npx tsx bench/console-streams.ts   # another checkout's askgate
 *
 * Bounded and loopback only: one askgate, one Redis, at most the streams asked for.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { sleep } from './lib/http.js';
import { startStack } from './lib/stack.js';

const STREAMS = Number(process.env.BENCH_CONSOLE_STREAMS ?? 1_000);
const IDLE = process.env.BENCH_CONSOLE_IDLE === '1';
const ASKS = 300;
const CREATES = 200;

const ask = (i: number, run: string) =>
  JSON.stringify({
    runId: `${run}-${i % 20}`,
    questions: [
      {
        id: 'choice',
        header: 'Deploy',
        question: `Step ${i}: ${'Which environment should this change go to first, and with what rollout? '.repeat(3)}`,
        options: ['Staging', 'Production', 'Canary', 'Nowhere'].map((label) => ({
          label,
          description: `Roll out to ${label.toLowerCase()} with the usual checks and a follow-up note.`,
        })),
      },
    ],
  });

/** One console stream on a raw socket: bytes counted (or left unread). */
function openStream(url: URL, read: boolean): { socket: Socket; bytes: () => number } {
  let bytes = 0;
  const socket = connect(Number(url.port), '127.0.0.1');
  socket.on('error', () => {});
  if (!read) socket.pause();
  else socket.on('data', (c: Buffer) => void (bytes += c.length));
  socket.write(`GET /console/events HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
  return { socket, bytes: () => bytes };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function main(): Promise<void> {
  const stack = await startStack({
    env: { ASKGATE_CONSOLE_MAX_STREAMS: String(STREAMS + 10), LOG_LEVEL: 'warn' },
    ...(process.env.BENCH_TREE ? { tree: process.env.BENCH_TREE } : {}),
  });
  const url = new URL(stack.child.url);
  /** Creates one ask: its latency (ms), or null when askgate refused it. */
  const create = async (i: number, run: string) => {
    const t = performance.now();
    const r = await stack.api.request('POST', '/v1/asks', ask(i, run));
    return r.status === 201 ? performance.now() - t : null;
  };
  const latencies = async (run: string) => {
    const ms: number[] = [];
    let refused = 0;
    for (let i = 0; i < CREATES; i++) {
      const t = await create(i, run);
      if (t === null) refused++;
      else ms.push(t);
    }
    ms.sort((a, b) => a - b);
    return { p50: +pct(ms, 0.5).toFixed(2), p99: +pct(ms, 0.99).toFixed(2), refused };
  };
  try {
    for (let i = 0; i < ASKS; i++) if ((await create(i, 'pending')) === null) throw new Error('setup create refused');
    const probe = openStream(url, true);
    await sleep(1_000);
    const snapshotBytes = probe.bytes();
    probe.socket.destroy();
    await sleep(500);
    const quiet = await latencies('quiet');

    const before = await stack.child.stats();
    const streams: ReturnType<typeof openStream>[] = [];
    let peakRss = before.rssMiB;
    const sampler = setInterval(
      () => void stack.child.stats().then((s) => (peakRss = Math.max(peakRss, s.rssMiB))),
      100,
    );
    for (let i = 0; i < STREAMS; i += 100) {
      for (let j = i; j < Math.min(STREAMS, i + 100); j++) streams.push(openStream(url, !IDLE));
      await sleep(50);
    }
    const until = Date.now() + 60_000;
    while (!IDLE && Date.now() < until && streams.some((s) => s.bytes() < snapshotBytes * 0.9)) await sleep(100);
    await sleep(1_000);
    clearInterval(sampler);
    const after = await stack.child.stats();
    const busy = await latencies('busy');
    const per = (a: number, b: number) => +((a - b) / STREAMS).toFixed(4);
    console.log(
      JSON.stringify(
        {
          tree: process.env.BENCH_TREE ?? 'this checkout',
          streams: STREAMS,
          reading: !IDLE,
          snapshotKB: +(snapshotBytes / 1024).toFixed(1),
          redisCommandsPerStream: per(after.redis.commands, before.redis.commands),
          rssMiB: { before: before.rssMiB, after: after.rssMiB, peak: peakRss },
          rssKiBPerStream: +(((after.rssMiB - before.rssMiB) * 1024) / STREAMS).toFixed(1),
          heapKiBPerStream: +(((after.heapUsedMiB - before.heapUsedMiB) * 1024) / STREAMS).toFixed(1),
          createMs: { noStreams: quiet, withStreams: busy },
        },
        null,
        2,
      ),
    );
    for (const s of streams) s.socket.destroy();
  } finally {
    await stack.close();
  }
}

await main();
