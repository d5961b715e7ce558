import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';

const TOKEN = 'test-token-0123456789abcdef';
const ROOT = resolve(import.meta.dirname, '../..');
let app: RunningAskgate;

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN, HOST: '127.0.0.1' }));
});

afterAll(async () => {
  await app?.close();
});

describe('bearer auth', () => {
  it('refuses missing and wrong tokens with 401 without revealing whether the run exists', async () => {
    const authed = client(app.url, TOKEN);
    await authed.post('/v1/asks', askBody('secret-run'));
    for (const api of [client(app.url), client(app.url, 'wrong-token-0123456789')]) {
      const known = await api.get('/v1/runs/secret-run');
      const unknown = await api.get('/v1/runs/no-such-run');
      expect(known.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(known.body).toEqual(unknown.body);
      expect((await api.post('/v1/asks', askBody('x'))).status).toBe(401);
      expect((await api.get('/metrics')).status).toBe(401);
    }
    expect((await client(app.url).get('/healthz')).status).toBe(200);
    expect((await authed.get('/v1/runs/secret-run')).status).toBe(200);
  });
});

const run = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('askgate ask', () => {
  it('asks, waits, prints the result JSON and exits 0 when answered', async () => {
    const api = client(app.url, TOKEN);
    const pending = cli([
      'ask',
      '--run',
      'cli-run',
      '--question',
      'Deploy where?',
      '--header',
      'Deploy',
      '--option',
      'Staging',
      '--option',
      'Prod',
      '--question',
      'Which checks?',
      '--option',
      'lint',
      '--option',
      'tests',
      '--multi',
      '--wait',
    ]);
    const id = await eventually(async () => (await api.get('/v1/runs/cli-run')).body.current?.id);
    const { body: ask } = await api.get(`/v1/asks/${id}`);
    expect(ask.questions).toMatchObject([
      { id: 'q1', header: 'Deploy', options: [{ label: 'Staging' }, { label: 'Prod' }], multiSelect: false },
      { id: 'q2', multiSelect: true },
    ]);
    await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['prod'], q2: ['lint', 'tests'] } });
    const result = await pending;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'answered',
      answers: { q1: ['Prod'], q2: ['lint', 'tests'] },
    });
  });

  it('exits 3 on no answer, 2 on invalid input', async () => {
    const timeout = await cli([
      'ask',
      '--run',
      'cli-timeout',
      '--question',
      'Q?',
      '--option',
      'A',
      '--option',
      'B',
      '--timeout',
      '1',
      '--wait',
    ]);
    expect(timeout.code).toBe(3);
    expect(JSON.parse(timeout.stdout)).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    const invalid = await cli(['ask', '--run', 'cli-bad', '--question', 'Q?', '--option', 'only-one']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/questions\.0\.options/);
    const usage = await cli(['ask', '--question', 'Q?']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--run is required/);
  });

  it('prints only JSON on stdout, so `npx askgate ask ... | jq` works', async () => {
    const { stdout } = await run(
      'bash',
      ['-c', 'npx askgate ask --run cli-jq --question "Q?" --option A --option B | jq -r .status'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      },
    );
    expect(stdout).toBe('pending\n');
  });

  it('refuses a --timeout that is not a whole number of seconds (exit 2) and sends nothing', async () => {
    const api = client(app.url, TOKEN);
    const ask = (...extra: string[]) =>
      cli(['ask', '--run', 'cli-timeout-bad', '--question', 'Q?', '--option', 'A', '--option', 'B', ...extra]);
    for (const value of [
      'abc',
      '1.5',
      '=-3',
      '=0',
      '=',
      '1e3',
      '0x10',
      ' 5',
      '5s',
      '=\u202e7',
      '99999999999999999999',
    ]) {
      const given = value.startsWith('=') ? [`--timeout${value}`] : ['--timeout', value];
      const result = await ask(...given);
      expect(result.code, `--timeout ${value}`).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/--timeout/);
    }
    // Shown escaped: a bidi override in the value cannot reorder the message.
    expect((await ask('--timeout=\u202e7')).stderr).toContain('not "\\u202e7"');
    // `--timeout -3` reads as a missing value followed by an unknown option.
    expect((await ask('--timeout', '-3')).code).toBe(2);
    expect((await api.get('/v1/runs/cli-timeout-bad')).status).toBe(404);
    const ok = await ask('--timeout', '45');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ runId: 'cli-timeout-bad', timeoutSeconds: 45, status: 'pending' });
  });

  it('refuses duplicated single-valued flags, bad --retry-for and URLs with credentials (exit 2), without echoing the password', async () => {
    const base = ['ask', '--run', 'cli-flags', '--question', 'Q?', '--option', 'A', '--option', 'B'];
    const twice = await cli([...base, '--run', 'other']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--run is given more than once/);
    expect((await cli([...base, '--retry-for', 'soon'])).stderr).toMatch(/--retry-for must be a whole number/);
    for (const url of [
      'http://user:hunter2-secret@127.0.0.1:1',
      'ftp://127.0.0.1',
      'not a url',
      'http://127.0.0.1:1/?token=hunter2-secret',
    ]) {
      const bad = await cli([...base, '--url', url]);
      expect(bad.code, url).toBe(2);
      expect(bad.stderr).toMatch(/--url/);
      expect(bad.stderr).not.toContain('hunter2-secret');
    }
    for (const spec of ['telegram', 'telegram:', ':42']) {
      const to = await cli([...base, '--to', spec]);
      expect(to.code, spec).toBe(2);
      expect(to.stderr).toContain(`--to: "${spec}" is not <channel>:<chat>`);
    }
    expect((await client(app.url, TOKEN).get('/v1/runs/cli-flags')).status).toBe(404);
  });
});

