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
    const pending = cli(['ask', '--run', 'cli-run', '--question', 'Deploy where?', '--header', 'Deploy', '--option', 'Staging', '--option', 'Prod', '--question', 'Which checks?', '--option', 'lint', '--option', 'tests', '--multi', '--wait']);
    const id = await eventually(async () => (await api.get('/v1/runs/cli-run')).body.current?.id);
    const { body: ask } = await api.get(`/v1/asks/${id}`);
    expect(ask.questions).toMatchObject([{ id: 'q1', header: 'Deploy', options: [{ label: 'Staging' }, { label: 'Prod' }], multiSelect: false }, { id: 'q2', multiSelect: true }]);
    await api.post(`/v1/asks/${id}/answer`, { answers: { q1: ['prod'], q2: ['lint', 'tests'] } });
    const result = await pending;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'answered', answers: { q1: ['Prod'], q2: ['lint', 'tests'] } });
  });

  it('exits 3 on no answer, 2 on invalid input', async () => {
    const timeout = await cli(['ask', '--run', 'cli-timeout', '--question', 'Q?', '--option', 'A', '--option', 'B', '--timeout', '1', '--wait']);
    expect(timeout.code).toBe(3);
    expect(JSON.parse(timeout.stdout)).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    const invalid = await cli(['ask', '--run', 'cli-bad', '--question', 'Q?', '--option', 'only-one']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/questions\.0\.options/);
    const usage = await cli(['ask', '--question', 'Q?']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--run is required/);
  });
});
