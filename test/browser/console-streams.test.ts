import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { ConsoleHub, MAX_STREAMS_PER_SESSION as PER_SESSION } from '../../src/console/hub.js';
import { testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { openSse, raw, type SseStream } from './raw-http.js';

// The console's event streams under load (issue 33): the snapshot is read once for every console
// that connects while nothing changed, streams are capped per session and per process, and a
// console that stops reading is closed before askgate piles up its backlog.

const TOKEN = 'console-streams-token-0123456789';
const PER_PROCESS = 25;
const STALL_MS = 100;
/** The backlog at which askgate cuts a slow console at once (console/hub.ts). */
const MAX_BACKLOG_BYTES = 1 << 20;

let redis: TestRedis;
let app: RunningAskgate;
let admin: Redis;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  const env = testEnv({
    REDIS_URL: redis.url,
    ASKGATE_API_TOKEN: TOKEN,
    ASKGATE_CONSOLE_MAX_STREAMS: String(PER_PROCESS),
    ASKGATE_CONSOLE_STALL_MS: String(STALL_MS),
  });
  const logger = createLogger('info', (line) => void logs.push(JSON.parse(line)));
  app = await startAskgate(loadConfig(env), { channels: [], logger });
});

afterAll(async () => {
  await app?.close();
  admin?.disconnect();
  await redis?.dispose();
});

const host = () => new URL(app.url).host;

