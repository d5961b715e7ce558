/**
 * The WhatsApp full cycle against the Cloud API fake, cycles one after another (issue 39's
 * benchmark row): an agent asks (`POST /v1/asks?wait=30`) → askgate sends the prompt (reply
 * buttons) to the fake → the person taps the first button (a signed webhook) → the ask is answered
 * and the agent's request returns → askgate replies the outcome to the prompt. With statuses, the
 * fake also reports `sent`, `delivered` and `read` for every message askgate sends (three more
 * webhooks per message, as Meta does), before the person taps.
 *   tsx bench/whatsapp-cycle.ts [cycles=150]
 * Prints, per mode, per cycle: Redis commands askgate sent (at its ioredis client) and its socket
 * writes, commands Redis executed (INFO commandstats, script-internal ones included), askgate CPU
 * ms (user + system), each net of the idle traffic measured for 3 s before; cycle p50 / p99; and
 * the commands askgate sent by name.
 */
import { performance } from 'node:perf_hooks';
import { buttonReply, inboundMessage, startFakeWhatsApp, statusUpdate } from '../test/fakes/whatsapp-api.js';
import { freePort } from '../test/helpers/redis-server.js';
import { startAskgateChild } from './lib/askgate.js';
import { HttpClient, sleep } from './lib/http.js';
import { commandStats, PREFIX, startRedisOnly, statsDelta } from './lib/stack.js';
import { summarize } from './lib/stats.js';

const cycles = Number(process.argv[2] ?? 150);
const WA = { token: 'EAAG-bench-token', phoneNumberId: '106540352242922', appSecret: 'bench-app-secret-0123456789' };
const PERSON = '15551234567';
const QUESTIONS = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where should I deploy?',
    options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
  },
];

const { redis, admin } = await startRedisOnly();
const fake = await startFakeWhatsApp(WA);
const port = await freePort();
const child = await startAskgateChild({
  env: {
    REDIS_URL: redis.url,
    PORT: String(port),
    ASKGATE_KEY_PREFIX: PREFIX,
    BENCH_CHANNELS: 'whatsapp',
    BENCH_WA_API: fake.apiRoot,
    BENCH_WA_PHONE_ID: WA.phoneNumberId,
    BENCH_WA_TOKEN: WA.token,
    BENCH_WA_SECRET: WA.appSecret,
  },
});
const api = new HttpClient(child.url);
const webhook = `${child.url}/whatsapp/webhook`;

let statuses = false;
const breakdown: string[] = [];
/** The person's side: statuses (when on) for every message, a tap on each prompt; awaited by the cycle. */
let reactions: Promise<unknown>[] = [];
let outcomeOf: { prompt: string | null; seen: () => void } = { prompt: null, seen: () => {} };
fake.onSent = (m) => {
  const react = async () => {
    if (statuses)
      for (const s of ['sent', 'delivered', 'read']) {
        const r = await fake.deliver(webhook, statusUpdate(m.id, PERSON, s));
        if (r.status !== 200) throw new Error(`status webhook answered ${r.status}`);
      }
    if (m.body.type === 'interactive' && !m.body.context) {
      outcomeOf.prompt = m.id;
      const button = m.body.interactive.action.buttons[0].reply;
      const r = await fake.deliver(webhook, inboundMessage(PERSON, buttonReply(m.id, button.id, button.title)));
      if (r.status !== 200) throw new Error(`tap webhook answered ${r.status}`);
    } else if (m.body.context?.message_id === outcomeOf.prompt) outcomeOf.seen();
  };
  reactions.push(react());
};

