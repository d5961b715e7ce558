import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import type { InboundSink } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';
import { StoreKeys } from '../../src/store/keys.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { FakeSlackApi, type FakeMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';
import { single, several, settle, stored } from '../helpers/resend.js';

// Slack re-sends an Events API delivery it got no 2xx for within 3 s (`X-Slack-Retry-Num`), and a
// Socket Mode envelope it got no ack for (`retry_attempt`), to any replica. A re-send must be
// processed when no attempt finished, and must never show anything a second time.

const SECRET = 'resend-signing-secret';
const CHAT = 'C0001';
const ALICE = 'U0001';
const quiet = { info() {}, warn() {}, error() {} };

/** A Slack channel whose next `failTexts` replies fail inside the core (a store error after the event was claimed). */
class FlakySlack extends SlackChannel {
  failTexts = 0;
  override start(sink: InboundSink): Promise<void> {
    return super.start({
      button: (event) => sink.button(event),
      openForm: (event) => sink.openForm(event),
      submitForm: (event) => sink.submitForm(event),
      text: async (event) => {
        if (this.failTexts > 0) {
          this.failTexts--;
          throw new Error('Connection is closed.');
        }
        return sink.text(event);
      },
      bindFollowUp: (...args) => sink.bindFollowUp(...args),
      ...(sink.seen ? { seen: sink.seen } : {}),
    });
  }
}

let redis: TestRedis;
let fake: FakeSlackApi;
let prefix: string;
let first: RunningAskgate;
let second: RunningAskgate;
let flaky: FlakySlack;
let toFirst: SlackInjector;
let toSecond: SlackInjector;
let raw: Redis;

/** Creates an ask through `app` and waits until the fake holds its message. */
async function ask(
  app: RunningAskgate,
  questions: object[],
  chat = CHAT,
  users?: string[],
): Promise<{ id: string; message: FakeMessage }> {
  const api = client(app.url);
  const res = await api.post('/v1/asks', {
    runId: `resend-${randomBytes(4).toString('hex')}`,
    questions,
    to: { channel: 'slack', chat, ...(users ? { users } : {}) },
  });
  expect(res.status).toBe(201);
  const sent = await eventually(async () => (await api.get(`/v1/asks/${res.body.id}`)).body.deliveries[0].message);
  return { id: res.body.id, message: fake.message(sent.chat, sent.messageId)! };
}

/** askgate's own messages in the question's thread (prompts for the rest, hints). */
const inThread = (message: FakeMessage) =>
  [...fake.messages.values()].filter((m) => m.thread_ts === message.ts && m.bot_id);
const historyOf = async (app: RunningAskgate, id: string, type: string) =>
  (await stored(app, id)).history.filter((h) => h.type === type);

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeSlackApi.start();
  prefix = `t${randomBytes(4).toString('hex')}`;
  const env = testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: prefix });
  flaky = new FlakySlack({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger: quiet });
  first = await startTestApp(env, [flaky]);
  second = await startTestApp(env, [
    new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger: quiet }),
  ]);
  toFirst = new SlackInjector(`${first.url}/slack/events`, SECRET, fake);
  toSecond = new SlackInjector(`${second.url}/slack/events`, SECRET, fake);
  raw = new Redis(redis.url);
});

afterAll(async () => {
  raw?.disconnect();
  await first?.close();
  await second?.close();
  await fake?.close();
  await redis?.dispose();
});