/** Signs in and returns the session cookie. */
async function signIn(): Promise<string> {
  const res = await raw(app.url, 'POST', '/console/login', { origin: app.url, host: host() }, { token: TOKEN });
  expect(res.status).toBe(200);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

/** How often Redis ran ZREVRANGE: the store's `recent`, which only a console snapshot calls. */
async function snapshotReads(): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(/cmdstat_zrevrange:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

const ids = (e: { data: { asks: { id: string }[] } }) => e.data.asks.map((a) => a.id);

describe('console snapshot, shared', () => {
  it('N consoles that connect while nothing changes cost one snapshot read; a change makes the next console read again', async () => {
    const api = client(app.url, TOKEN);
    const { body: first } = await api.post('/v1/asks', askBody('run-shared-1'));
    const cookie = await signIn();
    const before = await snapshotReads();
    const streams = await Promise.all(
      Array.from({ length: PER_SESSION }, () => openSse(app.url, '/console/events', { cookie })),
    );
    try {
      for (const s of streams) expect(ids(await s.next((e) => e.event === 'snapshot'))).toContain(first.id);
      expect((await snapshotReads()) - before).toBe(1);

      // A change after the snapshot: every open console gets it as an event, and the next console
      // to connect gets a snapshot read after it (not the shared one, which is now stale).
      const { body: later } = await api.post('/v1/asks', askBody('run-shared-2'));
      for (const s of streams) await s.next((e) => e.event === 'ask' && e.data.id === later.id);
      const late = await openSse(app.url, '/console/events', { cookie: await signIn() });
      streams.push(late);
      expect(ids(await late.next((e) => e.event === 'snapshot'))).toEqual(expect.arrayContaining([first.id, later.id]));
      expect((await snapshotReads()) - before).toBe(2);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('a read that a change overtook is not handed to a console that came after the change', async () => {
    const { ConsoleSnapshots } = await import('../../src/console/snapshots.js');
    const api = client(app.url, TOKEN);
    let release = () => {};
    let reads = 0;
    // The real store, its reads counted and held until released.
    const gated = {
      recent: async (limit: number) => {
        reads++;
        await new Promise<void>((go) => (release = go));
        return app.store.recent(limit);
      },
    };
    const snapshots = new ConsoleSnapshots(gated, (r) => ({ id: r.id }) as never);
    const early = snapshots.current(); // read 1 begins
    const sameWindow = snapshots.current(); // shares read 1
    expect(reads).toBe(1);
    const { body: made } = await api.post('/v1/asks', askBody('run-overtaken'));
    snapshots.invalidate(); // the change is announced while read 1 is in flight
    const after = snapshots.current(); // must wait for a read that begins after the announcement
    release();
    const [a, b] = await Promise.all([early, sameWindow]);
    expect(a).toBe(b); // one Buffer for both
    await waitFor(() => reads === 2);
    release();
    const fresh = JSON.parse(String(await after).slice(0, -3)) as { id: string }[];
    expect(fresh.map((x) => x.id)).toContain(made.id);
    expect(await snapshots.current()).toBe(await after); // cached until the next change
    expect(reads).toBe(2);
  });
  it('a change announced while a console’s snapshot is read reaches it after the snapshot, not before', async () => {
    const api = client(app.url, TOKEN);
    let release = () => {};
    const read: string[] = [];
    // The real store and bus; the snapshot is read at once but handed over only when released,
    // and the asks the hub reads one by one are noted.
    const feed = {
      store: {
        recent: async (limit: number) => {
          const records = await app.store.recent(limit);
          await new Promise<void>((go) => (release = go));
          return records;
        },
        get: async (id: string) => {
          read.push(id);
          return app.store.get(id);
        },
      },
      bus: app.ports.bus,
      clock: { now: () => Date.now() },
      logger: { warn: () => {}, info: () => {} },
    };
    const hub = new ConsoleHub(feed, async () => new Set(), { maxStreams: 10, stallMs: 30_000 });
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void hub.attach(res, 'one');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address() as { port: number };
    const stream = await openSse(`http://127.0.0.1:${address.port}`, '/');
    try {
      const { body: made } = await api.post('/v1/asks', askBody('run-during-snapshot'));
      await waitFor(() => read.includes(made.id)); // announced and read while the snapshot is held
      await new Promise((r) => setTimeout(r, 50));
      release();
      const change = await stream.next((e) => e.event === 'ask' && e.data.id === made.id);
      const snapshot = stream.events.findIndex((e) => e.event === 'snapshot');
      expect(snapshot).toBeGreaterThanOrEqual(0);
      expect(ids(stream.events[snapshot]!)).not.toContain(made.id); // read before the change
      expect(stream.events.indexOf(change)).toBeGreaterThan(snapshot);
    } finally {
      stream.close();
      hub.close();
      await new Promise((ok) => server.close(ok));
    }
  });
});

describe('console stream caps', () => {
  const streams: SseStream[] = [];
  afterAll(() => streams.forEach((s) => s.close()));

  it('refuses a session past its cap with 429, and every session past the process cap with 503, JSON and Retry-After', async () => {
    const [one, two, three] = [await signIn(), await signIn(), await signIn()];
    await new Promise((r) => setTimeout(r, 300)); // the earlier tests' streams have closed on the server
    for (let i = 0; i < PER_SESSION; i++) streams.push(await openSse(app.url, '/console/events', { cookie: one }));
    const refused = await raw(app.url, 'GET', '/console/events', { cookie: one });
    expect([refused.status, refused.headers['retry-after'], refused.json().error.code]).toEqual([
      429,
      '30',
      'too_many_streams',
    ]);
    expect(refused.json().error.message).toMatch(/this session has its most console streams open \(10\)/);

    for (let i = PER_SESSION; i < PER_PROCESS; i++)
      streams.push(await openSse(app.url, '/console/events', { cookie: i < 2 * PER_SESSION ? two : three }));
    const full = await raw(app.url, 'GET', '/console/events', { cookie: three });
    expect([full.status, full.headers['retry-after'], full.json().error]).toEqual([
      503,
      '30',
      { code: 'too_many_streams', message: 'askgate holds its most console streams (25); retry later' },
    ]);
    expect((await raw(app.url, 'GET', '/healthz')).status).toBe(200);

    // A stream that ends frees its place.
    const gone = streams.shift()!;
    gone.close();
    await gone.ended;
    let again = await openSse(app.url, '/console/events', { cookie: three });
    for (let i = 0; again.status !== 200 && i < 50; i++) {
      again.close();
      await new Promise((r) => setTimeout(r, 20));
      again = await openSse(app.url, '/console/events', { cookie: three });
    }
    streams.push(again);
    expect(again.status).toBe(200);
    await again.next((e) => e.event === 'snapshot');
  });
});

/** A console stream read from a raw socket: its bytes counted, or left unread (paused). */
function rawStream(cookie: string, read: boolean) {
  const socket: Socket = connect(Number(new URL(app.url).port), '127.0.0.1');
  const state = { bytes: 0, ended: false, socket };
  socket.on('data', (chunk: Buffer) => void (state.bytes += chunk.length));
  socket.on('close', () => void (state.ended = true));
  if (!read) socket.pause();
  socket.write(
    `GET /console/events HTTP/1.1\r\nHost: ${host()}\r\nAccept: text/event-stream\r\nCookie: ${cookie}\r\n\r\n`,
  );
  return state;
}

/** An ask whose console view is large (~9 KB): three long questions with long options. */
const bigAsk = (i: number) => ({
  runId: `run-big-${i}`,
  questions: [0, 1, 2].map((q) => ({
    id: `q${q}`,
    question: '質'.repeat(1000),
    options: [0, 1, 2, 3].map((o) => ({ label: `選${o}${'択'.repeat(90)}`, description: '説'.repeat(300) })),
  })),
});

describe('a console that does not read', () => {
  it('is closed once its data waited unread for the stall time, long before 1 MB piles up in askgate', async () => {
    const cookie = await signIn();
    const reader = rawStream(cookie, true);
    const idle = rawStream(cookie, false);
    const api = client(app.url, TOKEN);
    const dropped = () => logs.find((l) => l.msg === 'console stream closed: client not reading');
    // Small rounds with pauses longer than the stall time: once the kernel's buffers are full,
    // the next round finds the stream stalled. Bounded: ~13 MB at most.
    for (let round = 0; round < 150 && !dropped(); round++) {
      for (let i = 0; i < 10; i++) expect((await api.post('/v1/asks', bigAsk(round * 10 + i))).status).toBe(201);
      await new Promise((r) => setTimeout(r, 2 * STALL_MS));
    }
    // Closed while less than askgate's hard cut waited in it (old code: a stalled stream stayed
    // open until more than 1 MB had piled up in askgate, and with little traffic for ever).
    const log = dropped() as { level: string; reason: string; unsentBytes: number } | undefined;
    expect(log).toMatchObject({ level: 'info', reason: 'stalled' });
    expect(log!.unsentBytes).toBeLessThan(MAX_BACKLOG_BYTES);
    idle.socket.resume();
    await waitFor(() => idle.ended, 10_000);
    // The console that reads is still live.
    const before = reader.bytes;
    await api.post('/v1/asks', askBody('run-after-stall'));
    await waitFor(() => reader.bytes > before, 5_000);
    expect(reader.ended).toBe(false);
    reader.socket.destroy();
  }, 60_000);
});
