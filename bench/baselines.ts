/**
 * Baselines measured in the same run on the same kind of Redis: raw Redis throughput
 * (redis-benchmark and an ioredis client), a bare BullMQ delayed-job add+remove loop, and bare
 * BullMQ delayed-job lateness. askgate's figures are reported as ratios to these.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { sleep } from './lib/http.js';
import { cpuMeter, type CpuUse } from './lib/machine.js';
import { redisHealth, startRedisOnly, type RedisHealth } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';

export interface RedisBenchmarkRow {
  test: string;
  clients: number;
  pipeline: number;
  rps: number;
  p50ms: number;
}

export interface RawRedisResult {
  redisBenchmark: RedisBenchmarkRow[];
  /** ioredis, one connection: awaited commands, 100 in flight (what one Node process gets without pipelining). */
  ioredisConcurrentGetsPerSecond: number;
  /** ioredis, one connection, pipelines of 1000 SETs. */
  ioredisPipelinedSetsPerSecond: number;
}

function runRedisBenchmark(
  port: number,
  requests: number,
  clients: number,
  pipeline: number,
): Promise<RedisBenchmarkRow[]> {
  return new Promise((resolve, reject) => {
    const args = [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-n',
      String(requests),
      '-c',
      String(clients),
      '-P',
      String(pipeline),
      '-t',
      'ping,set,get',
      '--csv',
    ];
    const proc = spawn('redis-benchmark', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.on('error', reject);
    proc.on('exit', () => {
      clearTimeout(timer);
      const rows: RedisBenchmarkRow[] = [];
      for (const line of out.split('\n')) {
        const cells = line.split(',').map((c) => c.replace(/"/g, ''));
        if (cells.length < 3 || cells[0] === 'test') continue;
        rows.push({ test: cells[0]!, clients, pipeline, rps: Number(cells[1]), p50ms: Number(cells[5] ?? cells[2]) });
      }
      resolve(rows);
    });
  });
}

export async function rawRedis(quick: boolean): Promise<RawRedisResult> {
  const { redis, admin } = await startRedisOnly();
  try {
    const n = quick ? 50_000 : 200_000;
    const redisBenchmark = [
      ...(await runRedisBenchmark(redis.port, n, 50, 1)),
      ...(await runRedisBenchmark(redis.port, n * 4, 50, 16)),
    ];
    const client = new Redis(redis.url);
    const runFor = quick ? 1500 : 3000;
    let gets = 0;
    const end = performance.now() + runFor;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (performance.now() < end) {
          await client.get('k');
          gets++;
        }
      }),
    );
    const getRate = gets / ((performance.now() - t0) / 1000);
    let sets = 0;
    const t1 = performance.now();
    const end2 = t1 + runFor;
    while (performance.now() < end2) {
      const p = client.pipeline();
      for (let i = 0; i < 1000; i++) p.set(`k${i}`, 'v');
      await p.exec();
      sets += 1000;
    }
    const setRate = sets / ((performance.now() - t1) / 1000);
    client.disconnect();
    return { redisBenchmark, ioredisConcurrentGetsPerSecond: getRate, ioredisPipelinedSetsPerSecond: setRate };
  } finally {
    admin.disconnect();
    await redis.dispose();
  }
}

export interface BullAddRemoveRow {
  lanes: number;
  pairsPerSecond: number;
  seconds: number;
  cpu: CpuUse;
}

