import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { LISTEN_BACKLOG } from '../../src/api/server.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { NO_AUDIT } from '../helpers/audit-keys.js';

let redis: TestRedis;
let app: RunningAskgate;
let env: Record<string, string>;
let api: ReturnType<typeof client>;
let watcher: Redis;
const events: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  // A test below counts the timeout path's record reads (NO_AUDIT: the sequencer's are not its).
  env = testEnv({ REDIS_URL: redis.url, ...NO_AUDIT });
  app = await startTestApp(env);
  api = client(app.url);
  watcher = new Redis(redis.url);
  await watcher.subscribe(`${env.ASKGATE_KEY_PREFIX}:resolved`);
  watcher.on('message', (_channel, askId: string) => events.push(askId));
});

afterAll(async () => {
  await app?.close();
  watcher?.disconnect();
  await redis?.dispose();
});

const eventsFor = (id: string) => events.filter((e) => e === id).length;

describe('ask and answer through the API', () => {
  it('creates a pending record with the documented shape', async () => {
    const res = await api.post('/v1/asks', askBody('run-shape'));
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/asks/${res.body.id}`);
    expect(res.body).toMatchObject({
      runId: 'run-shape',
      version: 1,
      status: 'pending',
      to: null,
      result: null,
      deliveries: [],
    });
    expect(res.body.id).toMatch(/^[0-9A-Za-z]{14}$/);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(900_000);
    expect(res.body).not.toHaveProperty('rev');
  });

  it('answers with answeredBy and wakes a waiter', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-answer'));
    const waiting = api.get(`/v1/asks/${ask.id}?wait=10`);
    await new Promise((r) => setTimeout(r, 100));
    const answered = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['production'] }, by: 'ops-alice' });
    expect(answered.status).toBe(200);
    const waited = await waiting;
    expect(waited.body.status).toBe('answered');
    expect(waited.body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { channel: 'api', userId: 'ops-alice' },
    });
    expect(Date.parse(waited.body.result.answeredAt)).toBeGreaterThan(0);
  });

  it('POST ?wait returns the result in the same call', async () => {
    const posting = api.post('/v1/asks?wait=10', askBody('run-post-wait'));
    const id = await eventually(async () => (await api.get('/v1/runs/run-post-wait')).body.current?.id);
    await api.post(`/v1/asks/${id}/answer`, { skip: true });
    const res = await posting;
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });

  it('POST ?wait wakes on an answer given the instant the ask exists, and an Idempotency-Key replay waits on the stored ask', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}` };
    const started = Date.now();
    const first = api.post('/v1/asks?wait=20', askBody('run-post-wait-race'), headers);
    const id = await eventually(async () => (await api.get('/v1/runs/run-post-wait-race')).body.current?.id);
    const replay = api.post('/v1/asks?wait=20', askBody('run-post-wait-race'), headers);
    await api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] } });
    const [a, b] = await Promise.all([first, replay]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect([a.status, b.status]).toEqual([201, 200]);
    for (const res of [a, b])
      expect(res.body).toMatchObject({ id, status: 'answered', result: { answers: { env: ['Staging'] } } });
  });

  it('accepts free text for a question', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-free'));
    const res = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['the canary cluster'] } });
    expect(res.body.result.answers).toEqual({ env: ['the canary cluster'] });
  });
});

describe('exactly one terminal transition', () => {
  it('20 concurrent answers: one wins, the rest get already_resolved, one result event', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-race'));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: [i % 2 ? 'Staging' : 'Production'] }, by: `u${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const losers = results.filter((r) => r.status === 409);
    expect(losers).toHaveLength(19);
    for (const r of losers) expect(r.body.error.code).toBe('already_resolved');
    const winner = results.find((r) => r.status === 200)!;
    const final = await api.get(`/v1/asks/${ask.id}`);
    expect(final.body.result).toEqual(winner.body.result);
    await eventually(async () => eventsFor(ask.id) >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(eventsFor(ask.id)).toBe(1);
  });

  it('an answer racing the timeout ends in exactly one terminal state', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { body: ask } = await api.post('/v1/asks', askBody(`run-boundary-${i}`, { timeoutSeconds: 1 }));
      const deadline = Date.parse(ask.expiresAt);
      await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now() - 20 + i * 15)));
      const res = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
      const final = await eventually(async () => {
        const r = await api.get(`/v1/asks/${ask.id}`);
        return r.body.status !== 'pending' && r.body;
      });
      if (res.status === 200) expect(final.result.status).toBe('answered');
      else {
        expect(res.status).toBe(409);
        expect(final.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
      }
      await new Promise((r) => setTimeout(r, 150));
      expect(eventsFor(ask.id)).toBe(1);
      outcomes.push(final.status);
    }
    expect(outcomes).toHaveLength(4);
  });
});

