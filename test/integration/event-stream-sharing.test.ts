import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { AskgateClient, type StreamedHistoryEvent } from '../../src/client/index.js';
import { registerEventRoutes } from '../../src/api/events-routes.js';
import type { RunningAskgate } from '../../src/main.js';
import { NO_AUDIT } from '../helpers/audit-keys.js';

/**
 * The event streams of one process share their reads (issue 33): process A holds the streams,
 * process B (same Redis) makes the changes, so every record read A makes is a stream's. Caps are
 * tried on process C, whose limits are small.
 */
const quiet = { info() {}, warn() {}, error() {} };

let redis: TestRedis;
let a: RunningAskgate;
let b: RunningAskgate;
let c: RunningAskgate;
let apiA: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
let apiC: ReturnType<typeof client>;
let sdkA: AskgateClient;
/** Record reads (`store.get`) of process A, by ask id. */
const readsA = new Map<string, number>();
/** History announcements process A received, by run id. */
const announcedA = new Map<string, number>();
let mini: FastifyInstance | undefined;

beforeAll(async () => {
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url, ...NO_AUDIT });
  a = await startTestApp(env);
  b = await startTestApp(env);
  c = await startTestApp(
    testEnv({ REDIS_URL: redis.url, ASKGATE_EVENT_STREAMS_PER_RUN: '2', ASKGATE_EVENT_STREAMS_MAX: '3' }),
  );
  apiA = client(a.url);
  apiB = client(b.url);
  apiC = client(c.url);
  sdkA = new AskgateClient({ url: a.url });
  const get = a.store.get.bind(a.store);
  a.store.get = (askId: string) => {
    readsA.set(askId, (readsA.get(askId) ?? 0) + 1);
    return get(askId);
  };
  a.ports.bus.subscribeHistory((_askId, runId) => announcedA.set(runId, (announcedA.get(runId) ?? 0) + 1));
});

afterAll(async () => {
  await mini?.close();
  await a?.close();
  await b?.close();
  await c?.close();
  await redis?.dispose();
});

/** Collects a stream's events in the background; `ended` turns true when askgate ends the stream. */
function collect(stream: AsyncGenerator<StreamedHistoryEvent>, abort = new AbortController()) {
  const state = { seen: [] as StreamedHistoryEvent[], ended: false };
  const done = (async () => {
    for await (const e of stream) state.seen.push(e);
    state.ended = true;
  })().catch(() => undefined);
  return Object.assign(state, { stop: async () => (abort.abort(), await done) });
}

/** Opens a run's stream on A with its own abort. */
function streamRunOnA(runId: string, lastEventId?: string) {
  const abort = new AbortController();
  return collect(sdkA.streamRunEvents(runId, { signal: abort.signal, lastEventId }), abort);
}

/** Opens a raw SSE request (status and headers visible). */
const sse = (url: string, signal: AbortSignal, lastEventId?: string) =>
  fetch(url, {
    headers: { accept: 'text/event-stream', ...(lastEventId !== undefined && { 'last-event-id': lastEventId }) },
    signal,
  });

describe('streams of one run in one process share one read per change', () => {
  it('12 streams on a run: each change is read once (not 12 times) and every stream gets every entry once', async () => {
    const runId = 'share-1';
    const { body: first } = await apiB.post('/v1/asks', askBody(runId));
    const streams = Array.from({ length: 12 }, () => streamRunOnA(runId));
    await eventually(async () => streams.every((s) => s.seen.length === 1));
    readsA.clear();
    announcedA.delete(runId);

    await apiB.post(`/v1/asks/${first.id}/answer`, { answers: { env: ['Staging'] } });
    const { body: second } = await apiB.post('/v1/asks', askBody(runId));
    await apiB.post(`/v1/asks/${second.id}/cancel`);
    await eventually(async () => streams.every((s) => s.seen.length >= 4));
    await new Promise((r) => setTimeout(r, 200)); // anything sent twice would arrive meanwhile
    await Promise.all(streams.map((s) => s.stop()));

    for (const s of streams)
      expect(s.seen.map((e) => `${e.id} ${e.type}`)).toEqual([
        '1.0 created',
        '1.1 answered',
        '2.0 created',
        '2.1 no_answer',
      ]);
    const reads = (readsA.get(first.id) ?? 0) + (readsA.get(second.id) ?? 0);
    const announced = announcedA.get(runId) ?? 0;
    expect(announced).toBeGreaterThanOrEqual(3);
    // One read per announced change at most (announcements during a read share the next one).
    expect(reads).toBeGreaterThanOrEqual(2);
    expect(reads).toBeLessThanOrEqual(announced);
  });

  it('streams of an ask share reads the same way', async () => {
    const { body: ask } = await apiB.post('/v1/asks', askBody('share-2'));
    const streams = Array.from({ length: 8 }, () => {
      const abort = new AbortController();
      return collect(sdkA.streamEvents(ask.id, { signal: abort.signal }), abort);
    });
    await eventually(async () => streams.every((s) => s.seen.length === 1));
    readsA.clear();
    announcedA.delete('share-2');
    await apiB.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Production'] } });
    await eventually(async () => streams.every((s) => s.seen.length >= 2));
    await Promise.all(streams.map((s) => s.stop()));
    for (const s of streams) expect(s.seen.map((e) => e.type)).toEqual(['created', 'answered']);
    expect(readsA.get(ask.id) ?? 0).toBeLessThanOrEqual(announcedA.get('share-2') ?? 0);
  });
});

