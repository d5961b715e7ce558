import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { client, eventually } from '../helpers/http.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait.js';

// `askgate ask --wait` against a real askgate child process on Redis that restarts while it waits.
const ROOT = resolve(import.meta.dirname, '../..');
let redis: TestRedis;
let port: number;
let askgate: AskgateProcess;
let env: Record<string, string>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  redis = await startRedis();
  port = await freePort();
  env = {
    REDIS_URL: redis.url,
    PORT: String(port),
    ASKGATE_KEY_PREFIX: `cli${randomBytes(3).toString('hex')}`,
    ASKGATE_TIMEOUT_MIN_SECONDS: '1',
  };
  askgate = await startAskgateProcess(env);
  api = client(askgate.url);
}, 60_000);

afterAll(async () => {
  await askgate?.kill9();
  await redis?.dispose();
});

/** Runs the askgate bin (as `npx askgate` does) with ASKGATE_URL; resolves with its exit code and output. */
function askgateCli(args: string[], url = askgate.url) {
  const child = spawn(process.execPath, ['bin/askgate.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ASKGATE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; ms: number }>((res) => {
    const started = Date.now();
    child.once('exit', (code) => res({ code, ...out, ms: Date.now() - started }));
  });
  return { out, done };
}

const askArgs = (run: string, ...extra: string[]) => [
  'ask',
  '--run',
  run,
  '--question',
  'Deploy where?',
  '--option',
  'Staging',
  '--option',
  'Production',
  ...extra,
];
const pendingId = (run: string) =>
  eventually(async () => {
    const { body } = await api.get(`/v1/runs/${run}`);
    return body.current?.status === 'pending' ? (body.current.id as string) : undefined;
  }, 20_000);
const CANNOT_REACH = (p: number) =>
  new RegExp(
    `askgate: cannot reach http://127\\.0\\.0\\.1:${p} \\((ECONNREFUSED|ECONNRESET|other side closed)\\); retrying until \\d{4}-`,
  );

describe('askgate ask --wait through an askgate restart', () => {
  it.each([
    ['kill -9', () => askgate.kill9()],
    ['SIGTERM', () => askgate.stop()],
  ])(
    'keeps waiting when askgate is stopped with %s and restarted, then prints the answer and exits 0',
    async (_name, stop) => {
      const run = `restart-${randomBytes(3).toString('hex')}`;
      const cli = askgateCli(askArgs(run, '--timeout', '300', '--wait'));
      const id = await pendingId(run);
      await sleep(300); // the CLI is in its long poll now
      await stop();
      await eventually(async () => CANNOT_REACH(port).test(cli.out.stderr), 15_000);
      await sleep(1_000); // down for a while: several refused retries
      askgate = await startAskgateProcess(env);
      expect((await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['production'] }, by: 'me' })).status).toBe(200);
      const result = await cli.done;
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'answered', answers: { q1: ['Production'] } });
      expect((await api.get(`/v1/runs/${run}`)).body.history).toHaveLength(1);
    },
    60_000,
  );

  it('askgate wait <id> keeps waiting when askgate is killed and restarted, then prints the answer', async () => {
    const run = `wait-${randomBytes(3).toString('hex')}`;
    const { body } = await api.post('/v1/asks', {
      runId: run,
      timeoutSeconds: 300,
      questions: [{ question: 'Deploy where?', options: [{ label: 'Staging' }, { label: 'Production' }] }],
    });
    const cli = askgateCli(['wait', body.id]);
    await sleep(300); // the CLI is in its long poll now
    await askgate.kill9();
    await eventually(async () => CANNOT_REACH(port).test(cli.out.stderr), 15_000);
    askgate = await startAskgateProcess(env);
    await api.post(`/v1/asks/${body.id}/answer`, { answers: { q1: ['production'] } });
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'answered', answers: { q1: ['Production'] } });
  }, 60_000);

  it('a create whose response was cut is retried with the same idempotency key: one ask, answered', async () => {
    const proxy = await FaultProxy.start(port);
    let cut = 0;
    proxy.set({
      resetWhen: (chunk, direction) => direction === 'down' && chunk.includes('HTTP/1.1 201') && ++cut === 1,
    });
    try {
      const run = `cut-${randomBytes(3).toString('hex')}`;
      const cli = askgateCli(askArgs(run, '--wait'), `http://127.0.0.1:${proxy.port}`);
      const id = await pendingId(run);
      await eventually(async () => /retrying until/.test(cli.out.stderr));
      await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['staging'] } });
      const result = await cli.done;
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'answered', answers: { q1: ['Staging'] } });
      expect(cut).toBe(1);
      const { body } = await api.get(`/v1/runs/${run}`);
      expect(body.history.map((a: { id: string }) => a.id)).toEqual([id]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('rides out a Redis outage (503 store_unavailable) before the ask exists', async () => {
    await redis.stop();
    const run = `redis-${randomBytes(3).toString('hex')}`;
    const cli = askgateCli(askArgs(run, '--wait'));
    try {
      await eventually(async () => /answered HTTP 503; retrying until/.test(cli.out.stderr), 15_000);
    } finally {
      await redis.restart();
    }
    const id = await pendingId(run);
    await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['staging'] } });
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'answered' });
  }, 60_000);
});

describe('askgate ask when askgate is not there', () => {
  it('names the URL and the cause, and gives up after --retry-for (exit 1)', async () => {
    const nobody = await freePort();
    const result = await askgateCli(askArgs('nobody', '--wait', '--retry-for', '2'), `http://127.0.0.1:${nobody}`).done;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(CANNOT_REACH(nobody));
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `askgate: cannot reach http://127.0.0.1:${nobody} (ECONNREFUSED)`,
    );
    expect(result.stderr).not.toContain('fetch failed');
    expect(result.ms).toBeGreaterThanOrEqual(1_500);
    expect(result.ms).toBeLessThan(15_000);
  }, 30_000);

  it('without --wait fails at once with the same message and no retrying', async () => {
    const nobody = await freePort();
    const result = await askgateCli(askArgs('nobody'), `http://127.0.0.1:${nobody}`).done;
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`askgate: cannot reach http://127.0.0.1:${nobody} (ECONNREFUSED)`);
  });
});
