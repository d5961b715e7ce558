import { Redis } from 'ioredis';
import { freePort, startRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { startAskgateChild, type AskgateChild, type ChildOptions } from './askgate.js';
import { HttpClient } from './http.js';
import type { ChildStats } from '../askgate-child.js';
import { cpuMeter, type CpuUse } from './machine.js';
import type { World } from './world.js';

/** Redis as the issue asks: private, `--hz 100`, AOF with fsync every second, no eviction. */
export const REDIS_ARGS = ['--appendonly', 'yes', '--appendfsync', 'everysec', '--latency-monitor-threshold', '10'];

/** Key prefix askgate uses in the bench. */
export const PREFIX = 'bench';

/** A private redis-server, askgate in one or more child processes (replicas) and optionally one platform fake. */
export interface Stack {
  redis: TestRedis;
  /** The bench's own connection (INFO, MONITOR helpers, reading records back). */
  admin: Redis;
  /** The first replica (`children[0]`). */
  child: AskgateChild;
  /** Every askgate replica, all on the same Redis, each on its own port. */
  children: AskgateChild[];
  /** Client of the first replica (`apis[0]`). */
  api: HttpClient;
  /** One client per replica, in the order of {@link Stack.children}. */
  apis: HttpClient[];
  world: World | null;
  close(): Promise<void>;
}

/** Name of replica `i` (0-based) in CPU figures: askgate, askgate-2, askgate-3… */
export const replicaName = (i: number): string => (i === 0 ? 'askgate' : `askgate-${i + 1}`);

/** Options of {@link startStack}. */
export interface StackOptions {
  world?: World;
  env?: Record<string, string>;
  cpuProfDir?: string;
  /** Extra redis-server arguments (e.g. a memory setting under test). */
  redisArgs?: string[];
  /** askgate processes sharing the Redis (default 1). */
  replicas?: number;
  /** The checkout whose askgate runs (see {@link ChildOptions.tree}). */
  tree?: string;
}

export async function startRedisOnly(extraArgs: string[] = []): Promise<{ redis: TestRedis; admin: Redis }> {
  const redis = await startRedis([...REDIS_ARGS, ...extraArgs]);
  const admin = new Redis(redis.url, { maxRetriesPerRequest: null });
  return { redis, admin };
}

/** Starts Redis, then the askgate replicas (in parallel), then attaches the world to all of them. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const replicas = opts.replicas ?? 1;
  const { redis, admin } = await startRedisOnly(
    opts.redisArgs ?? (process.env.BENCH_REDIS_ARGS ? process.env.BENCH_REDIS_ARGS.split(' ') : []),
  );
  const ports: number[] = [];
  while (ports.length < replicas) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const env = (port: number): Record<string, string> => ({
    REDIS_URL: redis.url,
    PORT: String(port),
    ASKGATE_KEY_PREFIX: PREFIX,
    ASKGATE_TIMEOUT_MIN_SECONDS: '1',
    BENCH_CHANNELS: opts.world?.name ?? '',
    ...(process.env.BENCH_HEAP_SAMPLE_DIR ? { BENCH_HEAP_SAMPLE_DIR: process.env.BENCH_HEAP_SAMPLE_DIR } : {}),
    ...(process.env.BENCH_HEAP_LIVE ? { BENCH_HEAP_LIVE: process.env.BENCH_HEAP_LIVE } : {}),
    ...(process.env.BENCH_HEAP_PROMOTED ? { BENCH_HEAP_PROMOTED: process.env.BENCH_HEAP_PROMOTED } : {}),
    // BENCH_CHILD_ENV: more askgate settings as a JSON object (e.g. {"ASKGATE_SWEEP_DELAY_MS":"300000"}).
    ...(process.env.BENCH_CHILD_ENV ? (JSON.parse(process.env.BENCH_CHILD_ENV) as Record<string, string>) : {}),
    ...(opts.world?.childEnv(port) ?? {}),
    ...opts.env,
  });
  const started = await Promise.allSettled(
    ports.map((port) =>
      startAskgateChild({
        env: env(port),
        ...(opts.cpuProfDir ? { cpuProfDir: opts.cpuProfDir } : {}),
        ...(opts.tree ? { tree: opts.tree } : {}),
      }),
    ),
  );
  const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const apis = children.map((c) => new HttpClient(c.url));
  const close = async () => {
    for (const api of apis) api.close();
    await Promise.all(children.map((c) => c.stop()));
    await opts.world?.close().catch(() => {});
    admin.disconnect();
    await redis.dispose();
  };
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    // After every replica started: each registered its webhook (Telegram) on startup.
    await opts.world?.attach(children.map((c) => c.url));
  } catch (error) {
    await close();
    throw error;
  }
  return { redis, admin, child: children[0]!, children, api: apis[0]!, apis, world: opts.world ?? null, close };
}

/** INFO `section` as key/value pairs. */
export async function info(redis: Redis, section: string): Promise<Record<string, string>> {
  const text = await redis.info(section);
  const out: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** Calls per command from INFO commandstats. */
export async function commandStats(redis: Redis): Promise<Record<string, number>> {
  const raw = await info(redis, 'commandstats');
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(raw)) {
    const calls = /calls=(\d+)/.exec(value)?.[1];
    if (key.startsWith('cmdstat_') && calls) out[key.slice(8)] = Number(calls);
  }
  return out;
}

/** Delta of two commandstats snapshots, without the bench's own INFO calls. */
export function statsDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0);
    if (d > 0 && k !== 'info') out[k] = d;
  }
  return out;
}

