import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startAskgateProcess, type AskgateProcess } from '../../helpers/askgate-process.js';
import { client } from '../../helpers/http.js';
import { ARTIFACTS, type History } from './history.js';

/**
 * One askgate replica as a child process (`askgate serve`), restartable with the same env
 * (and port, when `PORT` is fixed). Kills, restarts and readiness go into the history; the
 * child's output of every incarnation goes to `test-artifacts/reliability/<history>-<name>.log`.
 */
export class AskgateNode {
  private proc: AskgateProcess | null = null;
  private earlier = '';
  private incarnation = 0;
  private killedAt: number | null = null;
  /** Time from each kill to the next "listening" line, in ms. */
  readonly restartMs: number[] = [];
  /** When true, every kill -9 is followed by a restart (the test's process supervisor). */
  supervise = false;
  private restarting: Promise<void> = Promise.resolve();
  private starting: Promise<void> | null = null;

  constructor(
    readonly name: string,
    readonly env: Record<string, string>,
    private readonly history: History,
  ) {}

  /** Base URL of the running incarnation (throws when down). */
  get url(): string {
    if (!this.proc) throw new Error(`askgate ${this.name} is down`);
    return this.proc.url;
  }

  /** True while an incarnation runs. */
  get up(): boolean {
    return this.proc !== null;
  }

  /** pid of the running incarnation, or -1. */
  get pid(): number {
    return this.proc?.pid ?? -1;
  }

  /** A JSON client of the running incarnation. */
  api(): ReturnType<typeof client> {
    return client(this.url);
  }

  /** Everything every incarnation printed so far. */
  output(): string {
    return this.earlier + (this.proc?.output() ?? '');
  }

  /** Starts an incarnation and waits for its listening line. */
  async start(): Promise<void> {
    if (this.proc || this.starting) throw new Error(`askgate ${this.name} already runs`);
    this.incarnation++;
    this.history.inject('restart', { data: { node: this.name, incarnation: this.incarnation } });
    const starting = startAskgateProcess(this.env);
    this.starting = starting.then(
      () => undefined,
      () => undefined,
    );
    try {
      this.proc = await starting;
    } finally {
      this.starting = null;
    }
    const now = Date.now();
    if (this.killedAt !== null) this.restartMs.push(now - this.killedAt);
    this.history.observe('ready', {
      data: {
        node: this.name,
        pid: this.proc.pid,
        incarnation: this.incarnation,
        sinceKillMs: this.killedAt === null ? null : now - this.killedAt,
      },
    });
    this.killedAt = null;
  }

  /** `kill -9`, recorded with `why` (the crash point); an incarnation still starting is killed once it listens. */
  async kill9(why: string): Promise<void> {
    if (!this.proc && this.starting) await this.starting;
    const proc = this.proc;
    if (!proc) return;
    this.history.inject('kill', { data: { node: this.name, pid: proc.pid, signal: 'SIGKILL', point: why } });
    this.killedAt = Date.now();
    this.proc = null;
    await proc.kill9();
    this.retire(proc);
    if (this.supervise)
      this.restarting = this.restarting
        .then(() => (this.proc || this.starting ? undefined : this.start()))
        .catch(() => undefined);
  }

  /** Resolves once an incarnation is up (after a supervised restart), or throws after `ms`. */
  async whenUp(ms = 30_000): Promise<void> {
    const until = Date.now() + ms;
    while (!this.proc) {
      if (Date.now() > until) throw new Error(`askgate ${this.name} not up within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Graceful stop (SIGTERM). */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    await proc.stop();
    this.retire(proc);
  }

  /** `kill -STOP` (a hung process: its locks stop renewing, its sockets stay open). */
  pause(): void {
    this.history.inject('fault', { data: { node: this.name, signal: 'SIGSTOP' } });
    process.kill(this.pid, 'SIGSTOP');
  }

  /** `kill -CONT`. */
  resume(): void {
    this.history.inject('heal', { data: { node: this.name, signal: 'SIGCONT' } });
    process.kill(this.pid, 'SIGCONT');
  }

  /** kill -9 then start again; resolves when the new incarnation listens. */
  async crashAndRestart(why: string): Promise<void> {
    await this.kill9(why);
    if (this.supervise) await this.whenUp();
    else await this.start();
  }

  private retire(proc: AskgateProcess): void {
    const out = proc.output();
    this.earlier += out;
    appendFileSync(
      resolve(ARTIFACTS, `${this.history.name}-${this.name}.log`),
      `--- incarnation ${this.incarnation} (pid ${proc.pid}) ---\n${out}\n`,
    );
  }
}
