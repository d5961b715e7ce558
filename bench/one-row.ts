/**
 * One full-cycle row, for working on askgate's hot path without the whole bench:
 *   tsx bench/one-row.ts [channel=telegram] [concurrency=100] [measureMs=8000] [--profile=<dir>]
 * Prints cycles/s, askgate CPU per cycle and Redis commands per cycle; with --profile, the
 * top functions of askgate's CPU profile.
 */
import { fullCycle } from './full-cycle.js';
import { summarizeProfile } from './profile-summary.js';
import { readdirSync, statSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChannelName } from './lib/world.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const profileDir = process.argv.find((a) => a.startsWith('--profile='))?.slice(10);
const channel = (args[0] ?? 'telegram') as ChannelName;
const concurrency = Number(args[1] ?? 100);
const measureMs = Number(args[2] ?? 8000);
if (profileDir) mkdirSync(profileDir, { recursive: true });
const r = await fullCycle({ channel, concurrency, warmupMs: 3000, measureMs, ...(profileDir ? { cpuProfDir: profileDir } : {}) });
const cpu = r.window.cpu.byProcess;
const perCycle = (cores: number | undefined) => (((cores ?? 0) * 1000) / r.cyclesPerSecond).toFixed(3);
console.log(
  `${r.label}: ${Math.round(r.cyclesPerSecond)} cycles/s, errors ${r.errors}; CPU ms/cycle askgate ${perCycle(cpu.askgate)} redis ${perCycle(cpu.redis)} bench ${perCycle(cpu.bench)};` +
    ` others ${r.window.cpu.othersCores.toFixed(2)} cores; askgate ELU ${r.window.child?.eventLoopUtilization.toFixed(2)};` +
    ` Redis commands/cycle sent ${r.perCycle.clientCommands.toFixed(1)}, executed ${r.perCycle.redisServerCommands.toFixed(1)}; tap→agent p50/p99 ${r.tapToAgentMs.p50.toFixed(1)}/${r.tapToAgentMs.p99.toFixed(1)} ms`,
);
if (profileDir) {
  const files = readdirSync(profileDir).map((f) => join(profileDir, f)).sort((a, b) => statSync(b).size - statSync(a).size);
  const p = summarizeProfile(files[0]!, 40);
  console.log('busy ms', p.busyMs);
  console.table(p.byPackage.slice(0, 20));
  console.table(p.byFunction.slice(0, 40));
  console.table(p.inclusive.slice(0, 40));
}
process.exit(0);
