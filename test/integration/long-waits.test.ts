import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { AskgateApiError, AskgateClient } from '../../src/client/index.js';
import { BullStepScheduler, STEP_QUEUE } from '../../src/queue/bull-steps.js';
import { silentLogger } from '../helpers/logs.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { redisForFile } from '../helpers/redis-file.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { sleep, until } from '../helpers/wait.js';

// Asks that wait for days (issue 40, part 1): a way back lifts the wait to
// ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS; POST /v1/asks/:id/extend moves a pending ask's deadline.
// Time is compressed two ways: the short maximum is 2 s and the extension floor 1 s (config), and
// the clock askgate reads jumps ahead by days (BullMQ's delays run on real time, so the timeout
// job of a 7-day ask is only ever reached by moving the deadline near the jumped clock).

const TOKEN = 'long-waits-token-0123456789';
const DAY_S = 86_400;
const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
const shared = redisForFile();

let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: RecordingChannel;
let redis: Redis;
let prefix: string;
/** How far askgate's clock is ahead of the real one, in ms. */
let offset = 0;
const clock = { now: () => Date.now() + offset };

beforeAll(async () => {
  const env = testEnv({
    ASKGATE_API_TOKEN: TOKEN,
    REDIS_URL: shared.redis.url,
    ASKGATE_TIMEOUT_MAX_SECONDS: '2',
    ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS: String(30 * DAY_S),
    ASKGATE_EXTEND_MIN_SECONDS: '1',
  });
  prefix = env.ASKGATE_KEY_PREFIX!;
  chat = new RecordingChannel('test');
  app = await startTestApp(env, [chat], { clock });
  api = client(app.url, TOKEN);
  redis = new Redis(shared.redis.url);
});
afterAll(async () => {
  await app?.close();
  redis?.disconnect();
});

const issuesOf = (body: { error: { issues?: { path: (string | number)[]; message: string }[] } }) =>
  (body.error.issues ?? []).map((i) => ({ path: i.path, message: i.message }));

describe('long timeouts with a way back', () => {
  it('async: true keeps a 7-day timeout; without a way back it is clamped to the short maximum, visibly', async () => {
    const long = await api.post('/v1/asks', askBody('lw-async', { timeoutSeconds: 7 * DAY_S, async: true }));
    expect(long.status).toBe(201);
    expect(long.body).toMatchObject({ timeoutSeconds: 7 * DAY_S, async: true });
    expect(Date.parse(long.body.expiresAt) - Date.parse(long.body.createdAt)).toBe(7 * DAY_S * 1000);
    // The record lives until its deadline plus the retention: its TTL follows the 7 days.
    // (The queue's keys, `{prefix}:…`, are BullMQ's: its delayed job has no TTL.)
    const keys = (await redis.keys(`*${long.body.id}*`)).filter((k) => !k.startsWith('{'));
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(7 * DAY_S * 1000);

    const short = await api.post('/v1/asks', askBody('lw-short', { timeoutSeconds: 7 * DAY_S }));
    expect(short.status).toBe(201);
    expect(short.body.timeoutSeconds).toBe(2);
    expect(short.body).not.toHaveProperty('async');
  });

  it('expiresAt: kept exactly; refused naming expiresAt when past, too far without a way back, or beside timeoutSeconds', async () => {
    const at = new Date(clock.now() + 3 * DAY_S * 1000).toISOString();
    const made = await api.post('/v1/asks', askBody('lw-at', { expiresAt: at, async: true }));
    expect(made.status).toBe(201);
    expect(made.body.expiresAt).toBe(at);

    const past = await api.post('/v1/asks', askBody('lw-past', { expiresAt: '2020-01-01T00:00:00Z', async: true }));
    expect(past.status).toBe(400);
    expect(issuesOf(past.body)).toEqual([{ path: ['expiresAt'], message: 'is in the past' }]);
    const far = await api.post('/v1/asks', askBody('lw-far', { expiresAt: at }));
    expect(far.status).toBe(400);
    expect(issuesOf(far.body)[0]).toMatchObject({
      path: ['expiresAt'],
      message: expect.stringMatching(/^must be at most 2 s from now: an ask without a way back/),
    });
    const both = await api.post('/v1/asks', askBody('lw-both', { expiresAt: at, timeoutSeconds: 60 }));
    expect(both.status).toBe(400);
    expect(issuesOf(both.body)).toEqual([
      { path: ['expiresAt'], message: 'give timeoutSeconds or expiresAt, not both' },
    ]);
    const beyond = await api.post(
      '/v1/asks',
      askBody('lw-beyond', { async: true, expiresAt: new Date(clock.now() + 31 * DAY_S * 1000).toISOString() }),
    );
    expect(issuesOf(beyond.body)).toEqual([
      { path: ['expiresAt'], message: `must be at most ${30 * DAY_S} s from now` },
    ]);
  });

  it('a callbackUrl is a way back too (refused here only because webhooks are not configured)', async () => {
    const r = await api.post(
      '/v1/asks',
      askBody('lw-hook', { timeoutSeconds: 7 * DAY_S, callbackUrl: 'https://agent.example/hook' }),
    );
    expect(r.status).toBe(400);
    expect(issuesOf(r.body)[0]!.path).toEqual(['callbackUrl']);
  });
});

