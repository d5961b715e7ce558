import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startAskgate } from '../../src/main.js';
import { BullStepScheduler } from '../../src/queue/bull-steps.js';
import { redisFactoryFromUrl } from '../../src/queue/connections.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

// Queue errors reach askgate's JSON log (pino) with their component and level; nothing is
// printed raw (console.error of an Error object) beside it.

type Line = Record<string, unknown>;
/** The CLI's human-readable startup and shutdown lines; everything else must be a JSON log line. */
const HUMAN = /^(askgate[: ]|  (store|channels|web console): )/;

function split(output: string): { json: Line[]; raw: string[] } {
  const json: Line[] = [];
  const raw: string[] = [];
  for (const line of output.split('\n').filter((l) => l.trim() !== '')) {
    try {
      json.push(JSON.parse(line) as Line);
    } catch {
      if (!HUMAN.test(line)) raw.push(line);
    }
  }
  return { json, raw };
}

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

describe('logging', () => {
  const stderrWrites: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    stderrWrites.length = 0;
  });

  it('a failing timeout handler is one JSON error line with component and level, and nothing raw on stderr', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (l) => void lines.push(l)).child({ component: 'queue' });
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderrWrites.push(args.join(' ')));
    const s = new BullStepScheduler({
      connect: redisFactoryFromUrl(redis.url),
      prefix: `{logtest${Date.now()}}`,
      attempts: 1,
      logger,
    });
    try {
      await s.start({
        timeout: async () => {
          throw new Error('handler exploded');
        },
      });
      await s.schedule('askLog1', 'timeout', Date.now());
      await waitFor(() => lines.some((l) => l.includes('timeout job gave up')), 5000);
    } finally {
      await s.close();
    }
    const gaveUp = lines.map((l) => JSON.parse(l) as Line).find((l) => l.msg === 'timeout job gave up')!;
    expect(gaveUp).toMatchObject({
      level: 'error',
      component: 'queue',
      jobId: 'timeout-askLog1',
      attempts: 1,
      err: { type: 'Error', message: 'handler exploded' },
    });
    expect(stderrWrites).toEqual([]);
  });

  describe('askgate serve, Redis going away', () => {
    let own: TestRedis;
    let askgate: AskgateProcess;
    afterAll(async () => {
      await askgate?.kill9();
      await own?.dispose();
    });

    it('BullMQ worker and queue errors are JSON lines of component queue; no raw error objects', async () => {
      own = await startRedis();
      askgate = await startAskgateProcess({ ...testEnv({ REDIS_URL: own.url }), LOG_LEVEL: 'warn' });
      await own.stop();
      await waitFor(() => split(askgate.output()).json.some((l) => l.component === 'queue'), 15_000, 50);
      const { json, raw } = split(askgate.output());
      expect(raw).toEqual([]);
      const queue = json.filter((l) => l.component === 'queue');
      expect(queue[0]).toMatchObject({
        level: 'error',
        msg: expect.stringMatching(/^(timeout|outbox) (worker|queue) error$/),
        err: { message: expect.any(String) },
      });
      for (const line of json)
        expect(line).toMatchObject({
          level: expect.stringMatching(/^(warn|error|fatal)$/),
          time: expect.any(String),
          component: expect.any(String),
        });
    });
  });

  it('askgate mcp: a transport error is a JSON line of component mcp on stderr; stdout stays protocol only', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'mcp'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH, ASKGATE_URL: 'http://127.0.0.1:1', LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((res) => child.once('exit', res));
    child.stdin.write('this is not json-rpc\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await waitFor(() => out.includes('"id":1'), 20_000, 20);
    child.stdin.end();
    expect(await exited).toBe(0);
    for (const line of out.split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const { json, raw } = split(err);
    expect(raw).toEqual([]);
    expect(json).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        component: 'mcp',
        msg: 'mcp stdio error',
        err: expect.objectContaining({ message: expect.any(String) }),
      }),
    );
  });

  it('HTTP: fastify logs through pino with request lines off, so no token, body or answer reaches the log', async () => {
    const lines: string[] = [];
    const TOKEN = `SENTINEL-APITOKEN-${Date.now()}`;
    const ANSWER = `SENTINEL-ANSWER-${Date.now()}`;
    const app = await startAskgate(loadConfig(testEnv({ ASKGATE_API_TOKEN: TOKEN })), {
      logger: createLogger('trace', (l) => void lines.push(l)),
    });
    try {
      const api = client(app.url, TOKEN);
      const created = await api.post('/v1/asks', askBody('log-run'));
      expect(created.status).toBe(201);
      const answered = await api.post(`/v1/asks/${created.body.id}/answer`, { answers: { env: [ANSWER] } });
      expect(answered.status).toBe(200);
      await client(app.url, `wrong-${TOKEN}`).get('/v1/asks?x=1');
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(ANSWER);
    expect(lines.map((l) => JSON.parse(l) as Line).filter((l) => /request|incoming/i.test(String(l.msg)))).toEqual([]);
    expect(lines.some((l) => (JSON.parse(l) as Line).component === 'http')).toBe(true);
  });
});
