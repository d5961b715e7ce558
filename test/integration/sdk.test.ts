import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  AskRequestSchema,
  AskgateApiError,
  AskgateClient,
  AskgateConnectionError,
  type AskView,
} from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let sdk: AskgateClient;
let run = 0;
const TOKEN = 'sdk-test-token-0123456789';

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

const input = (extra: Record<string, unknown> = {}) =>
  askBody(`sdk-run-${++run}`, extra) as Parameters<AskgateClient['ask']>[0];

/** Resolves with the ask once `ask()` reports it created. */
function created(): { onCreated: (a: AskView) => void; ask: Promise<AskView> } {
  let resolve!: (a: AskView) => void;
  const ask = new Promise<AskView>((r) => (resolve = r));
  return { onCreated: resolve, ask };
}

describe('AskgateClient.ask()', () => {
  it('resolves with the typed result when the answer arrives, across several long polls', async () => {
    const c = created();
    const pending = sdk.ask(input(), { onCreated: c.onCreated, waitSeconds: 1 });
    const ask = await c.ask;
    expect(ask.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 1500));
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['staging'] }, by: 'alice' });
    const result = await pending;
    expect(result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'] },
      answeredBy: { channel: 'api', userId: 'alice' },
    });
    if (result.status === 'answered') expect(Date.parse(result.answeredAt)).toBeGreaterThan(0);
  });

  it('resolves no_answer/timeout when nobody answers', async () => {
    const result = await sdk.ask(input({ timeoutSeconds: 1 }));
    expect(result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
  });

  it('aborting cancels the ask and rejects with an AbortError', async () => {
    const abort = new AbortController();
    const c = created();
    const pending = sdk.ask(input(), { signal: abort.signal, onCreated: c.onCreated });
    const ask = await c.ask;
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result).toMatchObject({
      status: 'no_answer',
      reason: 'cancelled',
    });
  });

  it('an already aborted signal rejects at once and creates nothing', async () => {
    const body = input();
    await expect(sdk.ask(body, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect((await api.get(`/v1/runs/${body.runId}`)).status).toBe(404);
  });

  it('a retry after a dropped connection does not create a second ask', async () => {
    const body = input();
    let posts = 0;
    let gets = 0;
    // The first POST reaches askgate (the ask is created) but its response is lost; so is one long poll.
    const flaky: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      const path = new URL(String(url)).pathname;
      if (init?.method === 'POST' && path === '/v1/asks' && ++posts === 1)
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      if (init?.method === 'GET' && ++gets === 1)
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      return response;
    };
    const flakySdk = new AskgateClient({ url: app.url, token: TOKEN, fetch: flaky });
    const c = created();
    const pending = flakySdk.ask(body, { onCreated: c.onCreated, waitSeconds: 1 });
    const ask = await c.ask;
    await api.post(`/v1/asks/${ask.id}/answer`, { skip: true });
    expect(await pending).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    expect(posts).toBe(2);
    const runView = await sdk.run(body.runId);
    expect(runView.history.map((a) => a.id)).toEqual([ask.id]);
    expect(runView.current?.version).toBe(1);
  });

  it('the same idempotencyKey on a retried call returns the first ask and its result', async () => {
    const body = input();
    const c = created();
    const first = sdk.ask(body, { idempotencyKey: `key-${run}`, onCreated: c.onCreated });
    await api.post(`/v1/asks/${(await c.ask).id}/answer`, { answers: { env: ['Production'] } });
    const again = await sdk.ask(body, { idempotencyKey: `key-${run}` });
    expect(again).toEqual(await first);
    expect((await sdk.run(body.runId)).history).toHaveLength(1);
  });
});

describe('typed errors and the other calls', () => {
  it('a bad request is an AskgateApiError with code, status and issue paths', async () => {
    const error = await sdk.ask(input({ questions: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AskgateApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', issues: [{ path: ['questions'] }] });
  });

  it('unknown asks are 404 not_found; a wrong token is 401 unauthorized', async () => {
    await expect(sdk.get('AAAAAAAAAAAAAA')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const wrong = new AskgateClient({ url: app.url, token: 'wrong-token-wrong-token' });
    await expect(wrong.get('AAAAAAAAAAAAAA')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('an unreachable askgate is an AskgateConnectionError after the retry window', async () => {
    const down = new AskgateClient({ url: 'http://127.0.0.1:1', retryForMs: 300 });
    await expect(down.ask(input())).rejects.toBeInstanceOf(AskgateConnectionError);
  });

  it('create, answer, cancel, run, abortRun and events', async () => {
    const body = input();
    const ask = await sdk.create(body);
    expect(ask).toMatchObject({ runId: body.runId, status: 'pending', version: 1 });
    const answered = await sdk.answer(ask.id, { answers: { env: ['Staging'] }, by: 'bob' });
    expect(answered.result).toMatchObject({ status: 'answered' });
    await expect(sdk.cancel(ask.id)).rejects.toMatchObject({ status: 409, code: 'already_resolved' });
    const second = await sdk.create(body);
    expect((await sdk.abortRun(body.runId)).cancelled?.id).toBe(second.id);
    expect((await sdk.run(body.runId)).history.map((a) => a.id)).toEqual([second.id, ask.id]);
    const events = await sdk.events(ask.id);
    expect(events.events.map((e) => e.type)).toEqual(['created', 'answered']);
    const runEvents = await sdk.runEvents(body.runId);
    expect(runEvents.events.map((e) => `${e.version}:${e.type}`)).toEqual([
      '1:created',
      '1:answered',
      '2:created',
      '2:no_answer',
    ]);
  });

  it('re-exports the zod schemas', () => {
    expect(AskRequestSchema.safeParse(input()).success).toBe(true);
    expect(AskRequestSchema.safeParse({ runId: 'x', questions: [] }).success).toBe(false);
  });

  it('streams events: replay, then live, then stops on abort', async () => {
    const ask = await sdk.create(input());
    const abort = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of sdk.streamEvents(ask.id, { signal: abort.signal })) {
        seen.push(`${e.id}:${e.type}`);
        if (e.type === 'answered') abort.abort();
      }
    })();
    await eventually(async () => seen.length === 1);
    await sdk.answer(ask.id, { answers: { env: ['Staging'] } });
    await reading;
    expect(seen).toEqual(['0:created', '1:answered']);
  });
});