describe('extend', () => {
  it('a 7-day async ask, extended near its end: the old deadline passes without a timeout, the new one ends it once', async () => {
    const made = await api.post(
      '/v1/asks',
      askBody('lw-extend', { timeoutSeconds: 7 * DAY_S, async: true, to: { channel: 'test', chat: 'c1' } }),
    );
    expect(made.status).toBe(201);
    const id: string = made.body.id;
    await until(() => chat.delivered.find((d) => d.askId === id));
    const oldDeadline = Date.parse(made.body.expiresAt);

    // Days later: 2 s before the deadline, someone moves it 4 s further.
    offset = oldDeadline - 2000 - Date.now();
    const extended = await api.post(`/v1/asks/${id}/extend`, { timeoutSeconds: 6, by: 'ops-lead' });
    expect(extended.status).toBe(200);
    const newDeadline = Date.parse(extended.body.expiresAt);
    expect(newDeadline).toBeGreaterThanOrEqual(oldDeadline + 3000);
    expect(extended.body).toMatchObject({ status: 'pending', extended: 1, timeoutSeconds: 7 * DAY_S });
    // The timeout job moved with it (one job, due a step lead before the new deadline).
    const queue = new Queue(STEP_QUEUE, { connection: redis, prefix: `{${prefix}}` });
    const job = await queue.getJob(`timeout-${id}`);
    expect(job).toBeTruthy();
    expect(job!.timestamp + job!.delay).toBeLessThan(Date.now() + 6000);
    await queue.close();
    // The message was re-rendered, for the deadline it may show.
    await until(() => chat.refreshed.length > 0 || undefined);

    // The old deadline and its grace (the reconciler's look at it) pass: still pending.
    await sleep(Math.max(0, oldDeadline + 1500 - clock.now()));
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');

    const ended = await api.get(`/v1/asks/${id}?wait=10`);
    expect(ended.body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    expect(Date.parse(ended.body.result.at)).toBeGreaterThanOrEqual(newDeadline);
    await sleep(1500);
    const history = (await api.get(`/v1/runs/lw-extend`)).body;
    expect(history.current.status).toBe('no_answer');
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === 'no_answer')).toHaveLength(1);
    expect(events.find((e) => e.type === 'extended')).toMatchObject({
      channel: 'api',
      userId: 'ops-lead',
      from: new Date(oldDeadline).toISOString(),
      to: new Date(newDeadline).toISOString(),
    });
    offset = 0;
  }, 30_000);

  it('refuses: an ended ask (409 not_pending), an unknown one (404), a bad body or range (400 naming the field)', async () => {
    const made = await api.post('/v1/asks', askBody('lw-ended', { timeoutSeconds: 2 }));
    await api.post(`/v1/asks/${made.body.id}/answer`, { answers: { env: ['Staging'] } });
    const late = await api.post(`/v1/asks/${made.body.id}/extend`, { timeoutSeconds: 2 });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('not_pending');
    expect((await api.post('/v1/asks/AbCdEfGhIjKlMnOpQrStUv/extend', { timeoutSeconds: 2 })).status).toBe(404);

    const open = await api.post('/v1/asks', askBody('lw-open', { timeoutSeconds: 2 }));
    const path = `/v1/asks/${open.body.id}/extend`;
    const cases: [object, (string | number)[], RegExp][] = [
      [{}, ['timeoutSeconds'], /one of them/],
      [{ timeoutSeconds: 1.5 }, ['timeoutSeconds'], /whole number/],
      [{ timeoutSeconds: 3 }, ['timeoutSeconds'], /^must be at most 2 s: an ask without a way back/],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, ['expiresAt'], /in the past/],
      [{ expiresAt: 'tomorrow' }, ['expiresAt'], /ISO 8601/],
      [{ timeoutSeconds: 2, by: 'x'.repeat(200) }, ['by'], /./],
    ];
    for (const [body, field, message] of cases) {
      const r = await api.post(path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(issuesOf(r.body)).toContainEqual({ path: field, message: expect.stringMatching(message) });
    }
  });

  it('the SDK: client.extend, and not_pending as an AskgateApiError', async () => {
    const sdk = new AskgateClient({ url: app.url, token: TOKEN });
    const ask = await sdk.create({ ...askBody('lw-sdk'), async: true, timeoutSeconds: 600 } as never);
    // The run's event stream (SSE) carries the extension as it happens.
    const abort = new AbortController();
    const stream = sdk.streamRunEvents('lw-sdk', { signal: abort.signal });
    const seen = (async () => {
      for await (const event of stream) if (event.type === 'extended') return event;
    })();
    await sleep(300);
    const moved = await sdk.extend(ask.id, { timeoutSeconds: 2 * DAY_S, by: 'alice' });
    expect(await seen).toMatchObject({ type: 'extended', askId: ask.id, userId: 'alice', to: moved.expiresAt });
    abort.abort();
    expect(Date.parse(moved.expiresAt) - clock.now()).toBeGreaterThan(2 * DAY_S * 1000 - 5000);
    await sdk.cancel(ask.id);
    const error = await sdk.extend(ask.id, { timeoutSeconds: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AskgateApiError);
    expect((error as AskgateApiError).code).toBe('not_pending');
  });

  it('the CLI, as a user runs it: ask --async --timeout, extend --timeout/--until, and its refusals', async () => {
    const env = { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN };
    const cli = (...args: string[]) =>
      exec(process.execPath, ['bin/askgate.js', ...args], { cwd: ROOT, env }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const q = ['--question', 'Go?', '--option', 'Yes', '--option', 'No'];
    const made = await cli('ask', '--run', 'lw-cli', ...q, '--async', '--timeout', String(7 * DAY_S));
    expect(made.code).toBe(0);
    const ask = JSON.parse(made.stdout) as { id: string; timeoutSeconds: number; async: boolean };
    expect(ask).toMatchObject({ timeoutSeconds: 7 * DAY_S, async: true });

    const until = new Date(clock.now() + 10 * DAY_S * 1000).toISOString();
    const moved = await cli('extend', ask.id, '--until', until, '--by', 'alice');
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ id: ask.id, expiresAt: until, extended: 1 });
    const again = await cli('extend', ask.id, '--timeout', '86400');
    expect(JSON.parse(again.stdout).extended).toBe(2);

    expect((await cli('extend', ask.id, '--until', 'tomorrow')).code).toBe(2);
    expect((await cli('extend', ask.id)).code).toBe(2);
    expect((await cli('ask', '--run', 'lw-cli2', ...q, '--async', '--wait')).code).toBe(2);
    const refused = await cli('extend', ask.id, '--timeout', String(31 * DAY_S));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/timeoutSeconds/);

    await api.post(`/v1/asks/${ask.id}/cancel`);
    const ended = await cli('extend', ask.id, '--timeout', '600');
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/not_pending/);
  }, 60_000);
});

