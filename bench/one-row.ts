/**
 * One full-cycle row, for working on askgate's hot path without the whole bench:
 *   tsx bench/one-row.ts [channel=telegram] [concurrency=100] [measureMs=8000] [--replicas=N] [--profile=<dir>]
 * Prints cycles/s, askgate CPU per cycle and Redis commands per cycle; with --replicas=N, N askgate
 * processes share the Redis (per-process CPU and ELU, tap→agent split by same/other replica);
 * with --profile, the top functions of askgate's CPU profile (the largest, with replicas);
 * with BENCH_BY_COMMAND=1, askgate's Redis commands and socket writes per cycle.
 */
import { fullCycle } from './full-cycle.js';
import { summarizeProfile } from './profile-summary.js';
import { readdirSync, statSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { askgateCores, replicaName } from './lib/stack.js';
import type { ChannelName } from './lib/world.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const profileDir = process.argv.find((a) => a.startsWith('--profile='))?.slice(10);
const replicas = Number(process.argv.find((a) => a.startsWith('--replicas='))?.slice(11) ?? 1);
if (!Number.isInteger(replicas) || replicas < 1) throw new Error('--replicas=N: N must be a whole number ≥ 1');
const channel = (args[0] ?? 'telegram') as ChannelName;
const concurrency = Number(args[1] ?? 100);
const measureMs = Number(args[2] ?? 8000);
if (profileDir) mkdirSync(profileDir, { recursive: true });
const r = await fullCycle({
  channel,
  concurrency,
  warmupMs: 3000,
  measureMs,
  replicas,
  ...(profileDir ? { cpuProfDir: profileDir } : {}),
});
const w = r.window;
const cpu = w.cpu.byProcess;
const perCycle = (cores: number | undefined) => (((cores ?? 0) * 1000) / r.cyclesPerSecond).toFixed(3);
const each =
  replicas > 1
    ? ` (${w.children.map((c, i) => `${replicaName(i)} ${perCycle(cpu[replicaName(i)])}, ELU ${c.eventLoopUtilization.toFixed(2)}`).join('; ')})`
    : '';
const elu =
  replicas > 1
    ? `ELU max ${w.child.eventLoopUtilization.toFixed(2)} mean ${w.child.eventLoopUtilizationMean.toFixed(2)}`
    : `ELU ${w.child.eventLoopUtilization.toFixed(2)}`;
const pq = (s: { p50: number; p99: number; count: number }) =>
  `${s.p50.toFixed(1)}/${s.p99.toFixed(1)} ms (${s.count})`;
const split = r.tapToAgentByReplica
  ? `; tap→agent same replica ${pq(r.tapToAgentByReplica.same)}, other replica ${pq(r.tapToAgentByReplica.cross)}`
  : '';
console.log(
  `${r.label}: ${Math.round(r.cyclesPerSecond)} cycles/s, errors ${r.errors + r.counts.tapErrors}; CPU ms/cycle askgate ${perCycle(askgateCores(w))}${each} redis ${perCycle(cpu.redis)} bench ${perCycle(cpu.bench)};` +
    ` cores askgate ${askgateCores(w).toFixed(2)} redis ${(cpu.redis ?? NaN).toFixed(2)} bench ${(cpu.bench ?? NaN).toFixed(2)} others ${w.cpu.othersCores.toFixed(2)}; askgate ${elu};` +
    ` Redis commands/cycle sent ${r.perCycle.clientCommands.toFixed(1)}, executed ${r.perCycle.redisServerCommands.toFixed(1)}; tap→agent p50/p99 ${r.tapToAgentMs.p50.toFixed(1)}/${r.tapToAgentMs.p99.toFixed(1)} ms${split}`,
);
if (process.env.BENCH_BY_COMMAND) {
  const cycles = r.cyclesPerSecond * w.seconds;
  const byName = Object.entries(w.child.redisByName).map(([k, v]) => [k, +(v / cycles).toFixed(2)] as const);
  console.log('Redis commands per cycle by name:', Object.fromEntries(byName.sort((a, b) => b[1] - a[1])));
  console.log(`socket writes per cycle: ${(w.child.redisWrites / cycles).toFixed(2)}`);
}
if (r.errorSamples.length || r.askgateProblems.count)
  console.log('errors / askgate log lines:', [...r.errorSamples, ...r.askgateProblems.samples].join('\n  '));
if (profileDir) {
  const files = readdirSync(profileDir)
    .map((f) => join(profileDir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const p = summarizeProfile(files[0]!, 40);
  console.log('busy ms', p.busyMs);
  console.table(p.byPackage.slice(0, 20));
  console.table(p.byFunction.slice(0, 40));
  console.table(p.inclusive.slice(0, 40));
}
process.exit(0);
