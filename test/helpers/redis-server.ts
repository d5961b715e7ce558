import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private redis-server child process on a free loopback port. */
export interface TestRedis {
  port: number;
  url: string;
  dir: string;
  pid(): number;
  /** Graceful stop (SIGTERM) and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill9(): Promise<void>;
  /** Starts again on the same port and dir (replays the AOF when enabled). */
  restart(): Promise<void>;
  /** Stops and removes the data dir. */
  dispose(): Promise<void>;
}

/** Finds a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts redis-server with `--bind 127.0.0.1 --save '' --hz 100` (plus `extraArgs`) and waits until it accepts connections. */
export async function startRedis(extraArgs: string[] = []): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'askgate-redis-'));
  let child: ChildProcess | null = null;

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--hz',
        '100',
        '--dir',
        dir,
        '--maxmemory-policy',
        'noeviction',
        '--appendonly',
        'no',
        ...extraArgs,
      ];
      const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });

  const waitExit = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    pid: () => child?.pid ?? -1,
    stop: () => waitExit('SIGTERM'),
    kill9: () => waitExit('SIGKILL'),
    restart: launch,
    async dispose() {
      await waitExit('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
