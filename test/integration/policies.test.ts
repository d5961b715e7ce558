import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { deliveredRef, newUser } from '../channels/telegram-world.js';
import { ChannelError } from '../../src/core/ports.js';
import type { Responder } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.dispose();
});

const person = (channel: string, userId: string): Responder => ({ channel, userId, username: userId });

describe.each(['redis', 'memory'] as const)('ask policies through the HTTP API (%s)', (mode) => {
  let app: RunningAskgate;
  let test: RecordingChannel;
  let other: RecordingChannel;
  /** Used by one test only, so its injected failure hits the call it is meant for. */
  let third: RecordingChannel;
  let api: ReturnType<typeof client>;
  let runs = 0;
  const run = (name: string) => `pol-${name}-${mode}-${++runs}`;

  beforeAll(async () => {
    test = new RecordingChannel('test');
    other = new RecordingChannel('other');
    third = new RecordingChannel('third');
    app = await startTestApp(testEnv({ REDIS_URL: mode === 'redis' ? redis.url : undefined }), [test, other, third]);
    api = client(app.url);
  });

  afterAll(async () => {
    await app?.close();
  });

  /** The ask once every delivery was sent. */
  const allSent = (id: string, count: number) =>
    eventually(async () => {
      const r = await api.get(`/v1/asks/${id}`);
      return r.body.deliveries.length === count && r.body.deliveries.every((d: any) => d.status === 'sent') && r.body;
    });
  /** Taps option `i` of the message delivered for `askId` on `channel`, in `chat`, as `user`. */
  const tap = async (channel: RecordingChannel, askId: string, chat: string, i: number, user: Responder) => {
    const delivered = channel.delivered.find((d) => d.askId === askId && d.target.chat === chat)!;
    return channel.sink!.button({ channel: channel.name, token: delivered.view.buttons![i]!.token, user, chat });
  };

  it('refuses bad policies with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { to: { channel: 'test', chat: 'a' }, timeoutSeconds: 60, remindAfterSeconds: [30, 60] },
        'remindAfterSeconds.1',
      ],
      [
        {
          to: { channel: 'test', chat: 'a' },
          timeoutSeconds: 60,
          escalate: [{ afterSeconds: 90, to: { channel: 'other', chat: 'b' } }],
        },
        'escalate.0.afterSeconds',
      ],
      [
        {
          to: [
            { channel: 'test', chat: 'a' },
            { channel: 'test', chat: 'a' },
          ],
        },
        'to.1',
      ],
      [{ to: { channel: 'test', chat: 'a' }, onTimeout: { default: { env: ['Prod'] } } }, 'onTimeout.default.env.0'],
      [{ to: { channel: 'test', chat: 'a', users: ['u1'] }, agree: 2 }, 'agree'],
    ];
    for (const [extra, path] of cases) {
      const res = await api.post('/v1/asks', askBody(run('bad'), extra));
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.issues.map((i: any) => i.path.join('.'))).toEqual([path]);
    }
    const raw = await fetch(`${app.url}/v1/asks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"runId":"${run('proto')}","questions":[{"question":"Q?","options":[{"label":"A"},{"label":"B"}]}],"onTimeout":{"default":{"__proto__":["A"]}}}`,
    });
    expect(raw.status).toBe(400);
    // A channel that is not enabled, in an escalation step.
    const off = await api.post(
      '/v1/asks',
      askBody(run('off'), {
        to: { channel: 'test', chat: 'a' },
        escalate: [
          {
            afterSeconds: 5,
            to: [
              { channel: 'test', chat: 'b' },
              { channel: 'slack', chat: 'C1' },
            ],
          },
        ],
      }),
    );
    expect(off.status).toBe(400);
    expect(off.body.error).toMatchObject({
      code: 'channel_not_enabled',
      issues: [{ path: ['escalate', 0, 'to', 1, 'channel'] }],
    });
  });

  it('fans out to several channels; the first tap wins and every message is edited once', async () => {
    const to = [
      { channel: 'test', chat: 'fan-1' },
      { channel: 'other', chat: 'fan-2', users: ['bob'] },
    ];
    const { body: ask } = await api.post('/v1/asks', askBody(run('fan'), { to }));
    expect(ask.to).toEqual(to[0]);
    expect(ask.targets).toEqual(to);
    await allSent(ask.id, 2);
    // Not in other's users list; a tap from a chat the ask was never sent to is not found.
    expect((await tap(other, ask.id, 'fan-2', 1, person('other', 'mallory'))).kind).toBe('forbidden');
    const wrongChat = await other.sink!.button({
      channel: 'other',
      token: other.delivered.find((d) => d.askId === ask.id)!.view.buttons![0]!.token,
      user: person('other', 'bob'),
      chat: 'elsewhere',
    });
    expect(wrongChat.kind).toBe('not_found');
    const [a, b] = await Promise.all([
      tap(other, ask.id, 'fan-2', 1, person('other', 'bob')),
      tap(test, ask.id, 'fan-1', 0, person('test', 'alice')),
    ]);
    expect([a.kind, b.kind].sort()).toEqual(['already_resolved', 'recorded']);
    const done = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries.every((d: any) => d.finalized === 'done') && r.body;
    });
    expect(['test', 'other']).toContain(done.result.answeredBy.channel);
    const edits = [...test.finalized, ...other.finalized].filter((f) =>
      done.deliveries.some((d: any) => d.chat === f.ref.chat && d.message.messageId === f.ref.messageId),
    );
    expect(edits).toHaveLength(2);
  });

  it('reminds in each delivered conversation once, tied to the question; escalates to more targets', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('remind'), {
        to: { channel: 'test', chat: 'rem-1' },
        timeoutSeconds: 30,
        remindAfterSeconds: [1],
        escalate: [{ afterSeconds: 2, to: { channel: 'other', chat: 'esc-1' } }],
      }),
    );
    const reminded = await eventually(async () => test.reminded.find((r) => r.ref.chat === 'rem-1'));
    const sent = (await api.get(`/v1/asks/${ask.id}`)).body;
    expect(reminded.ref).toEqual(sent.deliveries[0].message);
    expect(reminded.text).toMatch(/^Reminder/);
    const escalated = await allSent(ask.id, 2);
    expect(escalated).toMatchObject({ reminded: 1, escalated: 1 });
    expect(escalated.deliveries[1]).toMatchObject({ channel: 'other', chat: 'esc-1', step: 1 });
    // The earlier message stays answerable.
    expect((await tap(test, ask.id, 'rem-1', 0, person('test', 'alice'))).kind).toBe('recorded');
    const events = await api.get(`/v1/asks/${ask.id}/events`);
    const types = JSON.stringify(events.body);
    expect(types).toContain('"reminded"');
    expect(types).toContain('"escalated"');
    expect(test.reminded.filter((r) => r.ref.chat === 'rem-1')).toHaveLength(1);
    // The escalation message was sent after the reminder: it gets none.
    expect(other.reminded.filter((r) => r.ref.chat === 'esc-1')).toHaveLength(0);
  });

  it('a reply to the reminder answers; a reminder the platform refuses is noted once, not retried forever', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('reply'), { to: { channel: 'test', chat: 'rep-1' }, timeoutSeconds: 30, remindAfterSeconds: [1] }),
    );
    await allSent(ask.id, 1);
    const reminder = await eventually(async () => test.reminded.find((r) => r.ref.chat === 'rep-1'));
    const outcome = await test.sink!.text({
      channel: 'test',
      chat: 'rep-1',
      replyTo: reminder.sent.messageId,
      privateChat: false,
      user: person('test', 'erin'),
      text: 'production',
    });
    expect(outcome.kind).toBe('recorded');
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result).toMatchObject({ answers: { env: ['Production'] } });

    const { body: refused } = await api.post(
      '/v1/asks',
      askBody(run('refused'), { to: { channel: 'third', chat: 'ref-1' }, timeoutSeconds: 30, remindAfterSeconds: [1] }),
    );
    await allSent(refused.id, 1);
    third.failNext(new ChannelError('403 Forbidden', true));
    const noted = await eventually(async () => {
      const r = await api.get(`/v1/asks/${refused.id}`);
      return r.body.deliveries[0].reminded === 1 && r.body;
    });
    expect(noted.status).toBe('pending');
    expect(third.reminded).toEqual([]);
  });

  it('agree under concurrent taps on two channels: one terminal transition, every message edited once', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('race'), {
        to: [
          { channel: 'test', chat: 'race-1' },
          { channel: 'other', chat: 'race-2' },
        ],
        agree: 2,
      }),
    );
    await allSent(ask.id, 2);
    const taps = await Promise.all([
      tap(test, ask.id, 'race-1', 0, person('test', 'p1')),
      tap(other, ask.id, 'race-2', 0, person('other', 'p2')),
      tap(test, ask.id, 'race-1', 0, person('test', 'p3')),
      tap(other, ask.id, 'race-2', 0, person('other', 'p4')),
      tap(test, ask.id, 'race-1', 0, person('test', 'p5')),
    ]);
    expect(taps.filter((t) => t.kind === 'already_resolved').length).toBeGreaterThanOrEqual(3);
    const done = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries.every((d: any) => d.finalized === 'done') && r.body;
    });
    expect(done.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    expect(done.result.responses).toHaveLength(2);
    const history = JSON.stringify((await api.get(`/v1/asks/${ask.id}/events`)).body);
    expect(history.match(/"answered"/g)).toHaveLength(1);
    const mine = (c: RecordingChannel, chat: string) => c.finalized.filter((f) => f.ref.chat === chat);
    expect(mine(test, 'race-1')).toHaveLength(1);
    expect(mine(other, 'race-2')).toHaveLength(1);
  });

  it('never reminds an ask that ended first', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('ended'), { to: { channel: 'test', chat: 'end-1' }, timeoutSeconds: 30, remindAfterSeconds: [1] }),
    );
    await allSent(ask.id, 1);
    await api.post(`/v1/asks/${ask.id}/cancel`);
    await new Promise((r) => setTimeout(r, 1_800));
    expect(test.reminded.filter((r) => r.ref.chat === 'end-1')).toEqual([]);
    expect((await api.get(`/v1/asks/${ask.id}`)).body.reminded).toBeUndefined();
  });

  it('a timeout with a default ends no_answer/timeout with `defaults`', async () => {
    const res = await api.post(
      '/v1/asks?wait=10',
      askBody(run('default'), {
        to: { channel: 'test', chat: 'def-1' },
        timeoutSeconds: 1,
        onTimeout: { default: { env: ['staging'] } },
      }),
    );
    expect(res.body.result).toEqual({
      status: 'no_answer',
      reason: 'timeout',
      at: expect.any(String),
      defaults: { env: ['Staging'] },
      values: { env: ['Staging'] },
    });
  });

  it('agree: 2 matching answers from different people; the tally is refreshed; a skip is refused', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('agree'), {
        to: [
          { channel: 'test', chat: 'agr-1' },
          { channel: 'other', chat: 'agr-2' },
        ],
        agree: 2,
      }),
    );
    await allSent(ask.id, 2);
    expect((await tap(test, ask.id, 'agr-1', 1, person('test', 'alice'))).kind).toBe('recorded');
    expect((await tap(test, ask.id, 'agr-1', 1, person('test', 'alice'))).kind).toBe('recorded');
    const skip = await api.post(`/v1/asks/${ask.id}/answer`, { skip: true });
    expect(skip.status).toBe(400);
    expect(skip.body.error.message).toContain('needs 2 matching answers');
    await eventually(
      async () =>
        test.refreshed.some((r) => r.ref.chat === 'agr-1') && other.refreshed.some((r) => r.ref.chat === 'agr-2'),
    );
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    expect((await tap(other, ask.id, 'agr-2', 1, person('other', 'bob'))).kind).toBe('recorded');
    const done = await api.get(`/v1/asks/${ask.id}?wait=5`);
    expect(done.body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { channel: 'other', userId: 'bob' },
      responses: [
        { answers: { env: ['Production'] }, answeredBy: { channel: 'test', userId: 'alice' } },
        { answers: { env: ['Production'] }, answeredBy: { channel: 'other', userId: 'bob' } },
      ],
    });
    const history = JSON.stringify((await api.get(`/v1/asks/${ask.id}/events`)).body);
    expect(history).toContain('"response"');
  });

  it('a tally refresh still in flight when the ask ends is followed by the outcome edit again', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody(run('agree-race'), { to: { channel: 'test', chat: 'agr-race' }, agree: 2 }),
    );
    await allSent(ask.id, 1);
    const hold = test.holdNextRefresh();
    expect((await tap(test, ask.id, 'agr-race', 1, person('test', 'alice'))).kind).toBe('recorded');
    await hold.started; // the tally refresh is in flight
    expect((await tap(test, ask.id, 'agr-race', 1, person('test', 'bob'))).kind).toBe('recorded');
    const edits = () => test.finalized.filter((f) => f.ref.chat === 'agr-race');
    await eventually(async () => edits().length === 1);
    // The refresh lands after the outcome edit, showing the buttons again: the outcome must follow it.
    hold.release();
    await eventually(async () => test.refreshed.some((r) => r.ref.chat === 'agr-race') && edits().length === 2);
    expect(edits()[1]!.outcome.status).toBe('answered');
  });

  it('agree through the API: each answer is one response (by names the person)', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody(run('agree-api'), { agree: 2 }));
    const first = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'carol' });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('pending');
    const second = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['staging'] }, by: 'dave' });
    expect(second.body.result).toMatchObject({ status: 'answered', responses: [{}, {}] });
  });
});