describe('caps on open streams (C: 2 per run or ask, 3 in the process)', () => {
  it('refuses beyond a cap with 429 too_many_streams, retry-after and the cap; JSON reads are never refused', async () => {
    const { body: onR } = await apiC.post('/v1/asks', askBody('cap-r'));
    const { body: onS } = await apiC.post('/v1/asks', askBody('cap-s'));
    const aborts: AbortController[] = [];
    const open = async (path: string) => {
      const abort = new AbortController();
      aborts.push(abort);
      return sse(`${c.url}${path}`, abort.signal);
    };
    expect((await open('/v1/runs/cap-r/events')).status).toBe(200);
    expect((await open('/v1/runs/cap-r/events')).status).toBe(200);
    const third = await open('/v1/runs/cap-r/events');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    const refused = (await third.json()) as { error: { code: string; message: string; limit: number } };
    expect(refused.error).toMatchObject({ code: 'too_many_streams', limit: 2 });
    expect(refused.error.message).toContain('ASKGATE_EVENT_STREAMS_PER_RUN');

    expect((await open(`/v1/asks/${onS.id}/events`)).status).toBe(200);
    const full = await open(`/v1/runs/cap-s/events`);
    expect(full.status).toBe(429);
    expect(await full.json()).toMatchObject({ error: { code: 'too_many_streams', limit: 3 } });
    expect((await apiC.get('/v1/runs/cap-r/events')).status).toBe(200);
    expect((await apiC.get(`/v1/asks/${onR.id}/events`)).status).toBe(200);

    aborts[0]!.abort(); // a stream that ends makes room
    await eventually(async () => {
      const again = await open('/v1/runs/cap-r/events');
      return again.status === 200;
    });
    for (const abort of aborts) abort.abort();
  });
});

describe('an ask stream ends once the ask is done', () => {
  it('sends the terminal entries, then ends; a resume after the last entry is 204 (no stream)', async () => {
    const { body: ask } = await apiA.post('/v1/asks', askBody('done-1'));
    const live = collect(sdkA.streamEvents(ask.id));
    await eventually(async () => live.seen.length === 1);
    await apiA.post(`/v1/asks/${ask.id}/cancel`);
    await eventually(async () => live.ended);
    expect(live.seen.map((e) => `${e.id} ${e.type}`)).toEqual(['0 created', '1 no_answer']);

    const after = await sse(`${a.url}/v1/asks/${ask.id}/events`, new AbortController().signal, '1');
    expect(after.status).toBe(204);
    const resumed = collect(sdkA.streamEvents(ask.id, { lastEventId: '1' }));
    await eventually(async () => resumed.ended);
    expect(resumed.seen).toEqual([]);
  });

  it('a stream resumed on an ended ask gets exactly the entries it missed, then ends', async () => {
    const { body: ask } = await apiB.post('/v1/asks', askBody('done-2'));
    await apiB.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
    const resumed = collect(sdkA.streamEvents(ask.id, { lastEventId: '0' }));
    await eventually(async () => resumed.ended);
    expect(resumed.seen.map((e) => `${e.id} ${e.type}`)).toEqual(['1 answered']);
  });
});

describe('resuming with Last-Event-ID', () => {
  it('a run stream ended at its maximum age and resumed, while the run changes, misses nothing and repeats nothing', async () => {
    mini = Fastify();
    registerEventRoutes(mini, { gateway: a.gateway, store: a.store, bus: a.ports.bus, logger: quiet, maxAgeMs: 150 });
    const sdk = new AskgateClient({ url: await mini.listen({ port: 0, host: '127.0.0.1' }) });
    const runId = 'resume-1';
    const { body: first } = await apiB.post('/v1/asks', askBody(runId));
    const abort = new AbortController();
    const seen: StreamedHistoryEvent[] = [];
    let connections = 0;
    const reader = (async () => {
      let lastEventId: string | undefined;
      while (!abort.signal.aborted) {
        connections++;
        for await (const e of sdk.streamRunEvents(runId, { signal: abort.signal, lastEventId })) {
          seen.push(e);
          lastEventId = e.id;
        }
      }
    })().catch(() => undefined);

    let id = first.id as string;
    for (let i = 0; i < 5; i++) {
      await apiB.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] } });
      await new Promise((r) => setTimeout(r, 60));
      id = (await apiB.post('/v1/asks', askBody(runId))).body.id;
    }
    await apiB.post(`/v1/asks/${id}/cancel`);
    const all = (await apiA.get(`/v1/runs/${runId}/events`)).body.events as { version: number; index: number }[];
    expect(all).toHaveLength(12);
    await eventually(async () => seen.length >= all.length);
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    await reader;
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(seen.map((e) => e.id).sort()).toEqual(all.map((e) => `${e.version}.${e.index}`).sort());
  });
});
