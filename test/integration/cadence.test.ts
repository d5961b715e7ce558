import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import type { Channel } from '../../src/core/ports.js';
import { STEP_QUEUE } from '../../src/queue/bull-steps.js';
import { cadenceTimes } from '../../src/core/cadence.js';
import { WorkingHoursSchema } from '../../src/core/working-hours.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { sleep } from '../helpers/wait.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { channelFor, memoryLogger, newUser } from '../channels/telegram-world.js';

// Reminders as a cadence (issue 40, part 1), end to end on a real redis-server: a 7-day ask with a
// daily reminder in Lisbon's working hours, extended, across a restart, on the test channel and on
// Telegram's fake. Time is compressed: askgate reads a clock the test moves (days at a jump), and
// since BullMQ's delays run on real time, the test promotes the one cadence job there is once the
// clock reaches its time: the promoted job is exactly what the queue would run then.

const DAY_S = 86_400;
const hours = { days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' };
const created = Date.parse('2030-01-07T20:00:00Z'); // a Monday evening, after hours (Lisbon is UTC in winter)
const extendedTo = Date.parse('2030-01-17T20:00:00Z'); // Thursday

/** A channel under test: how to build it (per app, so a restart gets a fresh one) and what it shows. */
interface World {
  name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  channel(): Channel;
  target(): Record<string, unknown>;
  /** The reminders posted under the ask's question, as texts, in order. */
  reminders(askId: string): Promise<string[]>;
}

function recordingWorld(): World {
  const chat = new RecordingChannel('test');
  return {
    name: 'the test channel',
    setUp: async () => {},
    tearDown: async () => {},
    channel: () => chat,
    target: () => ({ channel: 'test', chat: 'cadence-chat', hours }),
    // One ask gets reminders here: every one posted is its.
    reminders: async () => chat.reminded.map((r) => r.text),
  };
}

function telegramWorld(): World {
  let fake: FakeTelegramApi;
  let chatId = '';
  const logger = memoryLogger();
  return {
    name: 'Telegram’s fake',
    setUp: async () => {
      fake = await FakeTelegramApi.start();
      chatId = String(newUser(fake, 'Rita', 'rita_cadence').id);
    },
    tearDown: async () => fake?.close(),
    channel: () => channelFor(fake, logger),
    target: () => ({ channel: 'telegram', chat: chatId, hours }),
    reminders: async () => {
      const bot = fake.chatMessages(chatId).filter((m) => m.from.is_bot);
      const question = bot[0]!;
      return bot.filter((m) => m.reply_to === question.message_id).map((m) => m.text);
    },
  };
}

describe.each([recordingWorld(), telegramWorld()])('a daily reminder over a week on $name', (world) => {
  let redis: TestRedis;
  let conn: Redis;
  let app: RunningAskgate;
  let env: Record<string, string>;
  let queue: Queue;
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const start = async () => {
    app = await startTestApp(env, [world.channel()], { clock });
  };

  beforeAll(async () => {
    redis = await startRedis();
    await world.setUp();
    env = testEnv({ REDIS_URL: redis.url });
    conn = new Redis(redis.url);
    queue = new Queue(STEP_QUEUE, { connection: conn, prefix: `{${env.ASKGATE_KEY_PREFIX!}}` });
    offset = created - Date.now();
    await start();
  });
  afterAll(async () => {
    await app?.close();
    await queue?.close();
    conn?.disconnect();
    await world.tearDown();
    await redis?.dispose();
  });

  /** The ask's delayed step jobs, by step name, and when each is due on askgate's clock. */
  const stepJobs = async (askId: string) => {
    const jobs = await queue.getDelayed();
    return new Map(jobs.filter((j) => j.id!.endsWith(`-${askId}`)).map((j) => [j.name, j.timestamp + j.delay]));
  };
  /** Moves askgate's clock to `at` (a little past) and runs `step`'s job, as the queue would then. */
  const runAt = async (askId: string, step: string, at: number) => {
    offset = at + 100 - Date.now();
    const job = await queue.getJob(`${step}-${askId}`);
    expect(job, `${step} has a job`).toBeTruthy();
    await job!.promote();
  };
  const api = () => client(app.url);

  // Reminders' texts are checked for the deadline they show: after the extension, Thursday's.
  it('posts each reminder once, in hours, re-planned by an extension, across a restart; the timeout fires once', async () => {
    const made = await api().post(
      '/v1/asks',
      askBody('cadence-run', { async: true, timeoutSeconds: 7 * DAY_S, remindEverySeconds: DAY_S, to: world.target() }),
    );
    expect(made.status).toBe(201);
    const id: string = made.body.id;
    // Wednesday, Thursday, Friday 09:00 (Tuesday 20:00 is after hours), then Monday 09:00 (not
    // Saturday nor Sunday): the fifth (Tuesday) is past the deadline.
    const lisbon = [{ hours: WorkingHoursSchema.parse(hours) }];
    const plan = cadenceTimes(lisbon, created, DAY_S, 6);
    expect(plan.slice(0, 5).map((t) => new Date(t).toISOString())).toEqual([
      '2030-01-09T09:00:00.000Z',
      '2030-01-10T09:00:00.000Z',
      '2030-01-11T09:00:00.000Z',
      '2030-01-14T09:00:00.000Z',
      '2030-01-15T09:00:00.000Z',
    ]);

    // Only the next cadence reminder has a job (beside the timeout), due a step lead before its time.
    // (The commit's effects run just after it: the job may take a moment to appear.)
    const expectJobs = async (next: string | null, at?: number) => {
      const want = next ? [next, 'timeout'].sort() : ['timeout'];
      const jobs = await eventually(async () => {
        const found = await stepJobs(id);
        return JSON.stringify([...found.keys()].sort()) === JSON.stringify(want) ? found : undefined;
      }, 3000).catch(() => stepJobs(id));
      expect([...jobs.keys()].sort()).toEqual(want);
      if (next) expect(Math.abs(jobs.get(next)! + offset - (at! - 2000))).toBeLessThan(1500);
    };
    await expectJobs('remind-1', plan[0]);

    for (let n = 1; n <= 4; n++) {
      if (n === 4) {
        // Saturday noon: the job run then (a reminder due outside the hours) waits for Monday.
        await runAt(id, 'remind-4', Date.parse('2030-01-12T12:00:00Z'));
        await sleep(700);
        expect(await world.reminders(id)).toHaveLength(3);
        await expectJobs('remind-4', plan[3]);
      }
      await runAt(id, `remind-${n}`, plan[n - 1]!);
      await eventually(async () => ((await world.reminders(id)).length === n ? true : undefined), 8000);
      if (n < 4) await expectJobs(`remind-${n + 1}`, plan[n]);
      if (n === 3) {
        // A re-fired or duplicated job of a reminder already sent (same id, run again) changes nothing.
        await queue.add('remind-3', {}, { jobId: `remind-3-${id}` });
        // Run and completed (a completed step job is removed).
        await eventually(async () => (await queue.getJob(`remind-3-${id}`)) === undefined, 5000);
        await sleep(300);
        expect(await world.reminders(id)).toHaveLength(3);
        await expectJobs('remind-4', plan[3]);
      }
      if (n === 2) {
        // Stopped and started on the same Redis in the middle: nothing lost, nothing doubled.
        await app.close();
        await start();
        await sleep(500);
        expect(await world.reminders(id)).toHaveLength(2);
        await expectJobs('remind-3', plan[2]);
      }
    }
    // The fifth would fall after the deadline: the cadence stops, only the timeout is left.
    await sleep(300);
    await expectJobs(null);
    expect((await api().get(`/v1/asks/${id}`)).body.reminded).toBe(4);

    // Monday noon: someone extends to Thursday 20:00; the cadence resumes with the fifth (Tuesday).
    offset = Date.parse('2030-01-14T12:00:00Z') - Date.now();
    const moved = await api().post(`/v1/asks/${id}/extend`, {
      expiresAt: new Date(extendedTo).toISOString(),
      by: 'ops',
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ reminded: 4, extended: 1, expiresAt: new Date(extendedTo).toISOString() });
    await expectJobs('remind-5', plan[4]);
    const resumed = cadenceTimes(lisbon, plan[3]!, DAY_S, 4);
    for (let n = 5; n <= 7; n++) {
      await runAt(id, `remind-${n}`, resumed[n - 5]!);
      await eventually(async () => ((await world.reminders(id)).length === n ? true : undefined), 8000);
    }
    // Friday 09:00 is past Thursday 20:00: no eighth.
    await sleep(300);
    await expectJobs(null);

    // The new deadline: the timeout fires once, and nothing is left in the queue.
    await runAt(id, 'timeout', extendedTo);
    const ended = await eventually(async () => {
      const r = await api().get(`/v1/asks/${id}`);
      return r.body.status !== 'pending' ? r.body : undefined;
    }, 8000);
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    await sleep(500);
    const texts = await world.reminders(id);
    expect(texts).toHaveLength(7);
    // Each shows the deadline as it stood: Monday the 14th before the extension, Thursday the 17th
    // after (within a day, the time alone).
    expect(texts.map((t) => /on (\S+) at|It expires at/.exec(t)?.[1] ?? 'today')).toEqual([
      '2030-01-14',
      '2030-01-14',
      '2030-01-14',
      'today',
      '2030-01-17',
      '2030-01-17',
      'today',
    ]);
    expect((await stepJobs(id)).size).toBe(0);
    const history = (await app.store.get(id))!.history;
    expect(history.filter((h) => h.type === 'reminded').map((h) => (h as { detail?: string }).detail)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => `reminder ${n}`),
    );
    expect(history.filter((h) => h.type === 'no_answer')).toHaveLength(1);
    expect(history.filter((h) => h.type === 'extended')).toHaveLength(1);
  });

  it('a cadence whose count up to the deadline exceeds 20 is a 400 naming the field and the numbers', async () => {
    offset = created - Date.now();
    const refused = await api().post(
      '/v1/asks',
      askBody('cadence-many', { async: true, timeoutSeconds: 7 * DAY_S, remindEverySeconds: 3600, to: world.target() }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.issues[0]).toMatchObject({ path: ['remindEverySeconds'] });
    expect(refused.body.error.issues[0].message).toMatch(/more than 20 reminders every 3600 s.*at least 28800 s/);
    const short = await api().post(
      '/v1/asks',
      askBody('cadence-short', { async: true, timeoutSeconds: 7 * DAY_S, remindEverySeconds: 600, to: world.target() }),
    );
    expect(short.body.error.issues[0]).toMatchObject({
      path: ['remindEverySeconds'],
      message: 'must be at least 3600 s',
    });
  });
});
