import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { AskgateClient, type StreamedHistoryEvent } from '../../src/client/index.js';
import { registerEventRoutes } from '../../src/api/events-routes.js';
import type { RunningAskgate } from '../../src/main.js';

const quiet = { info() {}, warn() {}, error() {} };

let redis: TestRedis;
let fake: FakeTelegramApi;
let hooks: Server;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let sdk: AskgateClient;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
  hooks = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  const channel = new TelegramChannel({
    token: fake.token,
    apiRoot: fake.url,
    logger: quiet,
    minSendIntervalMs: 50,
    pollTimeoutSeconds: 1,
  });
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_WEBHOOK_SECRET: 'whsec-events-0123456789',
      ASKGATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    }),
    [channel],
  );
  api = client(app.url);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  hooks?.closeAllConnections();
  await new Promise((r) => hooks?.close(r));
  await redis?.dispose();
});

/** Collects a stream's events in the background until `stop()`. */
function collect(stream: AsyncGenerator<StreamedHistoryEvent>, abort: AbortController) {
  const seen: StreamedHistoryEvent[] = [];
  const done = (async () => {
    for await (const e of stream) seen.push(e);
  })();
  return { seen, stop: async () => (abort.abort(), await done) };
}

const historyOf = async (id: string) =>
  (await api.get(`/v1/asks/${id}/events`)).body.events as Record<string, unknown>[];
const until = (id: string, n: number) =>
  eventually(async () => ((await historyOf(id)).length >= n ? historyOf(id) : undefined));