const body = JSON.stringify({
  runId: 'wa-cycle',
  to: { channel: 'whatsapp', chat: `+${PERSON}` },
  questions: QUESTIONS,
});
/** One cycle; resolves when the agent got its answer, the outcome reply reached the fake and every webhook was answered. */
async function cycle(): Promise<number> {
  const started = performance.now();
  const outcome = new Promise<void>((seen) => (outcomeOf = { prompt: null, seen }));
  const reply = await api.request('POST', '/v1/asks?wait=30', body, {}, 40_000);
  if (reply.status !== 201 || !reply.body.includes('"answered"'))
    throw new Error(`cycle failed: ${reply.status} ${reply.body.slice(0, 200)}`);
  await outcome;
  // Reactions may add more (the outcome reply's statuses): wait until none is left.
  while (reactions.length > 0) {
    const now = reactions;
    reactions = [];
    await Promise.all(now);
  }
  return performance.now() - started;
}

async function measure(label: string): Promise<string> {
  for (let i = 0; i < 20; i++) await cycle(); // warm-up
  await sleep(500);
  // Idle traffic (BullMQ workers' polls, the reconciler): measured, then taken off the figures.
  const idleMs = 3000;
  const [i0, is0] = [await child.stats(), await commandStats(admin)];
  const idleStart = performance.now();
  await sleep(idleMs);
  const [i1, is1] = [await child.stats(), await commandStats(admin)];
  const idleSeconds = (performance.now() - idleStart) / 1000;
  const sum = (d: Record<string, number>) => Object.values(d).reduce((a, b) => a + b, 0);
  const idle = {
    commands: (i1.redis.commands - i0.redis.commands) / idleSeconds,
    writes: (i1.redis.writes - i0.redis.writes) / idleSeconds,
    executed: sum(statsDelta(is0, is1)) / idleSeconds,
    cpuMs: (i1.cpuUserMs + i1.cpuSystemMs - i0.cpuUserMs - i0.cpuSystemMs) / idleSeconds,
  };
  const [c0, s0] = [await child.stats(), await commandStats(admin)];
  const t0 = performance.now();
  const times: number[] = [];
  for (let i = 0; i < cycles; i++) times.push(await cycle());
  await sleep(300); // the last outcome reply's bookkeeping
  const seconds = (performance.now() - t0) / 1000;
  const [c1, s1] = [await child.stats(), await commandStats(admin)];
  const per = (total: number, idlePerSecond: number) => (total - idlePerSecond * seconds) / cycles;
  const commands = per(c1.redis.commands - c0.redis.commands, idle.commands);
  const writes = per(c1.redis.writes - c0.redis.writes, idle.writes);
  const executed = per(sum(statsDelta(s0, s1)), idle.executed);
  const cpu = per(c1.cpuUserMs + c1.cpuSystemMs - c0.cpuUserMs - c0.cpuSystemMs, idle.cpuMs);
  const t = summarize(times);
  // Which commands askgate sent, per cycle (idle traffic not taken off: BullMQ's polls show as fractions).
  const byName = Object.entries(c1.redis.byName)
    .map(([k, v]) => [k, (v - (c0.redis.byName[k] ?? 0)) / cycles] as const)
    .filter(([, v]) => v >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  breakdown.push(`${label}: ${byName.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  return `| ${label} | ${cycles} | ${commands.toFixed(2)} | ${writes.toFixed(2)} | ${executed.toFixed(2)} | ${cpu.toFixed(2)} | ${t.p50.toFixed(1)} / ${t.p99.toFixed(1)} |`;
}

try {
  const rows = [await measure('tap, no statuses')];
  statuses = true;
  rows.push(await measure('tap, sent/delivered/read for each message'));
  console.log(
    '| WhatsApp cycle | Cycles | Redis commands sent / cycle | askgate socket writes / cycle | Commands Redis executed / cycle | askgate CPU ms / cycle | Cycle p50 / p99 ms |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) console.log(r);
  console.log(`\nRedis commands askgate sent per cycle, by name:\n${breakdown.join('\n')}`);
  const problems = child.problems();
  if (problems.count) console.log(`askgate log lines: ${problems.count}\n  ${problems.samples.join('\n  ')}`);
} finally {
  await child.stop();
  await fake.close();
  admin.disconnect();
  await redis.dispose();
}
process.exit(0);