/** Redis server CPU seconds (user + sys, main and children). */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const cpu = await info(redis, 'cpu');
  return Number(cpu.used_cpu_user ?? 0) + Number(cpu.used_cpu_sys ?? 0);
}

/** Redis persistence and stalls over a window (AOF rewrites, fsyncs that blocked, latency events ≥ 10 ms). */
export interface RedisHealth {
  aofRewrites: number;
  aofDelayedFsync: number;
  latestForkMs: number;
  /** LATENCY LATEST: event → worst ms. */
  latency: Record<string, number>;
}

export async function redisHealth(redis: Redis): Promise<RedisHealth> {
  const p = await info(redis, 'persistence');
  const stats = await info(redis, 'stats');
  const latest = (await redis.call('LATENCY', 'LATEST')) as [string, number, number, number][];
  return {
    aofRewrites: Number(p.aof_rewrites ?? 0),
    aofDelayedFsync: Number(p.aof_delayed_fsync ?? 0),
    latestForkMs: Number(stats.latest_fork_usec ?? 0) / 1000,
    latency: Object.fromEntries((latest ?? []).map(([event, , , max]) => [event, Number(max)])),
  };
}

/** Everything measured over one window of a scenario. */
export interface Window {
  seconds: number;
  /** All askgate replicas together (see {@link combine}); with one replica, that replica. */
  child: ChildStatsDelta;
  /** Each replica on its own, in the order of {@link Stack.children}. */
  children: ChildStatsDelta[];
  redisCommands: Record<string, number>;
  /** By process: bench, redis, and askgate, askgate-2… ({@link replicaName}). */
  cpu: CpuUse;
  /** Redis persistence counters over the window and latency events since the scenario's Redis started. */
  redis: RedisHealth;
}

/** Child activity over a window. */
export interface ChildStatsDelta {
  cpuCores: number;
  /** Event-loop utilisation; for several replicas, the busiest one's. */
  eventLoopUtilization: number;
  /** Mean event-loop utilisation of the replicas (the same as the above for one). */
  eventLoopUtilizationMean: number;
  loopDelayMs: ChildStats['loopDelayMs'];
  rssMiB: number;
  redisCommands: number;
  redisWrites: number;
  redisByName: Record<string, number>;
  /** Garbage-collection pauses over the window, by kind (for several replicas, summed; max of the maxima). */
  gc: ChildStats['gc'];
}

