import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** An askgate server running as a child process (`askgate serve`), tracked by pid. */
export interface AskgateProcess {
  url: string;
  pid: number;
  output(): string;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `askgate serve` as a child process with `env` and waits for its listening line.
 * `wrap`: a command that runs node (e.g. `['prlimit', '--nofile=1024:1024', '--']`).
 */
export async function startAskgateProcess(env: Record<string, string>, wrap: string[] = []): Promise<AskgateProcess> {
  const [command, ...args] = [...wrap, process.execPath, '--import', 'tsx', 'src/cli.ts', 'serve'];
  const child: ChildProcess = spawn(command!, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`askgate did not start:\n${out}`)), 20_000);
    const check = () => {
      const m = /askgate listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`askgate exited with ${code}:\n${out}`));
    });
  });
  const waitExit = (signal: NodeJS.Signals) =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill(signal);
    });
  return { url, pid: child.pid!, output: () => out, kill9: () => waitExit('SIGKILL'), stop: () => waitExit('SIGTERM') };
}
