/**
 * askgate as the benchmark runs it: a child process started by bench/lib/askgate.ts with the
 * normal config from the environment, the chat channels built here (so the bench can point them
 * at the fakes and set Telegram's per-chat pacing), and ioredis instrumented to count commands
 * and socket writes. Talks to the parent over IPC: `ready`, `stats`, `reset`, `stop`.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { Socket } from 'node:net';
import { Pipeline, Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { tuneGarbageCollector } from '../src/gc-tuning.js';
import { startAskgate } from '../src/main.js';
import { createLogger } from '../src/logger.js';
import type { Channel } from '../src/core/ports.js';
import { recordGcPauses, recordLoopStalls } from './lib/pauses.js';

/** Redis traffic of this process, counted at the ioredis client. */
export interface RedisCounters {
  /** Commands handed to a connection (EVALSHA counts once; pipelined commands count each). */
  commands: number;
  /** Socket writes: a command sent on its own, or one pipeline/MULTI batch. */
  writes: number;
  byName: Record<string, number>;
}

/** What the parent asks for with `stats`. */
export interface ChildStats {
  cpuUserMs: number;
  cpuSystemMs: number;
  elu: { idle: number; active: number };
  loopDelayMs: { p50: number; p99: number; max: number };
  rssMiB: number;
  heapUsedMiB: number;
  redis: RedisCounters;
  /** Garbage-collection pauses since the last reset, by kind (`minor`, `major`, …). */
  gc: Record<string, GcPauses>;
}

/** Pauses of one kind of garbage collection: how many, their sum and the longest (ms). */
export interface GcPauses {
  count: number;
  totalMs: number;
  maxMs: number;
}

const counters: RedisCounters = { commands: 0, writes: 0, byName: {} };