describe('askgate wait', () => {
  const create = async (runId: string) => {
    const created = await cli(['ask', '--run', runId, '--question', 'Q?', '--option', 'A', '--option', 'B']);
    expect(created.code, created.stderr).toBe(0);
    return JSON.parse(created.stdout).id as string;
  };

  it('waits for an ask that ask (without --wait) created, prints its result and exits 0 when answered', async () => {
    const id = await create('cli-wait-answered');
    const waiting = cli(['wait', id]);
    await client(app.url, TOKEN).post(`/v1/asks/${id}/answer`, { answers: { q1: ['b'] }, by: 'me' });
    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'answered',
      answers: { q1: ['B'] },
      answeredBy: { channel: 'api', userId: 'me' },
    });
  });

  it('exits 3 when the ask ends without an answer, 1 with the API error for an unknown id', async () => {
    const id = await create('cli-wait-cancelled');
    await client(app.url, TOKEN).post(`/v1/asks/${id}/cancel`, {});
    const cancelled = await cli(['wait', id]);
    expect(cancelled.code).toBe(3);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    const unknown = await cli(['wait', 'NoSuchAsk0123456']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('answered HTTP 404');
    expect(unknown.stderr).toContain('"code": "not_found"');
  });

  it.each([
    [[], 'wait takes one ask id'],
    [['a1b2c3d4e5f6g7', 'h8i9j0k1l2m3n4'], 'wait takes one ask id'],
    [['null'], '"null" is not an ask id'],
    [['a1b2c3d4e5f6g7', '--retry-for', '1', '--retry-for', '2'], '--retry-for is given more than once'],
    [['a1b2c3d4e5f6g7', '--retry-for', 'soon'], '--retry-for must be a whole number'],
    [['a1b2c3d4e5f6g7', '--wait'], "Unknown option '--wait'"],
  ])('refuses wait %j with exit 2 and the usage', async (args, message) => {
    const refused = await cli(['wait', ...args]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
    expect(refused.stderr).toContain('askgate wait <askId>');
  });
});