describe('timeouts', () => {
  it('times out through the BullMQ job with the bounds lowered to 1 s', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-timeout', { timeoutSeconds: 1 }));
    const res = await api.get(`/v1/asks/${ask.id}?wait=5`);
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    // The job fires within a few ms at hz 100; well before deadline + grace (300 ms) when the reconciler would act.
    expect(Date.parse(res.body.result.at) - Date.parse(ask.expiresAt)).toBeLessThan(300);
  });

  it('queues the job ahead of the deadline (ASKGATE_STEP_LEAD_MS) and still never times out early', async () => {
    const prefix = `{${env.ASKGATE_KEY_PREFIX}}:askgate-timeouts`;
    const seen = new Redis(redis.url);
    try {
      const asks = await Promise.all(
        [1, 2, 3].map(async (s) => (await api.post('/v1/asks', askBody(`run-lead-${s}`, { timeoutSeconds: s }))).body),
      );
      // The 1-3 s deadlines are within the 2 s lead: each job is due at once and its step held in memory.
      await eventually(async () => (await seen.exists(...asks.map((a) => `${prefix}:timeout-${a.id}`))) === 0);
      for (const ask of asks) {
        const res = await api.get(`/v1/asks/${ask.id}?wait=6`);
        expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
        expect(Date.parse(res.body.result.at)).toBeGreaterThanOrEqual(Date.parse(ask.expiresAt));
      }
      await eventually(async () => asks.every((a) => eventsFor(a.id) === 1));
      expect(asks.map((a) => eventsFor(a.id))).toEqual([1, 1, 1]);
    } finally {
      seen.disconnect();
    }
  });

  it('a held timeout commits on the record it read early, and a change made meanwhile wins over that record', async () => {
    const store = app.store;
    const get = store.get.bind(store);
    const reads = new Map<string, number>();
    store.get = async (id) => {
      reads.set(id, (reads.get(id) ?? 0) + 1);
      return get(id);
    };
    try {
      const { body: ask } = await api.post('/v1/asks', askBody('run-held-read', { timeoutSeconds: 2 }));
      await eventually(async () => eventsFor(ask.id) === 1, 6000);
      // One read when the job came early; at the deadline the timeout commits on that record.
      expect(reads.get(ask.id)).toBe(1);
      const { body: ended } = await api.get(`/v1/asks/${ask.id}`);
      expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
      expect(Date.parse(ended.result.at)).toBeGreaterThanOrEqual(Date.parse(ask.expiresAt));
    } finally {
      store.get = get;
    }

    // A record read before an answer (as by a process that held the step while another took the
    // answer): its compare-and-set fails, the fresh read finds the answer, and the answer stands.
    const { body: other } = await api.post('/v1/asks', askBody('run-held-stale'));
    const before = (await app.store.get(other.id))!;
    await api.post(`/v1/asks/${other.id}/answer`, { answers: { env: ['production'] }, by: 'ops-alice' });
    const stale = { ...before, expiresAt: new Date(Date.now() - 1000).toISOString() };
    await expect(app.gateway.expire(other.id, stale)).resolves.toBeUndefined();
    const { body: after } = await api.get(`/v1/asks/${other.id}`);
    expect(after.result).toMatchObject({ status: 'answered' });
    expect(eventsFor(other.id)).toBe(1);
  });

  it('clamps timeouts into the configured bounds', async () => {
    const { body: long } = await api.post('/v1/asks', askBody('run-clamp-hi', { timeoutSeconds: 100_000 }));
    expect(long.timeoutSeconds).toBe(3600);
    const { body: short } = await api.post('/v1/asks', askBody('run-clamp-lo', { timeoutSeconds: 1 }));
    expect(short.timeoutSeconds).toBe(1);
  });
});