describe('policy steps survive kill -9 (askgate serve as child processes, Telegram through the fake)', () => {
  let fake: FakeTelegramApi;
  const processes: AskgateProcess[] = [];

  beforeAll(async () => {
    fake = await FakeTelegramApi.start();
  });
  afterAll(async () => {
    for (const p of processes) await p.kill9();
    await fake?.close();
  });

  it('a reminder and an escalation that fell due while askgate was down fire once on restart', async () => {
    const env = testEnv({
      REDIS_URL: redis.url,
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.url,
      LOG_LEVEL: 'warn',
    });
    const start = async () => {
      const p = await startAskgateProcess(env);
      processes.push(p);
      return client(p.url);
    };
    const alice = newUser(fake, 'Alice', 'alice');
    const bob = newUser(fake, 'Bob', 'bob');
    const first = processes.length;
    const api1 = await start();
    const { body: ask } = await api1.post(
      '/v1/asks',
      askBody('pol-restart', {
        to: { channel: 'telegram', chat: String(alice.id) },
        timeoutSeconds: 60,
        remindAfterSeconds: [2],
        escalate: [{ afterSeconds: 3, to: { channel: 'telegram', chat: String(bob.id) } }],
      }),
    );
    const ref = await deliveredRef(api1, ask.id);
    await processes[first]!.kill9();
    // Both steps fall due while no askgate runs.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(fake.chatMessages(bob.id)).toEqual([]);

    const api2 = await start();
    const after = await eventually(async () => {
      const r = await api2.get(`/v1/asks/${ask.id}`);
      return r.body.reminded === 1 && r.body.escalated === 1 && r.body.deliveries[1]?.status === 'sent' && r.body;
    }, 15_000);
    expect(after.status).toBe('pending');
    const reminders = () => fake.chatMessages(alice.id).filter((m) => m.reply_to === Number(ref.messageId));
    await eventually(async () => reminders().length === 1);
    expect(reminders()[0]!.text).toMatch(/^Reminder/);
    expect(fake.chatMessages(bob.id)).toHaveLength(1);

    // Another kill -9 and restart fires nothing twice that was recorded. (Killed between Telegram
    // storing the reminder and askgate recording it, the reminder is sent again, like a delivery: R12's
    // window, so the kill waits for the record.)
    await eventually(async () =>
      (await api2.get(`/v1/asks/${ask.id}`)).body.deliveries[0]?.reminded === 1 ? true : undefined,
    );
    await processes.at(-1)!.kill9();
    const api3 = await start();
    await new Promise((r) => setTimeout(r, 1_500));
    const again = (await api3.get(`/v1/asks/${ask.id}`)).body;
    expect(again).toMatchObject({ reminded: 1, escalated: 1 });
    expect(again.deliveries).toHaveLength(2);
    expect(reminders()).toHaveLength(1);
    expect(fake.chatMessages(bob.id)).toHaveLength(1);
    const events = JSON.stringify((await api3.get(`/v1/asks/${ask.id}/events`)).body);
    expect(events.match(/"reminded"/g)).toHaveLength(1);
    expect(events.match(/"escalated"/g)).toHaveLength(1);
  });
});
