import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';

/** What the figures were taken on. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  redis: string;
  packages: Record<string, string>;
  kernel: string;
}

const ROOT = resolve(import.meta.dirname, '../..');

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', timeout: 5000 }).trim();
  } catch {
    return '';
  }
}

export function machineInfo(): MachineInfo {
  const lscpu = tryRun('lscpu', []);
  const model = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
  const redis = /v=(\S+)/.exec(tryRun('redis-server', ['--version']))?.[1] ?? 'unknown';
  const version = (name: string) => {
    try {
      return (
        JSON.parse(readFileSync(resolve(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
      ).version;
    } catch {
      return 'unknown';
    }
  };
  return {
    cpuModel: model,
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    redis,
    packages: Object.fromEntries(
      ['bullmq', 'ioredis', 'fastify', 'grammy', '@slack/bolt', 'discord.js'].map((p) => [p, version(p)]),
    ),
    kernel: tryRun('uname', ['-sr']),
  };
}

/** `uptime`'s line and the 1/5/15-minute load averages. */
export function loadNow(): { uptime: string; load: number[] } {
  return { uptime: tryRun('uptime', []), load: loadavg().map((l) => Math.round(l * 100) / 100) };
}

const TICK = 100; // USER_HZ on Linux

function machineJiffies(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

function pidJiffies(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return NaN;
  }
}

/** CPU used by the machine and by named processes over a window, in cores (1.0 = one core busy). */
export interface CpuUse {
  seconds: number;
  machineBusyCores: number;
  byProcess: Record<string, number>;
  /** Busy cores not accounted to the named processes: other work on the machine. */
  othersCores: number;
}

/** Starts measuring; call the returned function to stop. Linux /proc only (NaN elsewhere). */
export function cpuMeter(pids: Record<string, number>): () => CpuUse {
  const t0 = performance.now();
  const m0 = machineJiffies();
  const p0 = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pidJiffies(pid)]));
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const m1 = machineJiffies();
    const byProcess: Record<string, number> = {};
    let ours = 0;
    for (const [name, pid] of Object.entries(pids)) {
      const used = (pidJiffies(pid) - p0[name]!) / TICK / seconds;
      byProcess[name] = used;
      if (Number.isFinite(used)) ours += used;
    }
    const busy = m0 && m1 ? (m1.busy - m0.busy) / TICK / seconds : NaN;
    return { seconds, machineBusyCores: busy, byProcess, othersCores: Math.max(0, busy - ours) };
  };
}