describe('the history of an ask answered through Telegram (grammy → fake Bot API)', () => {
  it('lists each step in order, and the SSE stream delivers the same events live', async () => {
    const group = fake.addGroup(-1_000_000_601, 'ops');
    const alice = fake.addUser(60_001, 'Alice', { username: 'alice' });
    const bob = fake.addUser(60_002, 'Bob', { username: 'bob' });
    const questions = [
      { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
      {
        id: 'checks',
        header: 'Checks',
        question: 'Which checks?',
        multiSelect: true,
        options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
      },
    ];
    const to = { channel: 'telegram', chat: String(group.id), users: [String(alice.id)] };
    const hook = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/askgate`;
    const { body: ask } = await api.post('/v1/asks', {
      runId: `ev-tg-${++run}`,
      to,
      questions,
      timeoutSeconds: 60,
      callbackUrl: hook,
    });
    const abort = new AbortController();
    const live = collect(sdk.streamEvents(ask.id, { signal: abort.signal }), abort);

    const [, delivered] = await until(ask.id, 2);
    const messageId = Number(delivered!.messageId);
    fake.say(group.id, '1', bob, messageId); // not for bob
    await until(ask.id, 3);
    fake.say(group.id, '5', alice, messageId); // out of range: a hint
    await until(ask.id, 4);
    fake.say(group.id, '1', alice, messageId); // answers the first question only
    await until(ask.id, 5);
    fake.say(group.id, '1,3', alice, messageId); // the rest
    const history = await until(ask.id, 8);
    await eventually(async () => live.seen.length >= 8);
    await live.stop();

    expect(history.slice(0, 6).map((h) => h.type)).toEqual([
      'created',
      'delivered',
      'reply_rejected',
      'hint_sent',
      'partial',
      'answered',
    ]);
    expect(
      history
        .slice(6)
        .map((h) => h.type)
        .sort(),
    ).toEqual(['finalized', 'webhook_delivered']);
    expect(history[0]).toMatchObject({ channel: 'telegram' });
    expect(history[1]).toMatchObject({ channel: 'telegram', messageId: String(messageId) });
    expect(history[2]).toMatchObject({ channel: 'telegram', userId: String(bob.id), reason: 'forbidden' });
    expect(history[3]).toMatchObject({ userId: String(alice.id), reason: 'invalid_selection' });
    expect(history[4]).toMatchObject({ userId: String(alice.id), questions: ['env'] });
    expect(history[5]).toMatchObject({ channel: 'telegram', userId: String(alice.id) });
    for (let i = 1; i < history.length; i++)
      expect(Date.parse(String(history[i]!.at))).toBeGreaterThanOrEqual(Date.parse(String(history[i - 1]!.at)));
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result.answers).toEqual({
      env: ['Staging'],
      checks: ['lint', 'e2e'],
    });

    expect(live.seen.map(({ id, askId, index, ...entry }) => [id, askId, index, entry])).toEqual(
      history.map((h, i) => [String(i), ask.id, i, h]),
    );
  });
});

describe('GET /v1/asks/:id/events', () => {
  it('JSON by default; 404 for an unknown ask', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody(`ev-${++run}`));
    expect((await api.get(`/v1/asks/${ask.id}/events`)).body).toEqual({
      askId: ask.id,
      events: [{ type: 'created', at: ask.createdAt }],
    });
    expect((await api.get('/v1/asks/AAAAAAAAAAAAAA/events')).status).toBe(404);
    expect((await api.get('/v1/asks/bad!/events')).status).toBe(404);
  });

  it('?stream=1 is SSE: event = type, id = index, JSON data; Last-Event-ID replays from there, then live', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody(`ev-${++run}`));
    await api.post(`/v1/asks/${ask.id}/cancel`);
    const abort = new AbortController();
    const res = await fetch(`${app.url}/v1/asks/${ask.id}/events?stream=1`, {
      headers: { 'last-event-id': '0' },
      signal: abort.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: no_answer')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    expect(text).toMatch(/^retry: 3000\n\n/);
    expect(text).not.toContain('event: created');
    const frame = /id: 1\nevent: no_answer\ndata: (.*)\n\n/.exec(text);
    expect(JSON.parse(frame![1]!)).toMatchObject({ type: 'no_answer', reason: 'cancelled', askId: ask.id, index: 1 });
  });
});

describe('GET /v1/runs/:runId/events', () => {
  it('streams the entries of every ask of the run, with askId in each; JSON lists them in time order', async () => {
    const runId = `ev-run-${++run}`;
    const { body: first } = await api.post('/v1/asks', askBody(runId));
    const abort = new AbortController();
    const live = collect(sdk.streamRunEvents(runId, { signal: abort.signal }), abort);
    await eventually(async () => live.seen.length === 1);
    const { body: second } = await api.post('/v1/asks', askBody(runId));
    await api.post(`/v1/asks/${second.id}/answer`, { answers: { env: ['Staging'] } });
    await eventually(async () => live.seen.length >= 4);
    await live.stop();
    const seen = live.seen.map((e) => `${e.id} ${e.askId === first.id ? 'first' : 'second'} ${e.type}`);
    expect(seen[0]).toBe('1.0 first created');
    expect(seen.slice(1).sort()).toEqual(['1.1 first no_answer', '2.0 second created', '2.1 second answered'].sort());
    expect(seen.indexOf('2.0 second created')).toBeLessThan(seen.indexOf('2.1 second answered'));

    const json = (await api.get(`/v1/runs/${runId}/events`)).body;
    expect(json.events.map((e: { version: number; type: string }) => `${e.version}:${e.type}`)).toEqual([
      '1:created',
      '1:no_answer',
      '2:created',
      '2:answered',
    ]);
    expect((await api.get('/v1/runs/no-such-run/events')).status).toBe(404);

    const resumed = new AbortController();
    const after = collect(sdk.streamRunEvents(runId, { signal: resumed.signal, lastEventId: '1.1' }), resumed);
    await eventually(async () => after.seen.length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    await after.stop();
    expect(after.seen.map((e) => e.id)).toEqual(['2.0', '2.1']);
  });
});

describe('stream lifecycle', () => {
  it('sends heartbeat comments, unsubscribes when the client goes away, and ends open streams on close', async () => {
    const deps = app.ports;
    let active = 0;
    const bus = {
      ...deps.bus,
      subscribe: deps.bus.subscribe.bind(deps.bus),
      notifyHistory: deps.bus.notifyHistory.bind(deps.bus),
      close: deps.bus.close.bind(deps.bus),
      onResync: deps.bus.onResync.bind(deps.bus),
      subscribeHistory: (listener: (askId: string, runId: string) => void) => {
        active++;
        const off = deps.bus.subscribeHistory(listener);
        return () => (active--, off());
      },
    };
    const mini = Fastify();
    registerEventRoutes(mini, { gateway: app.gateway, store: app.store, bus, logger: quiet, heartbeatMs: 50 });
    const url = await mini.listen({ port: 0, host: '127.0.0.1' });
    const { body: ask } = await api.post('/v1/asks', askBody(`ev-${++run}`));

    const abort = new AbortController();
    const res = await fetch(`${url}/v1/asks/${ask.id}/events`, {
      headers: { accept: 'text/event-stream' },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/: keep-alive/g) ?? []).length < 2)
      text += new TextDecoder().decode((await reader.read()).value);
    expect(active).toBe(1);
    abort.abort();
    await eventually(async () => active === 0, 2000);

    const open = await fetch(`${url}/v1/asks/${ask.id}/events?stream=true`);
    await eventually(async () => active === 1, 2000);
    const started = Date.now();
    await mini.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(active).toBe(0);
    await open.body?.cancel().catch(() => undefined);
  });
});
