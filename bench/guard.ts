// Standalone (not part of npm run bench): what askgate/guard costs a tool call and how fast a held
// call is released (issue 37). One askgate child on a private Redis; the guard in this process,
// through the real SDK client on loopback.
//
// - overhead: `guard.check()` of an allowed tool while an ask is open, and of any tool on a run with
//   nothing open (the common case), `--calls` each, in µs; and a guardTools call against the bare
//   function, the difference being the wrapper's whole cost;
// - release: `--rounds` times, an ask is opened, a call held for it (`hold: true`), the ask answered;
//   the time from sending the answer to the tool running, and from askgate's reply to it.
//
// Usage: npx tsx bench/guard.ts [--calls=200000] [--rounds=200]
import { startStack } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { AskgateClient } from '../src/client/index.js';
import { createToolGuard, guardTools } from '../src/guard/index.js';

const arg = (name: string, fallback: string) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const calls = arg('calls', '200000');
const rounds = arg('rounds', '200');
const QUESTIONS = [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }];

const us = (s: Summary) => `p50 ${(s.p50 * 1000).toFixed(2)} µs, p99 ${(s.p99 * 1000).toFixed(2)} µs`;
const msOf = (s: Summary) => `p50 ${s.p50.toFixed(1)} ms, p90 ${s.p90.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`;

/** Times `n` awaited calls of `fn` (ms each). */
async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out[i] = performance.now() - t0;
  }
  return out;
}

const stack = await startStack();
try {
  const sdk = new AskgateClient({ url: stack.child.url });
  const open = async (runId: string) => {
    const reply = await stack.api.json('POST', '/v1/asks', { runId, questions: QUESTIONS });
    if (reply.status !== 201) throw new Error(`create answered ${reply.status}`);
    return reply.body as { id: string; runId: string; version: number; status: string };
  };

  await open('bench-guard-open');
  const busy = createToolGuard({ client: sdk, runId: 'bench-guard-open', allow: ['lookup'] });
  const idle = createToolGuard({ client: sdk, runId: 'bench-guard-idle' });
  await Promise.all([busy.ready(), idle.ready()]);
  const bare = { lookup: async (q: string) => q };
  const wrapped = guardTools(bare, { client: sdk, runId: 'bench-guard-idle' });
  await wrapped.guard.ready();
  await time(20_000, () => busy.check('lookup')); // warm up
  const allowed = summarize(await time(calls, () => busy.check('lookup')));
  const nothingOpen = summarize(await time(calls, () => idle.check('deploy')));
  const bareCall = summarize(await time(calls, () => bare.lookup('x')));
  const wrappedCall = summarize(await time(calls, () => wrapped.lookup('x')));
  console.log(`check, allowed tool while an ask is open: ${us(allowed)}`);
  console.log(`check, nothing open:                       ${us(nothingOpen)}`);
  console.log(`guardTools call vs the bare function:      ${us(wrappedCall)} vs ${us(bareCall)}`);
  busy.close();
  idle.close();
  wrapped.close();

  const runId = 'bench-guard-hold';
  const held = guardTools({ deploy: async () => performance.now() }, { client: sdk, runId, hold: true });
  await held.guard.ready();
  const fromSend: number[] = [];
  const fromReply: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const ask = await open(runId);
    const askId = ask.id;
    held.guard.track(ask); // counted now, not when the stream shows it
    const ran = held.deploy();
    const t0 = performance.now();
    const reply = await stack.api.json('POST', `/v1/asks/${askId}/answer`, { answers: { env: ['Staging'] } });
    const t1 = performance.now();
    if (reply.status !== 200) throw new Error(`answer answered ${reply.status}`);
    const at = (await ran) as number;
    fromSend.push(at - t0);
    fromReply.push(Math.max(0, at - t1));
  }
  held.close();
  console.log(`held call released, from sending the answer: ${msOf(summarize(fromSend))}`);
  console.log(`held call released, from askgate's reply:    ${msOf(summarize(fromReply))}`);
} finally {
  await stack.close();
}
