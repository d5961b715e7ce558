/**
 * Redis cost of one ask→answer cycle (Telegram, one run, cycles one after another): every command
 * Redis executed (INFO commandstats delta, script-internal calls included) and every command a
 * client sent (MONITOR, script-internal lines excluded), net of the background traffic (BullMQ
 * workers' blocking polls, the reconciler) measured over an idle period first.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import * as bullScripts from 'bullmq/dist/esm/scripts/index.js';
import * as askScripts from '../src/store/scripts.js';
import { sleep } from './lib/http.js';
import { commandStats, startStack, statsDelta } from './lib/stack.js';
import { telegramWorld } from './lib/world.js';

export interface CostRow {
  /** Command, with EVALSHA resolved to the script's name. */
  command: string;
  /** Who sent it: askgate's connection name (or `main`) . */
  connection: string;
  perCycle: number;
}

export interface RedisCostResult {
  cycles: number;
  seconds: number;
  /** Client-sent commands per cycle (each EVALSHA once): the round trips if none were batched. */
  clientCommandsPerCycle: number;
  /** Of which askgate's own store/bus (main connection) vs BullMQ queues and workers. */
  byConnection: Record<string, number>;
  /** Commands Redis executed per cycle, script-internal ones included (INFO commandstats). */
  serverCommandsPerCycle: number;
  /** Background traffic while idle, per second (client-sent). */
  idlePerSecond: number;
  rows: CostRow[];
  /** Client-side count in askgate (ioredis): commands and socket writes per cycle. */
  askgateClient: { commandsPerCycle: number; writesPerCycle: number };
}

const QUESTION = [
  {
    id: 'env',
    header: 'Deploy',
    question: 'Where should I deploy?',
    options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
  },
];

function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const s of Object.values(bullScripts) as { name?: string; content?: string }[]) {
    if (s?.name && s.content) names.set(createHash('sha1').update(s.content).digest('hex'), `bullmq:${s.name}`);
  }
  for (const s of Object.values(askScripts) as { name?: string; sha?: string }[]) {
    if (s && typeof s === 'object' && s.sha && s.name) names.set(s.sha, `askgate:${s.name}`);
  }
  return names;
}

async function clientNames(admin: Redis): Promise<Map<string, string>> {
  const list = String(await admin.call('CLIENT', 'LIST'));
  const out = new Map<string, string>();
  for (const line of list.split('\n')) {
    const addr = /addr=(\S+)/.exec(line)?.[1];
    const name = /name=(\S*)/.exec(line)?.[1];
    const cmd = /cmd=(\S+)/.exec(line)?.[1];
    if (addr) out.set(addr, name || (cmd === 'subscribe' ? 'subscriber' : 'main'));
  }
  return out;
}

/** What one measured cycle asks and how the person answers: a tap on the first option, or a typed reply. */
export interface CostShape {
  questions: readonly object[];
  /** `tap`, or the text the person replies to the question message with. */
  answer: 'tap' | { reply: string; promptMarker: string };
}

/** Today's cycle: one choice question, answered by a tap. */
export const TAP_CHOICE: CostShape = { questions: QUESTION, answer: 'tap' };

export async function redisCost(cycles: number, shape: CostShape = TAP_CHOICE): Promise<RedisCostResult> {
  const world = await telegramWorld(1);
  const stack = await startStack({ world });
  const shas = scriptNames();
  try {
    const { answer } = shape;
    if (answer === 'tap')
      world.onDelivered = (d) => void world.tap(d, 0, () => {}).catch(() => world.counts.tapErrors++);
    else {
      world.promptMarker = answer.promptMarker;
      world.onDelivered = (d) => void world.say!(d, 0, answer.reply).catch(() => world.counts.tapErrors++);
    }
    const body = JSON.stringify({
      runId: 'cost',
      to: world.target(0),
      questions: shape.questions,
      timeoutSeconds: 600,
    });
    const cycle = async () => {
      const reply = await stack.api.request('POST', '/v1/asks?wait=30', body, {}, 40_000);
      if (reply.status !== 201 || !reply.body.includes('"answered"'))
        throw new Error(`cycle failed: ${reply.status} ${reply.body.slice(0, 200)}`);
    };
    for (let i = 0; i < 20; i++) await cycle();
    await sleep(500); // let the last finalize settle

    const monitor = await stack.admin.monitor();
    const lines: { source: string; args: string[]; phase: 'idle' | 'load' }[] = [];
    let phase: 'idle' | 'load' = 'idle';
    monitor.on('monitor', (_time: string, args: string[], source: string) => lines.push({ source, args, phase }));
    const idleMs = 3000;
    await sleep(idleMs);
    phase = 'load';
    const names = await clientNames(stack.admin);
    const s0 = await commandStats(stack.admin);
    const c0 = await stack.child.stats();
    const t0 = performance.now();
    for (let i = 0; i < cycles; i++) await cycle();
    await sleep(300); // the last cycle's finalize edit
    const seconds = (performance.now() - t0) / 1000;
    const c1 = await stack.child.stats();
    const s1 = await commandStats(stack.admin);
    monitor.disconnect();

    const idle = lines.filter((l) => l.phase === 'idle' && l.source !== 'lua');
    const idlePerSecond = idle.length / (idleMs / 1000);
    const idleCounts = new Map<string, number>();
    const loadCounts = new Map<string, number>();
    const label = (l: (typeof lines)[number]) => {
      const cmd = l.args[0]?.toLowerCase() ?? '?';
      const name = cmd === 'evalsha' ? (shas.get(l.args[1] ?? '') ?? 'evalsha:?') : cmd === 'eval' ? 'eval' : cmd;
      return `${name}\t${names.get(l.source) ?? 'main'}`;
    };
    for (const l of lines) {
      if (l.source === 'lua' || l.args[0]?.toLowerCase() === 'info' || l.args[0]?.toLowerCase() === 'client') continue;
      const m = l.phase === 'idle' ? idleCounts : loadCounts;
      m.set(label(l), (m.get(label(l)) ?? 0) + 1);
    }
    const scale = seconds / (idleMs / 1000);
    const rows: CostRow[] = [];
    for (const [key, n] of loadCounts) {
      const net = (n - (idleCounts.get(key) ?? 0) * scale) / cycles;
      if (net < 0.05) continue;
      const [command, connection] = key.split('\t') as [string, string];
      rows.push({ command, connection, perCycle: Math.round(net * 100) / 100 });
    }
    rows.sort((a, b) => b.perCycle - a.perCycle);
    const byConnection: Record<string, number> = {};
    for (const r of rows)
      byConnection[r.connection] = Math.round(((byConnection[r.connection] ?? 0) + r.perCycle) * 100) / 100;
    const server = Object.values(statsDelta(s0, s1)).reduce((a, b) => a + b, 0);
    const serverIdle = lines.filter((l) => l.phase === 'idle').length / (idleMs / 1000);
    return {
      cycles,
      seconds,
      clientCommandsPerCycle: rows.reduce((a, r) => a + r.perCycle, 0),
      byConnection,
      serverCommandsPerCycle: (server - serverIdle * seconds) / cycles,
      idlePerSecond,
      rows,
      askgateClient: {
        commandsPerCycle: (c1.redis.commands - c0.redis.commands - idlePerSecond * seconds) / cycles,
        writesPerCycle: (c1.redis.writes - c0.redis.writes - idlePerSecond * seconds) / cycles,
      },
    };
  } finally {
    await stack.close();
  }
}