// Counted at the Redis client library and the socket (ioredis's `sendCommand` and `Pipeline#exec`,
// Node's `Socket#uncork`), never inside askgate: its own classes may change without the bench.
type SendCommand = (this: Redis, command: { name: string }, stream?: unknown, node?: unknown) => unknown;
const redisProto = Redis.prototype as unknown as { sendCommand: SendCommand };
const originalSend = redisProto.sendCommand;
/** Redis sockets holding corked commands not counted as a write yet: they go out at the uncork. */
const corked = new WeakSet<Socket>();
redisProto.sendCommand = function (command, stream, node) {
  counters.commands++;
  counters.byName[command.name] = (counters.byName[command.name] ?? 0) + 1;
  // A pipeline or MULTI (`stream`) is one write, counted at its exec.
  if (!stream) {
    const socket = this.stream as Socket | undefined;
    // A corked socket (askgate's store connection batches a turn's commands so) writes them all at once.
    if (socket?.writableCorked) corked.add(socket);
    else counters.writes++;
  }
  return originalSend.call(this, command, stream, node);
};
const socketProto = Socket.prototype as unknown as { uncork: (this: Socket) => void };
const originalUncork = socketProto.uncork;
socketProto.uncork = function () {
  originalUncork.call(this);
  if (this.writableCorked === 0 && corked.delete(this)) counters.writes++;
};
const pipelineProto = Pipeline.prototype as unknown as { exec: (this: unknown, ...args: unknown[]) => unknown };
const originalExec = pipelineProto.exec;
pipelineProto.exec = function (...args) {
  counters.writes++;
  return originalExec.apply(this, args);
};

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
let gcPauses = new Map<string, GcPauses>();
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
    const p = gcPauses.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0 };
    p.count++;
    p.totalMs += entry.duration;
    p.maxMs = Math.max(p.maxMs, entry.duration);
    gcPauses.set(kind, p);
  }
}).observe({ entryTypes: ['gc'] });
/** Resolves after the next minor GC (or in 10 s). */
function nextScavenge(): Promise<void> {
  return new Promise((resolve) => {
    const done = setTimeout(resolve, 10_000);
    const observer = new PerformanceObserver((list) => {
      if (
        !list
          .getEntries()
          .some((e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
      )
        return;
      observer.disconnect();
      clearTimeout(done);
      resolve();
    });
    observer.observe({ entryTypes: ['gc'] });
  });
}
/**
 * A compressed clock for bench/long-waits.ts: with `BENCH_CLOCK_ORIGIN` (epoch ms) and
 * `BENCH_CLOCK_SCALE` set, askgate's clock runs at the system clock's pace until the origin, then
 * `scale` times faster (`origin + (now − origin) × scale`), so days of deadlines fall due in
 * minutes. BullMQ keeps the system clock (its delayed scores are real ms): the bench moves the
 * jobs' scores onto the same mapping. Unset: askgate's own system clock.
 */
function compressedClock(env: NodeJS.ProcessEnv): { now(): number } | null {
  const origin = Number(env.BENCH_CLOCK_ORIGIN);
  const scale = Number(env.BENCH_CLOCK_SCALE);
  if (!Number.isFinite(origin) || !Number.isFinite(scale) || scale < 1) return null;
  return {
    now: () => {
      const t = Date.now();
      return t < origin ? t : origin + (t - origin) * scale;
    },
  };
}
let eluMark = performance.eventLoopUtilization();
const gcTimeline = recordGcPauses();
// BENCH_LOOP_STALLS=1 (the tap row): when askgate's event loop was held up, whatever held it.
const loopStalls = process.env.BENCH_LOOP_STALLS === '1' ? recordLoopStalls() : null;

/**
 * BENCH_HEAP_SAMPLE_DIR: V8's sampling heap profiler over each measurement window (from the
 * bench's reset to the stop), objects the collector freed included, so the profile shows where
 * the window's allocations came from (bench/heap-summary.ts reads it). With BENCH_HEAP_LIVE=1,
 * only the window's objects still alive at its end: what the window's work kept. With
 * BENCH_HEAP_PROMOTED=1, the objects that outlived the young generation (what scavenges copy).
 */
let heapSession: Session | null = null;
function startHeapSampling(): void {
  heapSession ??= new Session();
  heapSession.connect();
  heapSession.post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: process.env.BENCH_HEAP_LIVE !== '1',
    includeObjectsCollectedByMinorGC: process.env.BENCH_HEAP_LIVE !== '1' && process.env.BENCH_HEAP_PROMOTED !== '1',
  } as object);
}
async function stopHeapSampling(): Promise<void> {
  const session = heapSession;
  if (!session) return;
  heapSession = null;
  // Promoted objects only: the objects of the young generation since the last scavenge are not
  // collected yet, so the profile stops right after the next scavenge.
  if (process.env.BENCH_HEAP_PROMOTED === '1') await nextScavenge();
  const profile = await new Promise<unknown>((res) =>
    session.post('HeapProfiler.stopSampling', (_err, r) => res(r?.profile)),
  );
  writeFileSync(join(process.env.BENCH_HEAP_SAMPLE_DIR!, `heap-${process.pid}.heapprofile`), JSON.stringify(profile));
  session.disconnect();
}

function stats(): ChildStats {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization(eluMark);
  const mem = process.memoryUsage();
  const ns = (v: number) => Math.round(v / 1e4) / 100;
  return {
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    elu: { idle: elu.idle, active: elu.active },
    loopDelayMs: { p50: ns(loopDelay.percentile(50)), p99: ns(loopDelay.percentile(99)), max: ns(loopDelay.max) },
    rssMiB: Math.round(mem.rss / 2 ** 20),
    heapUsedMiB: Math.round(mem.heapUsed / 2 ** 20),
    redis: { commands: counters.commands, writes: counters.writes, byName: { ...counters.byName } },
    gc: Object.fromEntries(gcPauses),
  };
}