describe('supersede, cancel and abort', () => {
  it('a new ask on the same run supersedes the old one', async () => {
    const { body: first } = await api.post('/v1/asks', askBody('run-sup'));
    const { body: second } = await api.post('/v1/asks', askBody('run-sup'));
    expect(second.version).toBe(2);
    const old = await api.get(`/v1/asks/${first.id}`);
    expect(old.body.result).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    const late = await api.post(`/v1/asks/${first.id}/answer`, { answers: { env: ['Staging'] } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('already_resolved');
    const run = await api.get('/v1/runs/run-sup');
    expect(run.body.current.id).toBe(second.id);
    expect(run.body.history.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
  });

  it('cancel ends cancelled and rejects answers afterwards', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-cancel'));
    const res = await api.post(`/v1/asks/${ask.id}/cancel`);
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    expect((await api.post(`/v1/asks/${ask.id}/answer`, { skip: true })).status).toBe(409);
    expect((await api.post(`/v1/asks/${ask.id}/cancel`)).status).toBe(409);
  });

  it('DELETE /v1/runs/:runId cancels the pending ask', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('run-abort'));
    const res = await api.del('/v1/runs/run-abort');
    expect(res.status).toBe(200);
    expect(res.body.cancelled.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
    expect((await api.post(`/v1/asks/${ask.id}/answer`, { skip: true })).status).toBe(409);
    expect((await api.del('/v1/runs/run-abort')).body.cancelled).toBeNull();
    expect((await api.del('/v1/runs/never-seen')).status).toBe(404);
  });
});

describe('idempotency', () => {
  it('10 concurrent requests with one Idempotency-Key make one record', async () => {
    const headers = { 'idempotency-key': 'idem-key-1' };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.post('/v1/asks', askBody('run-idem'), headers)),
    );
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    const run = await api.get('/v1/runs/run-idem');
    expect(run.body.history).toHaveLength(1);
    expect(run.body.current.version).toBe(1);
  });

  it('another body with the same key is a 409', async () => {
    const headers = { 'idempotency-key': 'idem-key-2' };
    expect((await api.post('/v1/asks', askBody('run-idem-2'), headers)).status).toBe(201);
    const other = await api.post('/v1/asks', askBody('run-idem-2', { timeoutSeconds: 60 }), headers);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });
});