describe('Slack HTTP mode: a re-sent event shows nothing twice, on any replica', () => {
  it('a partial answer re-sent (X-Slack-Retry-Num: 1, http_timeout) and then to a second replica: one prompt for the rest, the partial stored once', async () => {
    const { id, message } = await ask(first, several);
    const event = toFirst.messageEvent({ channel: CHAT, user: ALICE, text: '1: Staging', threadTs: message.ts });
    expect((await toFirst.postEvent(event)).status).toBe(200);
    expect((await toFirst.postEvent(event, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    expect((await toSecond.postEvent(event, { retryNum: 2, retryReason: 'http_timeout' })).status).toBe(200);
    await settle();
    const prompts = inThread(message);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.text).toContain('Still open');
    expect((await stored(first, id)).partial).toEqual({ env: ['Staging'] });
    expect(await historyOf(first, id, 'partial')).toHaveLength(1);

    // A new event (another event_id) in the same thread is not mistaken for a re-send.
    const rest = toSecond.messageEvent({ channel: CHAT, user: ALICE, text: '2: e2e', threadTs: message.ts });
    expect((await toSecond.postEvent(rest)).status).toBe(200);
    expect((await client(first.url).get(`/v1/asks/${id}?wait=10`)).body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'], checks: ['e2e'] },
    });
  });

  it('an invalid reply re-sent to both replicas: one hint, noted once', async () => {
    const { id, message } = await ask(first, single);
    const event = toFirst.messageEvent({ channel: CHAT, user: ALICE, text: '9', threadTs: message.ts });
    expect((await toSecond.postEvent(event)).status).toBe(200);
    expect((await toFirst.postEvent(event, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    expect((await toSecond.postEvent(event, { retryNum: 2, retryReason: 'http_error' })).status).toBe(200);
    await settle();
    const hints = inThread(message);
    expect(hints).toHaveLength(1);
    expect(hints[0]!.text).toMatch(/9/);
    expect(await historyOf(first, id, 'hint_sent')).toHaveLength(1);
    expect((await stored(first, id)).status).toBe('pending');
  });

  it('a refusal ("this question is for …") re-sent is told once, and so is a recorded answer', async () => {
    const { id, message } = await ask(first, single, 'C0002', ['U0778']);
    const sends = [
      [toFirst, undefined],
      [toSecond, 1],
      [toFirst, 2],
    ] as const;
    const wrong = toFirst.messageEvent({ channel: 'C0002', user: 'U0777', text: '1', threadTs: message.ts });
    for (const [to, retryNum] of sends)
      expect((await to.postEvent(wrong, retryNum ? { retryNum } : {})).status).toBe(200);
    const right = toFirst.messageEvent({ channel: 'C0002', user: 'U0778', text: '2', threadTs: message.ts });
    for (const [to, retryNum] of sends)
      expect((await to.postEvent(right, retryNum ? { retryNum } : {})).status).toBe(200);
    await settle();
    expect((await stored(first, id)).result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    expect(fake.ephemeralsFor('U0777').map((e) => e.text)).toEqual(['This question is for U0778']);
    expect(fake.ephemeralsFor('U0778').map((e) => e.text)).toEqual(['Answer recorded']);
    expect(await historyOf(first, id, 'reply_rejected')).toHaveLength(1);
  });

  it('the same event at the same moment on both replicas: one processes it, the other answers non-2xx or nothing happens twice', async () => {
    const { id, message } = await ask(first, several);
    const event = toFirst.messageEvent({ channel: CHAT, user: ALICE, text: '1: Production', threadTs: message.ts });
    const statuses = (
      await Promise.all([
        toFirst.postEvent(event),
        toSecond.postEvent(event, { retryNum: 1 }),
        toFirst.postEvent(event, { retryNum: 1 }),
      ])
    ).map((r) => r.status);
    expect(statuses).toContain(200);
    for (const status of statuses) expect([200, 503]).toContain(status);
    // Slack re-sends a 503 later: by then the event is settled, so it is acknowledged without effect.
    expect((await toSecond.postEvent(event, { retryNum: 2 })).status).toBe(200);
    await settle();
    expect(inThread(message)).toHaveLength(1);
    expect(await historyOf(first, id, 'partial')).toHaveLength(1);
  });

  it('a re-send of an event whose first processing failed after the claim is processed (one prompt)', async () => {
    const { id, message } = await ask(first, several);
    const event = toFirst.messageEvent({ channel: CHAT, user: ALICE, text: '1: Staging', threadTs: message.ts });
    flaky.failTexts = 1;
    expect((await toFirst.postEvent(event)).status).toBe(500);
    expect(inThread(message)).toHaveLength(0);
    expect((await toFirst.postEvent(event, { retryNum: 1, retryReason: 'http_error' })).status).toBe(200);
    await settle();
    expect(inThread(message)).toHaveLength(1);
    expect((await stored(first, id)).partial).toEqual({ env: ['Staging'] });
  });

  it('a re-send while a crashed attempt still holds the lease gets 503; once the lease ends it is processed', async () => {
    const { id, message } = await ask(first, single);
    const event = toFirst.messageEvent({ channel: CHAT, user: ALICE, text: '2', threadTs: message.ts }) as {
      event_id: string;
    };
    // What an attempt that died after its claim leaves behind (any replica): a lease, here 500 ms long.
    await raw.set(
      new StoreKeys(prefix).seen('slack', event.event_id),
      `p:${Date.now() + 500}:crashed`,
      'PX',
      3_600_000,
    );
    expect((await toSecond.postEvent(event, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(503);
    expect((await stored(first, id)).status).toBe('pending');
    await new Promise((r) => setTimeout(r, 600));
    expect((await toSecond.postEvent(event, { retryNum: 2, retryReason: 'http_timeout' })).status).toBe(200);
    expect((await stored(first, id)).result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    // A retry whose answer is recorded gets its notice: the crashed attempt never told anyone.
    await eventually(async () => fake.ephemeralsFor(ALICE).some((e) => e.text === 'Answer recorded'));
  });
});

describe('Slack: Redis unreachable when the event arrives', () => {
  let own: TestRedis;
  let app: RunningAskgate;
  let inject: SlackInjector;

  beforeAll(async () => {
    own = await startRedis(['--appendonly', 'yes']); // the asks outlive the restart
    app = await startTestApp(testEnv({ REDIS_URL: own.url }), [
      new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger: quiet }),
    ]);
    inject = new SlackInjector(`${app.url}/slack/events`, SECRET, fake);
  });
  afterAll(async () => {
    await app?.close();
    await own?.dispose();
  });

  it('the delivery fails (500) so Slack re-sends it, and the re-send is processed once', async () => {
    const { id, message } = await ask(app, several, 'G0001');
    const event = inject.messageEvent({ channel: 'G0001', user: ALICE, text: '1: Staging', threadTs: message.ts });
    await own.stop();
    expect((await inject.postEvent(event)).status).toBe(500);
    await own.restart();
    await eventually(async () => (await fetch(`${app.url}/readyz`)).status === 200);
    expect((await inject.postEvent(event, { retryNum: 1, retryReason: 'http_error' })).status).toBe(200);
    expect((await inject.postEvent(event, { retryNum: 2, retryReason: 'http_error' })).status).toBe(200);
    await settle();
    expect(inThread(message)).toHaveLength(1);
    expect((await stored(app, id)).partial).toEqual({ env: ['Staging'] });
  });
});

describe('Slack Socket Mode: a re-sent envelope shows nothing twice', () => {
  let socketA: RunningAskgate;
  let socketB: RunningAskgate;

  beforeAll(async () => {
    const env = testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: prefix });
    const channel = () =>
      new SlackChannel({ token: fake.token, appToken: fake.appToken, apiUrl: `${fake.url}/api/`, logger: quiet });
    socketA = await startTestApp(env, [channel()]);
    socketB = await startTestApp(env, [channel()]);
  });
  afterAll(async () => {
    await socketA?.close();
    await socketB?.close();
  });

  it('an envelope sent to two connections at once, then re-sent (retry_attempt 1): one prompt, acked each time', async () => {
    expect(fake.socketCount).toBe(2);
    const { id, message } = await ask(socketA, several, 'C0002');
    const event = toFirst.messageEvent({ channel: 'C0002', user: ALICE, text: '1: Staging', threadTs: message.ts });
    await fake.sendEnvelope('events_api', event);
    await fake.sendEnvelope('events_api', event, { retry_attempt: 1, retry_reason: 'timeout' });
    await settle();
    expect(inThread(message)).toHaveLength(1);
    expect(await historyOf(socketA, id, 'partial')).toHaveLength(1);
  });
});
