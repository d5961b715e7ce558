import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { ChildStats } from '../askgate-child.js';
import type { Pause } from './pauses.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** askgate running in a child process (bench/askgate-child.ts). */
export interface AskgateChild {
  url: string;
  pid: number;
  stats(): Promise<ChildStats>;
  /** askgate's GC pauses since the last {@link reset}. */
  gcPauses(): Promise<Pause[]>;
  /** askgate's event-loop stalls since the last {@link reset} (only with `BENCH_LOOP_STALLS=1`). */
  loopStalls(): Promise<Pause[]>;
  /** Resets the event-loop delay histogram, utilisation mark and GC pauses. */
  reset(): Promise<void>;
  /** Warning and error log lines so far (count and the first few). */
  problems(): { count: number; samples: string[] };
  stop(): Promise<void>;
}

/** Options of {@link startAskgateChild}. */
export interface ChildOptions {
  env: Record<string, string>;
  /** Write a V8 CPU profile of askgate into this directory (node --cpu-prof). */
  cpuProfDir?: string;
  /**
   * The checkout whose askgate (its `bench/askgate-child.ts` and `src/`) runs (default this one):
   * the same-machine pairs drive the code before issue 19 with this bench.
   */
  tree?: string;
}

/** Starts askgate in a child process and waits until it listens. */
export async function startAskgateChild(opts: ChildOptions): Promise<AskgateChild> {
  // The V8 flag `npm start` and the Docker image run askgate with (a larger young generation).
  const args = [
    '--max-semi-space-size=64',
    // BENCH_NODE_FLAGS: more V8/node flags for askgate (e.g. `--trace-gc-nvp`, or another semi-space size).
    ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []),
    ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
    '--import',
    'tsx',
    'bench/askgate-child.ts',
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: opts.tree ?? ROOT,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let problemCount = 0;
  const samples: string[] = [];
  let tail = '';
  const onOutput = (chunk: Buffer) => {
    const text = tail + chunk.toString();
    const lines = text.split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      problemCount++;
      if (samples.length < 8) samples.push(line.slice(0, 400));
    }
  };
  child.stdout!.on('data', (c: Buffer) => (process.env.BENCH_DEBUG ? process.stderr.write(c) : onOutput(c)));
  child.stderr!.on('data', onOutput);
  let seq = 0;
  const pending = new Map<number, (msg: any) => void>();
  const ready = new Promise<{ url: string; pid: number }>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`askgate child did not start within 60 s:\n${samples.join('\n')}`)),
      60_000,
    );
    child.on('message', (msg: any) => {
      if (msg.type === 'ready') {
        clearTimeout(timer);
        res({ url: msg.url, pid: msg.pid });
      } else if (typeof msg.id === 'number') {
        pending.get(msg.id)?.(msg);
        pending.delete(msg.id);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`askgate child exited with ${code}:\n${samples.join('\n')}${tail}`));
    });
  });
  const { url, pid } = await ready;
  const ask = (type: string) =>
    new Promise<any>((res, rej) => {
      const id = ++seq;
      const timer = setTimeout(() => {
        pending.delete(id);
        rej(new Error(`askgate child did not answer ${type}`));
      }, 10_000);
      pending.set(id, (msg) => {
        clearTimeout(timer);
        res(msg);
      });
      child.send({ type, id });
    });
  return {
    url,
    pid,
    stats: async () => (await ask('stats')).stats as ChildStats,
    gcPauses: async () => (await ask('gcPauses')).pauses as Pause[],
    loopStalls: async () => (await ask('loopStalls')).stalls as Pause[],
    reset: async () => void (await ask('reset')),
    problems: () => ({ count: problemCount, samples: [...samples] }),
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null || child.signalCode !== null) return res();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          res();
        });
        if (child.connected) child.send({ type: 'stop' });
        else child.kill('SIGTERM');
      }),
  };
}