describe('working hours on a target', () => {
  it('a reminder due on a Saturday is scheduled for Monday’s opening; the timeout keeps its time', async () => {
    // Next Saturday, 12:00 UTC, on askgate's clock.
    const day = new Date();
    day.setUTCDate(day.getUTCDate() + ((6 - day.getUTCDay() + 7) % 7 || 7));
    day.setUTCHours(12, 0, 0, 0);
    offset = day.getTime() - Date.now();
    try {
      const hours = { days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'UTC' };
      const made = await api.post(
        '/v1/asks',
        askBody('lw-hours', {
          async: true,
          timeoutSeconds: 7 * DAY_S,
          remindAfterSeconds: [60],
          to: { channel: 'test', chat: 'c-hours', hours },
        }),
      );
      expect(made.status).toBe(201);
      expect(made.body.targets[0].hours).toEqual(hours);
      const monday = day.getTime() + 2 * DAY_S * 1000 - 3 * 3600_000; // Monday 09:00 UTC
      const queue = new Queue(STEP_QUEUE, { connection: redis, prefix: `{${prefix}}` });
      const jobDue = async (step: string) => {
        const job = await queue.getJob(`${step}-${made.body.id}`);
        return job!.timestamp + job!.delay + offset; // on askgate's clock
      };
      // Queued a step lead (2 s) ahead of their times.
      expect(Math.abs((await jobDue('remind-1')) - (monday - 2000))).toBeLessThan(1500);
      expect(Math.abs((await jobDue('timeout')) - (Date.parse(made.body.expiresAt) - 2000))).toBeLessThan(1500);
      await queue.close();
      const bad = await api.post(
        '/v1/asks',
        askBody('lw-hours-bad', { to: { channel: 'test', chat: 'c', hours: { ...hours, from: '9am' } } }),
      );
      expect(issuesOf(bad.body)[0]!.path).toEqual(['to', 'hours', 'from']);
    } finally {
      offset = 0;
    }
  });
});

