import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RunningAskgate } from '../../src/main.js';
import { AskgateClient } from '../../src/client/index.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

// An ask names the agent that asks (`agent`), and operators filter what waits by it:
// GET /v1/asks?agent=, client.listAsks({agent}), askgate ask --agent / askgate list --agent.

const TOKEN = 'list-agent-token-0123456789';
const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

describe.each([['memory'], ['redis']])('asks by agent on the %s store', (store) => {
  let app: RunningAskgate;
  let api: ReturnType<typeof client>;
  const ids: Record<string, string[]> = { 'deploy-bot': [], 'Ops Agent ✓': [], none: [] };

  beforeAll(async () => {
    const env = testEnv({ ASKGATE_API_TOKEN: TOKEN, ...(store === 'redis' ? { REDIS_URL: redis.url } : {}) });
    app = await startTestApp(env, []);
    api = client(app.url, TOKEN);
    const agents = ['deploy-bot', 'Ops Agent ✓', undefined, 'deploy-bot', undefined, 'Ops Agent ✓', 'deploy-bot'];
    for (const [i, agent] of agents.entries()) {
      const r = await api.post(
        '/v1/asks',
        askBody(`agent-${store}-${i}`, { timeoutSeconds: 600, ...(agent ? { agent } : {}) }),
      );
      expect(r.status).toBe(201);
      expect(r.body.agent).toBe(agent);
      ids[agent ?? 'none']!.push(r.body.id);
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the record keeps the agent: in the create answer, GET and the run', async () => {
    const id = ids['deploy-bot']![0]!;
    expect((await api.get(`/v1/asks/${id}`)).body.agent).toBe('deploy-bot');
    expect((await api.get(`/v1/runs/agent-${store}-0`)).body.current.agent).toBe('deploy-bot');
    expect((await api.get(`/v1/asks/${ids.none![0]}`)).body).not.toHaveProperty('agent');
  });

  it('GET /v1/asks?agent= lists that agent’s pending asks only, paged, oldest first', async () => {
    const first = await api.get('/v1/asks?agent=deploy-bot&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.asks.map((a: { id: string }) => a.id)).toEqual(ids['deploy-bot']!.slice(0, 2));
    const rest = await api.get(`/v1/asks?agent=deploy-bot&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(rest.body).toMatchObject({ asks: [{ id: ids['deploy-bot']![2] }], nextCursor: null });
    const ops = await api.get(`/v1/asks?agent=${encodeURIComponent('Ops Agent ✓')}`);
    expect(ops.body.asks.map((a: { id: string }) => a.id)).toEqual(ids['Ops Agent ✓']);
    // Compared as stored: another spelling is another agent.
    expect((await api.get('/v1/asks?agent=Deploy-Bot')).body.asks).toEqual([]);
  });

  it('an agent filter ends with the asks it ends: a cancelled ask leaves the listing', async () => {
    const [gone] = ids['Ops Agent ✓']!;
    expect((await api.post(`/v1/asks/${gone}/cancel`, {})).status).toBe(200);
    const ops = await api.get(`/v1/asks?agent=${encodeURIComponent('Ops Agent ✓')}`);
    expect(ops.body.asks.map((a: { id: string }) => a.id)).toEqual(ids['Ops Agent ✓']!.slice(1));
  });

  it('the SDK and the CLI filter by agent; the CLI names the agent of an ask', async () => {
    const sdk = new AskgateClient({ url: app.url, token: TOKEN });
    expect((await sdk.listAsks({ agent: 'deploy-bot' })).asks.map((a) => a.id)).toEqual(ids['deploy-bot']);
    const env = { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN };
    const made = await exec(
      process.execPath,
      [
        'bin/askgate.js',
        'ask',
        '--run',
        `agent-${store}-cli`,
        '--agent',
        'cli-bot',
        '--question',
        'Go?',
        '--option',
        'Yes',
        '--option',
        'No',
      ],
      { cwd: ROOT, env },
    );
    const created = JSON.parse(made.stdout) as { id: string; agent: string };
    expect(created.agent).toBe('cli-bot');
    const listed = await exec(process.execPath, ['bin/askgate.js', 'list', '--agent', 'cli-bot'], { cwd: ROOT, env });
    expect((JSON.parse(listed.stdout) as { asks: { id: string }[] }).asks.map((a) => a.id)).toEqual([created.id]);
  });

  it.each([
    [{ agent: '' }, /at least 1|empty|required/i],
    [{ agent: 'x'.repeat(65) }, /64/],
    [{ agent: 'a\u0000b' }, /control/],
    [{ agent: 'line\nbreak' }, /./],
    [{ agent: 42 }, /string/],
  ])('an ask with agent %j is a 400 naming agent', async (extra, message) => {
    const r = await api.post('/v1/asks', askBody(`agent-${store}-bad`, extra));
    expect(r.status).toBe(400);
    const issue = r.body.error.issues.find((i: { path: unknown[] }) => i.path[0] === 'agent');
    expect(issue, JSON.stringify(r.body)).toBeDefined();
    expect(issue.message).toMatch(message);
  });
});