/** Bare BullMQ: each lane adds a delayed job (askgate's timeout-job options) and removes it, in a loop. */
export async function bullAddRemove(lanesList: number[], runMs: number): Promise<BullAddRemoveRow[]> {
  const rows: BullAddRemoveRow[] = [];
  for (const lanes of lanesList) {
    const { redis, admin } = await startRedisOnly();
    const conn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('baseline', { connection: conn, prefix: '{baseline}' });
    try {
      await queue.waitUntilReady();
      let seq = 0;
      let pairs = 0;
      const lane = async (stopAt: number, count: boolean) => {
        while (performance.now() < stopAt) {
          const id = `timeout-b${++seq}`;
          await queue.add(
            'timeout',
            { askId: id },
            {
              jobId: id,
              delay: 600_000,
              removeOnComplete: true,
              removeOnFail: 1000,
              attempts: 5,
              backoff: { type: 'exponential', delay: 1000 },
            },
          );
          await queue.remove(id);
          if (count) pairs++;
        }
      };
      const warm = performance.now() + Math.min(1000, runMs / 4);
      await Promise.all(Array.from({ length: lanes }, () => lane(warm, false)));
      const stopCpu = cpuMeter({ bench: process.pid, redis: redis.pid() });
      const t0 = performance.now();
      await Promise.all(Array.from({ length: lanes }, () => lane(t0 + runMs, true)));
      const seconds = (performance.now() - t0) / 1000;
      rows.push({ lanes, pairsPerSecond: pairs / seconds, seconds, cpu: stopCpu() });
    } finally {
      await queue.close();
      conn.disconnect();
      admin.disconnect();
      await redis.dispose();
    }
  }
  return rows;
}

export interface BullLatenessResult {
  jobs: number;
  spreadSeconds: number;
  addSeconds: number;
  latenessMs: Summary;
  missed: number;
  samples: number[];
  /** Redis persistence over the deadlines (AOF rewrites, stalls), as in askgate's timeout rows. */
  redis?: RedisHealth;
}

/**
 * Bare BullMQ delayed-job lateness: `jobs` delayed jobs whose due times are spread evenly over
 * `spreadSeconds` (starting 5 s after the adds finish), a worker with concurrency 50 (askgate's),
 * lateness = handler start − (job.timestamp + delay).
 */
export async function bullLateness(jobs: number, spreadSeconds: number): Promise<BullLatenessResult> {
  const { redis, admin } = await startRedisOnly();
  const producer = new Redis(redis.url, { maxRetriesPerRequest: null });
  const workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('lateness', { connection: producer, prefix: '{baseline}' });
  const lateness: number[] = [];
  const worker = new Worker(
    'lateness',
    async (job) => {
      lateness.push(Date.now() - (job.timestamp + (job.opts.delay ?? 0)));
    },
    { connection: workerConn, prefix: '{baseline}', concurrency: 50 },
  );
  try {
    await worker.waitUntilReady();
    const t0 = Date.now();
    const estimatedAddMs = jobs / 5; // ~5,000 jobs/s with addBulk; corrected below if slower
    const start = t0 + estimatedAddMs + 5000;
    for (let i = 0; i < jobs; i += 500) {
      const batch = [];
      for (let j = i; j < Math.min(jobs, i + 500); j++) {
        const due = start + (spreadSeconds * 1000 * j) / jobs;
        const id = `timeout-l${j}`;
        batch.push({
          name: 'timeout',
          data: { askId: id },
          opts: {
            jobId: id,
            delay: Math.max(0, due - Date.now()),
            removeOnComplete: true,
            removeOnFail: 1000,
            attempts: 5,
          },
        });
      }
      await queue.addBulk(batch);
    }
    const addSeconds = (Date.now() - t0) / 1000;
    const h0 = await redisHealth(admin);
    const deadline = Math.max(start, Date.now()) + spreadSeconds * 1000 + 20_000;
    while (lateness.length < jobs && Date.now() < deadline) await sleep(250);
    const h1 = await redisHealth(admin);
    const summary = summarize(lateness);
    return {
      jobs,
      spreadSeconds,
      addSeconds,
      latenessMs: summary,
      missed: jobs - lateness.length,
      samples: lateness.filter((_, i) => i % Math.max(1, Math.floor(lateness.length / 5000)) === 0),
      redis: {
        ...h1,
        aofRewrites: h1.aofRewrites - h0.aofRewrites,
        aofDelayedFsync: h1.aofDelayedFsync - h0.aofDelayedFsync,
      },
    };
  } finally {
    await worker.close(true);
    await queue.close();
    producer.disconnect();
    workerConn.disconnect();
    admin.disconnect();
    await redis.dispose();
  }
}