function delta(c0: ChildStats, c1: ChildStats, seconds: number): ChildStatsDelta {
  const byName: Record<string, number> = {};
  for (const [k, v] of Object.entries(c1.redis.byName)) {
    const d = v - (c0.redis.byName[k] ?? 0);
    if (d > 0) byName[k] = d;
  }
  const elu = c1.elu.active / (c1.elu.active + c1.elu.idle || 1);
  return {
    cpuCores: (c1.cpuUserMs + c1.cpuSystemMs - c0.cpuUserMs - c0.cpuSystemMs) / 1000 / seconds,
    eventLoopUtilization: elu,
    eventLoopUtilizationMean: elu,
    loopDelayMs: c1.loopDelayMs,
    rssMiB: c1.rssMiB,
    redisCommands: c1.redis.commands - c0.redis.commands,
    redisWrites: c1.redis.writes - c0.redis.writes,
    redisByName: byName,
    gc: c1.gc ?? {},
  };
}

/** Replicas together: CPU, memory and Redis counters summed; ELU and event-loop delay of the worst replica, plus the mean ELU. */
export function combine(parts: ChildStatsDelta[]): ChildStatsDelta {
  if (parts.length === 1) return parts[0]!;
  const sum = (f: (p: ChildStatsDelta) => number) => parts.reduce((a, p) => a + f(p), 0);
  const max = (f: (p: ChildStatsDelta) => number) => Math.max(...parts.map(f));
  const byName: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.redisByName)) byName[k] = (byName[k] ?? 0) + v;
  return {
    cpuCores: sum((p) => p.cpuCores),
    eventLoopUtilization: max((p) => p.eventLoopUtilization),
    eventLoopUtilizationMean: sum((p) => p.eventLoopUtilization) / parts.length,
    loopDelayMs: {
      p50: max((p) => p.loopDelayMs.p50),
      p99: max((p) => p.loopDelayMs.p99),
      max: max((p) => p.loopDelayMs.max),
    },
    rssMiB: sum((p) => p.rssMiB),
    redisCommands: sum((p) => p.redisCommands),
    redisWrites: sum((p) => p.redisWrites),
    redisByName: byName,
    gc: sumGc(parts.map((p) => p.gc)),
  };
}

function sumGc(parts: ChildStats['gc'][]): ChildStats['gc'] {
  const out: ChildStats['gc'] = {};
  for (const part of parts)
    for (const [kind, p] of Object.entries(part)) {
      const o = (out[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
      o.count += p.count;
      o.totalMs += p.totalMs;
      o.maxMs = Math.max(o.maxMs, p.maxMs);
    }
  return out;
}

/** Starts a measurement window over the stack (every replica); the returned function ends it. */
export async function openWindow(stack: Stack): Promise<() => Promise<Window>> {
  const all = stack.children;
  await Promise.all(all.map((c) => c.reset()));
  const c0 = await Promise.all(all.map((c) => c.stats()));
  const r0 = await commandStats(stack.admin);
  const h0 = await redisHealth(stack.admin);
  const stopCpu = cpuMeter({
    bench: process.pid,
    ...Object.fromEntries(all.map((c, i) => [replicaName(i), c.pid])),
    redis: stack.redis.pid(),
  });
  const t0 = performance.now();
  return async () => {
    const seconds = (performance.now() - t0) / 1000;
    const cpu = stopCpu();
    const c1 = await Promise.all(all.map((c) => c.stats()));
    const r1 = await commandStats(stack.admin);
    const h1 = await redisHealth(stack.admin);
    const children = all.map((_, i) => delta(c0[i]!, c1[i]!, seconds));
    return {
      seconds,
      cpu,
      redisCommands: statsDelta(r0, r1),
      redis: {
        ...h1,
        aofRewrites: h1.aofRewrites - h0.aofRewrites,
        aofDelayedFsync: h1.aofDelayedFsync - h0.aofDelayedFsync,
      },
      child: combine(children),
      children,
    };
  };
}

/** askgate CPU over a window from `/proc`, all replicas together (cores). */
export function askgateCores(w: Window): number {
  return w.children.reduce((a, _, i) => a + (w.cpu.byProcess[replicaName(i)] ?? NaN), 0);
}