describe('a step job that comes early for a step days away', () => {
  it('goes back to the queue, due a lead before the step, instead of being held in memory for days', async () => {
    const qPrefix = `{lw-far-${Date.now()}}`;
    const steps = new BullStepScheduler({
      connect: shared.connect,
      prefix: qPrefix,
      leadMs: 2000,
      logger: silentLogger,
    });
    const calls: number[] = [];
    const far = Date.now() + 3 * DAY_S * 1000;
    try {
      // The handler of a step whose deadline moved 3 days later (its job was not moved with it).
      await steps.start({ timeout: async () => (calls.push(Date.now()), { notBefore: far }) });
      await steps.schedule('askFar1', 'timeout', Date.now() + 2100);
      await until(() => calls.length > 0 || undefined);
      const queue = new Queue(STEP_QUEUE, { connection: redis, prefix: qPrefix });
      const job = await eventually(async () => {
        const found = await queue.getJob('timeout-askFar1');
        return found && (await found.getState()) === 'delayed' && found.delay > 60_000 ? found : undefined;
      });
      await queue.close();
      // Due 2 s (the lead) before the step, as when it was first added; not at the step + a lead.
      expect(Math.abs(job.timestamp + job.delay - (far - 2000))).toBeLessThan(1500);
      await sleep(500);
      expect(calls).toHaveLength(1);
    } finally {
      await steps.close();
    }
  });
});

/** The ask's history entries, as stored. */
async function eventsOf(id: string): Promise<{ type: string; [k: string]: unknown }[]> {
  return (await app.store.get(id))?.history ?? [];
}