async function buildChannels(env: NodeJS.ProcessEnv, logger: ReturnType<typeof createLogger>): Promise<Channel[]> {
  const wanted = new Set((env.BENCH_CHANNELS ?? '').split(',').filter(Boolean));
  const channels: Channel[] = [];
  if (wanted.has('telegram')) {
    const { TelegramChannel } = await import('../src/channels/telegram/telegram-channel.js');
    const webhook = env.BENCH_TG_MODE !== 'polling';
    channels.push(
      new TelegramChannel({
        token: env.BENCH_TG_TOKEN!,
        apiRoot: env.BENCH_TG_API!,
        logger,
        minSendIntervalMs: Number(env.BENCH_TG_SEND_INTERVAL_MS ?? 1000),
        pollTimeoutSeconds: 1,
        ...(webhook
          ? { webhookUrl: `http://127.0.0.1:${env.PORT}/telegram/webhook`, webhookSecret: env.BENCH_TG_SECRET! }
          : {}),
      }),
    );
  }
  if (wanted.has('slack')) {
    const { SlackChannel } = await import('../src/channels/slack/slack-channel.js');
    channels.push(
      new SlackChannel({
        token: 'xoxb-fake',
        signingSecret: env.BENCH_SLACK_SECRET!,
        apiUrl: env.BENCH_SLACK_API!,
        logger,
      }),
    );
  }
  if (wanted.has('discord')) {
    const { DiscordChannel } = await import('../src/channels/discord/discord-channel.js');
    channels.push(new DiscordChannel({ token: env.BENCH_DISCORD_TOKEN!, apiUrl: env.BENCH_DISCORD_API!, logger }));
  }
  if (wanted.has('whatsapp')) {
    const { WhatsAppChannel } = await import('../src/channels/whatsapp/whatsapp-channel.js');
    channels.push(
      new WhatsAppChannel({
        apiRoot: env.BENCH_WA_API!,
        phoneNumberId: env.BENCH_WA_PHONE_ID!,
        accessToken: env.BENCH_WA_TOKEN!,
        appSecret: env.BENCH_WA_SECRET!,
        verifyToken: 'bench-verify-token',
        logger,
      }),
    );
  }
  return channels;
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('bench/askgate-child.ts must be started by the bench (IPC channel missing)');
  // As `askgate serve` does (BENCH_PRETENURE=1 leaves V8's default, to compare).
  if (process.env.BENCH_PRETENURE !== '1') tuneGarbageCollector();
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const clock = compressedClock(process.env);
  const app = await startAskgate(config, {
    channels: await buildChannels(process.env, logger),
    logger,
    ...(clock && { clock }),
  });
  let stopping = false;
  process.on('message', async (msg: { type: string; id?: number }) => {
    if (msg.type === 'stats') process.send!({ type: 'stats', id: msg.id, stats: stats() });
    else if (msg.type === 'gcPauses') process.send!({ type: 'gcPauses', id: msg.id, pauses: gcTimeline.pauses() });
    else if (msg.type === 'loopStalls')
      process.send!({ type: 'loopStalls', id: msg.id, stalls: loopStalls?.stalls() ?? [] });
    else if (msg.type === 'reset') {
      loopDelay.reset();
      gcPauses = new Map();
      gcTimeline.reset();
      loopStalls?.reset();
      if (process.env.BENCH_HEAP_SAMPLE_DIR) startHeapSampling();
      eluMark = performance.eventLoopUtilization();
      process.send!({ type: 'reset', id: msg.id });
    } else if (msg.type === 'stop' && !stopping) {
      stopping = true;
      // The bench needs no graceful drain: give the close 3 s (a CPU profile is written at exit either way).
      const force = setTimeout(() => process.exit(0), 3000);
      const closing = Date.now();
      await stopHeapSampling();
      void app.close().finally(() => {
        if (process.env.BENCH_DEBUG) console.log(`askgate closed in ${Date.now() - closing} ms`);
        clearTimeout(force);
        process.exit(0);
      });
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', url: app.url, pid: process.pid });
}

main().catch((error: unknown) => {
  console.error('bench child failed:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
