import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { AskgateApiError, AskgateClient, type AskList } from '../../src/client/index.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, type JsonResponse } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// GET /v1/asks?status=pending: what waits, for an operator or a curl-only user. Paged by cursor,
// filtered by run and channel, behind the bearer token like every /v1 route; on both stores.

const TOKEN = 'list-asks-token-0123456789';
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

describe.each([['memory'], ['redis']])('GET /v1/asks on the %s store', (store) => {
  let app: RunningAskgate;
  let api: ReturnType<typeof client>;
  const pending: string[] = [];
  const byChannel: Record<string, string[]> = { test: [], other: [] };
  let ended: string[] = [];
  let superseded: { id: string; runId: string };
  let current: { id: string; runId: string };

  /** Every page from the start, `limit` at a time (query extra), checking each page. */
  async function all(query = ''): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const r: JsonResponse = await api.get(
        `/v1/asks?status=pending${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status).toBe(200);
      ids.push(...r.body.asks.map((a: { id: string; status: string }) => (expect(a.status).toBe('pending'), a.id)));
      cursor = r.body.nextCursor;
      if (cursor === null) break;
    }
    return ids;
  }

  beforeAll(async () => {
    const env = testEnv({ ASKGATE_API_TOKEN: TOKEN, ...(store === 'redis' ? { REDIS_URL: redis.url } : {}) });
    app = await startTestApp(env, [new RecordingChannel('test'), new RecordingChannel('other')]);
    api = client(app.url, TOKEN);
    const create = async (runId: string, to?: object) => {
      const r = await api.post('/v1/asks', askBody(runId, { timeoutSeconds: 600, ...(to ? { to } : {}) }));
      expect(r.status).toBe(201);
      return r.body as { id: string; runId: string };
    };
    for (let i = 0; i < 7; i++) {
      const channel = i % 3 === 0 ? 'other' : 'test';
      const ask = await create(`list-${store}-${i}`, i === 6 ? undefined : { channel, chat: `c${i}` });
      pending.push(ask.id);
      if (i !== 6) byChannel[channel]!.push(ask.id);
    }
    superseded = await create(`list-${store}-run`, { channel: 'test', chat: 'r' });
    current = await create(`list-${store}-run`, { channel: 'test', chat: 'r' });
    pending.push(current.id);
    byChannel.test!.push(current.id);
    const answered = await create(`list-${store}-answered`);
    expect((await api.post(`/v1/asks/${answered.id}/answer`, { answers: { env: ['Staging'] } })).status).toBe(200);
    const cancelled = await create(`list-${store}-cancelled`);
    expect((await api.post(`/v1/asks/${cancelled.id}/cancel`)).status).toBe(200);
    ended = [superseded.id, answered.id, cancelled.id];
  });
  afterAll(async () => {
    await app?.close();
  });

  it('needs the bearer token, like every /v1 route: 401 and no asks without it', async () => {
    for (const who of [client(app.url), client(app.url, 'wrong-token-0123456789')]) {
      const r = await who.get('/v1/asks?status=pending');
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: { code: 'unauthorized', message: 'missing or invalid bearer token' } });
    }
  });

  it('lists every pending ask oldest first (status defaults to pending, limit to 50), never an ended one', async () => {
    const r = await api.get('/v1/asks');
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    expect(r.body.asks.map((a: { id: string }) => a.id)).toEqual(pending);
    expect(r.body.asks[0]).toMatchObject({ runId: `list-${store}-0`, status: 'pending', questions: [{ id: 'env' }] });
    expect(r.body.asks[0]).not.toHaveProperty('rev');
    expect(r.body.asks[0]).not.toHaveProperty('history');
    for (const id of ended) expect(r.body.asks.map((a: { id: string }) => a.id)).not.toContain(id);
  });

  it.each([1, 2, 3, 200])('pages of %i: every pending ask once, in order', async (limit) => {
    expect(await all(`&limit=${limit}`)).toEqual(pending);
  });

  it('an ask created while paging shows at the end; one that ends before its page is left out; none twice', async () => {
    const first = await api.get('/v1/asks?limit=3');
    expect(first.body.asks.map((a: { id: string }) => a.id)).toEqual(pending.slice(0, 3));
    const late = await api.post('/v1/asks', askBody(`list-${store}-late`, { timeoutSeconds: 600 }));
    const gone = pending[4]!;
    expect((await api.post(`/v1/asks/${gone}/cancel`)).status).toBe(200);
    let cursor: string | null = first.body.nextCursor;
    const seen = first.body.asks.map((a: { id: string }) => a.id);
    while (cursor !== null) {
      const r = await api.get(`/v1/asks?limit=3&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...r.body.asks.map((a: { id: string }) => a.id));
      cursor = r.body.nextCursor;
    }
    expect(seen).toEqual([...pending.filter((id) => id !== gone), late.body.id]);
    pending.splice(pending.indexOf(gone), 1);
    byChannel.test = byChannel.test!.filter((id) => id !== gone);
    byChannel.other = byChannel.other!.filter((id) => id !== gone);
    expect((await api.post(`/v1/asks/${late.body.id}/cancel`)).status).toBe(200);
  });

  it('filters by channel (a target or a delivery there) and by run', async () => {
    expect(await all('&channel=other&limit=1')).toEqual(byChannel.other);
    expect(await all('&channel=test')).toEqual(byChannel.test);
    expect(await all('&channel=slack')).toEqual([]);
    const run = await api.get(`/v1/asks?runId=list-${store}-run`);
    expect(run.body).toMatchObject({ nextCursor: null, asks: [{ id: current.id, runId: current.runId }] });
    expect((await api.get(`/v1/asks?runId=list-${store}-run&channel=other`)).body.asks).toEqual([]);
    expect((await api.get(`/v1/asks?runId=list-${store}-answered`)).body).toEqual({ asks: [], nextCursor: null });
    expect((await api.get('/v1/asks?runId=no-such-run')).body).toEqual({ asks: [], nextCursor: null });
  });

  it('the SDK pages the same listing: client.listAsks({limit, cursor, runId, channel})', async () => {
    const sdk = new AskgateClient({ url: app.url, token: TOKEN });
    const ids: string[] = [];
    let page: AskList = await sdk.listAsks({ status: 'pending', limit: 2 });
    for (;;) {
      ids.push(...page.asks.map((a) => a.id));
      if (page.nextCursor === null) break;
      page = await sdk.listAsks({ limit: 2, cursor: page.nextCursor });
    }
    expect(ids).toEqual(pending);
    expect((await sdk.listAsks({ runId: current.runId })).asks.map((a) => a.id)).toEqual([current.id]);
    expect((await sdk.listAsks({ channel: 'other' })).asks.map((a) => a.id)).toEqual(byChannel.other);
    const refused = await sdk.listAsks({ limit: 500 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AskgateApiError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it.each([
    ['limit=0', 'limit', /at least 1/],
    ['limit=201', 'limit', /at most 200/],
    ['limit=ten', 'limit', /number/],
    ['limit=1.5', 'limit', /whole number/],
    ['limit=1&limit=2', 'limit', /.+/],
    ['cursor=not-a-cursor', 'cursor', /nextCursor of an earlier page/],
    ['status=answered', 'status', /only pending asks are listed/],
    ['status=all', 'status', /only pending asks are listed/],
    ['status=open', 'status', /must be "pending"/],
    ['channel=Tele%20gram', 'channel', /channel name/],
    ['runId=..', 'runId', /dots/],
    ['owner=claude', 'owner', /unknown parameter: filter by runId, channel or agent/],
    ['agent=a%07b', 'agent', /control/],
  ])('?%s is a 400 naming the parameter', async (query, name, message) => {
    const r = await api.get(`/v1/asks?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    const issue = r.body.error.issues.find((i: { message: string }) => message.test(i.message));
    expect(issue, JSON.stringify(r.body)).toBeDefined();
    expect(issue.path).toEqual([name]);
  });
});
