import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { AskgateApiError, AskgateClient, type StreamedHistoryEvent } from '../../src/client/index.js';
import { GUARD_BLOCKED_KEPT } from '../../src/core/guard-blocked.js';
import { HISTORY_LIMIT } from '../../src/core/lifecycle.js';
import type { RunningAskgate } from '../../src/main.js';

// POST /v1/runs/:runId/guard-blocked against a real askgate on a real redis-server.

let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let sdk: AskgateClient;
const TOKEN = 'guard-route-token-0123456789';
let runs = 0;

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN }));
  api = client(app.url, TOKEN);
  sdk = new AskgateClient({ url: app.url, token: TOKEN });
});

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

const newRun = async (extra: Record<string, unknown> = {}) => {
  const runId = `guard-route-${++runs}`;
  const res = await api.post('/v1/asks', askBody(runId, extra));
  expect(res.status).toBe(201);
  return { runId, askId: res.body.id as string };
};
const blocked = (runId: string, body: unknown) => api.post(`/v1/runs/${runId}/guard-blocked`, body);
const metric = async () => {
  const text = (await api.get('/metrics')).body as string;
  return Number(/^askgate_guard_blocked_total (\d+)$/m.exec(text)?.[1]);
};

describe('POST /v1/runs/:runId/guard-blocked', () => {
  it('notes the tool on the open ask (name only), in its events and the counter', async () => {
    const { runId, askId } = await newRun();
    const before = await metric();
    const res = await blocked(runId, { tool: 'deploy', askId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ askId, recorded: true });
    const { body } = await api.get(`/v1/asks/${askId}/events`);
    const entry = body.events.at(-1);
    expect(entry).toMatchObject({ type: 'guard_blocked', tool: 'deploy' });
    expect(Object.keys(entry).sort()).toEqual(['at', 'tool', 'type']);
    expect(await metric()).toBe(before + 1);
    const runEvents = (await api.get(`/v1/runs/${runId}/events`)).body.events;
    expect(runEvents.at(-1)).toMatchObject({ type: 'guard_blocked', tool: 'deploy', askId, version: 1 });
  });

  it('streams guard_blocked entries live (the SDK parses them with the tool)', async () => {
    const { runId, askId } = await newRun();
    const abort = new AbortController();
    const seen: StreamedHistoryEvent[] = [];
    const reading = (async () => {
      for await (const e of sdk.streamRunEvents(runId, { signal: abort.signal })) {
        seen.push(e);
        if (e.type === 'guard_blocked') abort.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    expect(await sdk.recordGuardBlocked(runId, { tool: 'send_email' })).toEqual({ askId, recorded: true });
    await reading;
    expect(seen.at(-1)).toMatchObject({ type: 'guard_blocked', tool: 'send_email', askId, id: '1.1' });
  });

  it('a run with no ask yet streams (empty), then its first ask; its JSON form stays 404', async () => {
    const runId = `guard-route-fresh-${++runs}`;
    expect((await api.get(`/v1/runs/${runId}/events`)).status).toBe(404);
    const abort = new AbortController();
    let opened = false;
    const seen: StreamedHistoryEvent[] = [];
    const reading = (async () => {
      const events = sdk.streamRunEvents(runId, { signal: abort.signal, onOpen: () => (opened = true) });
      for await (const e of events) {
        seen.push(e);
        abort.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 150));
    expect(opened).toBe(true);
    const { body: ask } = await api.post('/v1/asks', askBody(runId));
    await reading;
    expect(seen).toMatchObject([{ type: 'created', askId: ask.id, id: '1.0' }]);
  });

  it('records on the open ask when the guard names another (an older one)', async () => {
    const { runId, askId: old } = await newRun();
    const { body: second } = await api.post('/v1/asks', askBody(runId));
    const res = await blocked(runId, { tool: 'deploy', askId: old });
    expect(res.body).toEqual({ askId: second.id, recorded: true });
  });

  it('409 no_pending_ask when the run has none open, 404 for an unknown run', async () => {
    const { runId, askId } = await newRun();
    await api.post(`/v1/asks/${askId}/cancel`);
    const res = await blocked(runId, { tool: 'deploy' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('no_pending_ask');
    const none = await blocked('guard-route-nobody', { tool: 'deploy' });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_found');
    const err = await sdk.recordGuardBlocked(runId, { tool: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AskgateApiError);
    expect((err as AskgateApiError).code).toBe('no_pending_ask');
  });

  it('needs the bearer token', async () => {
    const { runId } = await newRun();
    const res = await client(app.url).post(`/v1/runs/${runId}/guard-blocked`, { tool: 'deploy' });
    expect(res.status).toBe(401);
    expect((await client(app.url, 'wrong').post(`/v1/runs/${runId}/guard-blocked`, { tool: 'x' })).status).toBe(401);
  });

  it.each([
    ['no tool', {}, 'tool'],
    ['an empty tool', { tool: '' }, 'tool'],
    ['a tool that is no string', { tool: 42 }, 'tool'],
    ['a control character', { tool: 'rm\u0000-rf' }, 'tool'],
    ['a line break', { tool: 'a\nb' }, 'tool'],
    ['a bidi override', { tool: 'evil\u202Etxt' }, 'tool'],
    ['only invisible characters', { tool: '\u200B' }, 'tool'],
    ['a 10 KB name', { tool: 'x'.repeat(10_240) }, 'tool'],
    ['201 characters', { tool: 'x'.repeat(201) }, 'tool'],
    ['a bad ask id', { tool: 'deploy', askId: 'nope!' }, 'askId'],
    ['the arguments (never taken)', { tool: 'deploy', arguments: { to: 'prod' } }, ''],
  ])('400 naming the field for %s, nothing recorded', async (_name, body, field) => {
    const { runId, askId } = await newRun();
    const res = await blocked(runId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.issues.map((i: { path: string[] }) => i.path.join('.'))).toContain(field);
    const { body: events } = await api.get(`/v1/asks/${askId}/events`);
    expect(events.events.some((e: { type: string }) => e.type === 'guard_blocked')).toBe(false);
  });

  it('400 for a bad run id in the path', async () => {
    const res = await blocked('a%20b', { tool: 'deploy' });
    expect(res.status).toBe(400);
    expect(res.body.error.issues[0]).toMatchObject({ in: 'path', path: ['runId'] });
  });

  it('a loop of blocks keeps the record bounded: the other entries stay, one commit each', async () => {
    const { runId, askId } = await newRun();
    const before = (await app.store.get(askId))!.rev;
    const firstHistory = (await api.get(`/v1/asks/${askId}/events`)).body.events;
    const N = 150;
    for (let i = 0; i < N; i++) expect((await blocked(runId, { tool: `tool-${i}` })).status).toBe(200);
    const after = (await api.get(`/v1/asks/${askId}/events`)).body.events as { type: string; tool?: string }[];
    const guardEntries = after.filter((e) => e.type === 'guard_blocked');
    expect(guardEntries.length).toBe(GUARD_BLOCKED_KEPT);
    expect(guardEntries.map((e) => e.tool)).toEqual(
      Array.from({ length: GUARD_BLOCKED_KEPT }, (_, i) => `tool-${N - GUARD_BLOCKED_KEPT + i}`),
    );
    expect(after.filter((e) => e.type !== 'guard_blocked')).toEqual(firstHistory);
    expect(after.length).toBeLessThanOrEqual(HISTORY_LIMIT);
    // One compare-and-set per block: the record's revision moved by exactly N.
    const record = await app.store.get(askId);
    expect(record!.rev).toBe(before + N);
  });
});