describe('bad input', () => {
  it.each([
    ['missing runId', { questions: askBody('x').questions }, 'runId'],
    ['bad runId', askBody('has space'), 'runId'],
    ['no questions', { runId: 'r', questions: [] }, 'questions'],
    ['four questions', { runId: 'r', questions: Array(4).fill(askBody('x').questions[0]) }, 'questions'],
    ['one option', { runId: 'r', questions: [{ question: 'Q?', options: [{ label: 'A' }] }] }, 'questions.0.options'],
    [
      'five options',
      { runId: 'r', questions: [{ question: 'Q?', options: ['a', 'b', 'c', 'd', 'e'].map((label) => ({ label })) }] },
      'questions.0.options',
    ],
    [
      'duplicate labels',
      { runId: 'r', questions: [{ question: 'Q?', options: [{ label: 'Yes' }, { label: 'yes' }] }] },
      'questions.0.options.1.label',
    ],
    [
      'authored Other',
      { runId: 'r', questions: [{ question: 'Q?', options: [{ label: 'A' }, { label: 'Other' }] }] },
      'questions.0.options.1.label',
    ],
    ['fractional timeout', askBody('r', { timeoutSeconds: 1.5 }), 'timeoutSeconds'],
    ['string timeout', askBody('r', { timeoutSeconds: '60' }), 'timeoutSeconds'],
    ['unknown field', askBody('r', { colour: 'red' }), ''],
    ['unknown channel', askBody('r', { to: { channel: 'pigeon', chat: '1' } }), 'to.channel'],
    [
      'bad question id',
      { runId: 'r', questions: [{ id: 'Bad-Id', question: 'Q?', options: [{ label: 'A' }, { label: 'B' }] }] },
      'questions.0.id',
    ],
  ])('%s → 400 naming the path', async (_name, body, path) => {
    const res = await api.post('/v1/asks', body);
    expect(res.status).toBe(400);
    expect(['invalid_request', 'channel_not_enabled']).toContain(res.body.error.code);
    const paths = (res.body.error.issues ?? []).map((i: { path: unknown[] }) => i.path.join('.'));
    expect(paths).toContain(path);
  });

  it('rejects non-JSON and oversized bodies', async () => {
    const bad = await api.call('POST', '/v1/asks', '{"runId":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const huge = askBody('r-huge', {
      questions: [{ question: 'x'.repeat(100_000), options: [{ label: 'A' }, { label: 'B' }] }],
    });
    const res = await api.post('/v1/asks', huge);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('rejects bad answers naming the path, and keeps the ask pending', async () => {
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'r-bad-answer',
      questions: [
        ...askBody('x').questions,
        { id: 'region', question: 'Region?', options: [{ label: 'eu' }, { label: 'us' }] },
      ],
    });
    const cases: [unknown, string][] = [
      [{ answers: { env: ['Staging'] } }, 'answers.region'],
      [{ answers: { env: ['Staging', 'Production'], region: ['eu'] } }, 'answers.env'],
      [{ answers: { env: ['Staging'], region: ['eu'], nope: ['x'] } }, 'answers.nope'],
      [{ answers: { env: [''], region: ['eu'] } }, 'answers.env.0'],
      [{ skip: false }, 'skip'],
    ];
    for (const [body, path] of cases) {
      const res = await api.post(`/v1/asks/${ask.id}/answer`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.issues.map((i: { path: unknown[] }) => i.path.join('.'))).toContain(path);
    }
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
  });

  it('404 for unknown asks and runs, 400 for a bad wait', async () => {
    expect((await api.get('/v1/asks/AAAAAAAAAAAAAA')).status).toBe(404);
    expect((await api.get('/v1/asks/not-an-id')).status).toBe(404);
    expect((await api.get('/v1/runs/nobody')).status).toBe(404);
    const { body: ask } = await api.post('/v1/asks', askBody('r-wait'));
    expect((await api.get(`/v1/asks/${ask.id}?wait=abc`)).status).toBe(400);
  });
});

describe('operations endpoints', () => {
  it('serves healthz, readyz and Prometheus metrics', async () => {
    expect((await api.get('/healthz')).status).toBe(200);
    expect((await api.get('/readyz')).body).toEqual({ ok: true });
    const metrics = await api.get('/metrics');
    expect(metrics.body).toMatch(/askgate_asks_created_total\{channel="none"\} \d+/);
    expect(metrics.body).toMatch(/askgate_asks_resolved_total\{status="answered",reason=""\} \d+/);
    expect(metrics.body).toMatch(/askgate_asks_resolved_total\{status="no_answer",reason="timeout"\} \d+/);
    expect(metrics.body).toMatch(/askgate_time_to_answer_seconds_count [1-9]/);
  });
});

describe('shutdown', () => {
  it('ends open long polls at once with the pending record instead of waiting them out', async () => {
    const other = await startTestApp(testEnv({ REDIS_URL: redis.url }));
    const api2 = client(other.url);
    const { body: ask } = await api2.post('/v1/asks', askBody('shutdown-wait'));
    const waiting = api2.get(`/v1/asks/${ask.id}?wait=60`);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await other.close();
    const res = await waiting;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
  });
});

describe('listening', () => {
  it('holds a burst of agents connecting at once: the listen backlog is above the 511 Node sets by default', () => {
    const port = new URL(app.url).port;
    // For a listening socket, ss shows the backlog as Send-Q.
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const backlog = Number(line.split(/\s+/)[2]);
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(backlog).toBe(Math.min(LISTEN_BACKLOG, somaxconn));
    expect(backlog).toBeGreaterThan(511);
  });
});
