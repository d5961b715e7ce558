import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { createLogger } from '../../src/logger.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { FakeSlackApi, visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';

const SECRET = 'e2e-signing-secret';
const CHAT = 'C0001';
const ALICE = 'U0001';
const logLines: string[] = [];
const logger = createLogger('info', (line) => logLines.push(line));

let redis: TestRedis;
let fake: FakeSlackApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let slack: SlackInjector;

const single = (options = ['Staging', 'Production']) => [
  { id: 'env', header: 'Deploy', question: 'Where should I deploy?', options: options.map((label) => ({ label })) },
];
const several = [
  { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  {
    id: 'checks',
    header: 'Checks',
    question: 'Which checks?',
    multiSelect: true,
    options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
  },
];

/** Creates an ask for Slack and waits until the fake holds its message. */
async function ask(runId: string, questions: object[], to: object = {}): Promise<{ id: string; message: FakeMessage }> {
  const res = await api.post('/v1/asks', { runId, questions, to: { channel: 'slack', chat: CHAT, ...to } });
  expect(res.status).toBe(201);
  const sent = await eventually(async () => {
    const r = await api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
  });
  return { id: res.body.id, message: fake.message(sent.chat, sent.messageId)! };
}

const record = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const result = async (id: string) => (await api.get(`/v1/asks/${id}?wait=10`)).body.result;
const reply = (message: FakeMessage, text: string, user = ALICE, extra: object = {}) =>
  slack.postEvent(slack.messageEvent({ channel: message.channel, user, text, threadTs: message.ts, ...extra }));
const press = (message: FakeMessage, label: string, user = ALICE, options = {}) => {
  const button = visibleMessage(message).buttons.find((b) => b.label === label)!;
  return slack.postInteractive(slack.blockAction(message, button.data, user), options);
};
const noticesFor = (user: string) => fake.ephemeralsFor(user).map((e) => e.text);
const settle = () => new Promise((r) => setTimeout(r, 300));

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeSlackApi.start();
  const channel = new SlackChannel({ token: fake.token, signingSecret: SECRET, apiUrl: `${fake.url}/api/`, logger });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
  slack = new SlackInjector(`${app.url}/slack/events`, SECRET, fake);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

describe('Slack end to end (HTTP mode, real bolt App, redis-server)', () => {
  it('ask → message with buttons → button → the agent gets answered; the message is updated', async () => {
    const { id, message } = await ask('slack-button', single(), { users: [ALICE] });
    const shown = visibleMessage(message);
    expect(shown.buttons.map((b) => b.label)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    expect(shown.text).toContain('Where should I deploy?');
    const waiting = result(id);
    expect((await press(message, 'Production')).status).toBe(200);
    expect(await waiting).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { channel: 'slack', userId: ALICE, username: 'u0001' },
    });
    await eventually(async () => noticesFor(ALICE).includes('Answer recorded'));
    await eventually(async () => (await record(id)).deliveries[0].finalized === 'done');
    const final = visibleMessage(fake.message(message.channel, message.ts)!);
    expect(final.buttons).toEqual([]);
    expect(final.text).toContain('Where should I deploy?');
    expect(final.text).toContain('Answered: Production — by @u0001');
  });

  it.each([
    ['a number', single(), '2', { env: ['Production'] }],
    ['a label', single(), 'production', { env: ['Production'] }],
    ['free text', single(), 'deploy to canary & watch <metrics>', { env: ['deploy to canary & watch <metrics>'] }],
    ['"1,3" for a multi-select', [several[1]], '1,3', { checks: ['lint', 'e2e'] }],
    ['several questions in lines', several, '2\n1, 2', { env: ['Production'], checks: ['lint', 'tests'] }],
  ])('a thread reply with %s answers', async (_name, questions, text, answers) => {
    const { id, message } = await ask(`slack-reply-${Math.random().toString(36).slice(2, 8)}`, questions);
    expect((await reply(message, text)).status).toBe(200);
    expect(await result(id)).toMatchObject({
      status: 'answered',
      answers,
      answeredBy: { channel: 'slack', userId: ALICE },
    });
  });

  it('several questions answered in two parts: the rest is asked for in the thread', async () => {
    const { id, message } = await ask('slack-parts', several);
    await reply(message, '1: Staging');
    const prompt = await eventually(async () => [...fake.messages.values()].find((m) => m.thread_ts === message.ts));
    expect(prompt.text).toContain('Still open');
    expect((await record(id)).status).toBe('pending');
    await reply(message, '2: e2e');
    expect(await result(id)).toMatchObject({ status: 'answered', answers: { env: ['Staging'], checks: ['e2e'] } });
  });

  it('"skip" in the thread declines', async () => {
    const { id, message } = await ask('slack-skip', single());
    await reply(message, 'skip');
    expect(await result(id)).toMatchObject({ status: 'no_answer', reason: 'skipped', by: { userId: ALICE } });
  });

  it('a message outside the thread, an edit, a join and a bot message are not answers', async () => {
    const { id, message } = await ask('slack-outside', single());
    await slack.postEvent(slack.messageEvent({ channel: CHAT, user: ALICE, text: '1' }));
    await slack.postEvent(slack.messageEvent({ channel: CHAT, user: ALICE, text: '1', threadTs: '1600000000.000001' }));
    await reply(message, '1', ALICE, { subtype: 'message_changed' });
    await reply(message, '1', ALICE, { subtype: 'channel_join' });
    await reply(message, '1', undefined, { botId: 'BBOT', subtype: 'bot_message' });
    await reply(message, '1', 'U0BOT2', { botId: 'B0OTHER' });
    await settle();
    expect((await record(id)).status).toBe('pending');
  });

  it('duplicate button payloads give one answer; the duplicates are told it was already answered', async () => {
    const { id, message } = await ask('slack-dup', single());
    const before = noticesFor(ALICE).length;
    const payload = slack.blockAction(message, visibleMessage(message).buttons[0]!.data, ALICE);
    const responses = await Promise.all([1, 2, 3].map(() => slack.postInteractive(payload)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const answered = await result(id);
    expect(answered).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    const notices = await eventually(
      async () => noticesFor(ALICE).length - before === 3 && noticesFor(ALICE).slice(before),
    );
    expect(notices.filter((n) => n === 'Answer recorded')).toHaveLength(1);
    expect(notices.filter((n) => n.startsWith('This question was already answered'))).toHaveLength(2);
    expect((await record(id)).result).toEqual(answered);
  });

  it('a retried event (X-Slack-Retry-Num) is processed, never dropped, and counts once', async () => {
    const first = await ask('slack-retry-lost', single());
    const lost = slack.messageEvent({ channel: CHAT, user: ALICE, text: '2', threadTs: first.message.ts });
    expect((await slack.postEvent(lost, { badSignature: true })).status).toBe(401);
    expect((await slack.postEvent(lost, { retryNum: 1 })).status).toBe(200);
    expect(await result(first.id)).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });

    const second = await ask('slack-retry-dup', single());
    const event = slack.messageEvent({ channel: CHAT, user: 'U0002', text: '1', threadTs: second.message.ts });
    expect((await slack.postEvent(event)).status).toBe(200);
    const answered = await result(second.id);
    expect((await slack.postEvent(event, { retryNum: 1 })).status).toBe(200);
    await settle();
    expect((await record(second.id)).result).toEqual(answered);
    expect(noticesFor('U0002')).toEqual(['Answer recorded']);
  });

  it('a wrong user gets an ephemeral "not for you" and the ask stays pending', async () => {
    const { id, message } = await ask('slack-wrong-user', single(), { users: [ALICE] });
    expect((await press(message, 'Staging', 'U0666')).status).toBe(200);
    await eventually(async () => noticesFor('U0666').includes(`This question is for ${ALICE}`));
    await reply(message, '1', 'U0666');
    await eventually(async () => noticesFor('U0666').filter((n) => n === `This question is for ${ALICE}`).length === 2);
    expect((await record(id)).status).toBe('pending');
  });

  it.each([
    ['a forged signature', 'forged', { badSignature: true }],
    ['a stale timestamp (> 5 min old)', 'stale', { skewSeconds: -301 }],
    ['a far-future timestamp (> 5 min ahead)', 'future', { skewSeconds: 301 }],
  ])('%s → 401 and no change', async (_name, key, options) => {
    const { id, message } = await ask(`slack-forged-${key}`, single());
    const notices = fake.ephemerals.length;
    expect((await press(message, 'Staging', ALICE, options)).status).toBe(401);
    expect(
      (
        await slack.postEvent(
          slack.messageEvent({ channel: CHAT, user: ALICE, text: '1', threadTs: message.ts }),
          options,
        )
      ).status,
    ).toBe(401);
    await settle();
    expect((await record(id)).status).toBe('pending');
    expect(fake.ephemerals.length).toBe(notices);
  });

  it('the outbox waits out a 429 Retry-After; a channel Slack refuses fails the ask at once', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const started = Date.now();
    await ask('slack-429', single());
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const res = await api.post('/v1/asks?wait=10', {
      runId: 'slack-gone',
      questions: single(),
      to: { channel: 'slack', chat: 'C0404' },
    });
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
    expect(res.body.deliveries[0]).toMatchObject({ status: 'failed', error: 'chat.postMessage: channel_not_found' });
  });

  it('answers url_verification with the challenge', async () => {
    const res = await slack.postEvent({ type: 'url_verification', token: 'legacy', challenge: 'c-123' });
    expect(res).toEqual({ status: 200, text: JSON.stringify({ challenge: 'c-123' }) });
  });

  it('labels like <!channel>, <@U123>, <http://x|y> and &amp; render literally and never reach Slack raw', async () => {
    const labels = ['<!channel>', '<@U123>', '<http://x|y>', '&amp;'];
    const { message } = await ask('slack-hostile', [
      { id: 'evil', question: 'Ping <!here> & <@U999>?', options: labels.map((label) => ({ label })) },
    ]);
    const shown = visibleMessage(message);
    expect(shown.buttons.slice(0, 4).map((b) => b.label)).toEqual(labels);
    for (const label of labels) expect(shown.text).toContain(label);
    expect(shown.text).toContain('Ping <!here> & <@U999>?');
    const sent = JSON.stringify(fake.callsOf('chat.postMessage').at(-1)!.params);
    for (const raw of ['<!channel>', '<!here>', '<@U123>', '<@U999>', '<http://x|y>']) expect(sent).not.toContain(raw);
    expect(sent).toContain('&amp;amp;');
  });
});

describe('Slack end to end (Socket Mode against a fake WebSocket endpoint)', () => {
  let socketApp: RunningAskgate;

  beforeAll(async () => {
    const channel = new SlackChannel({
      token: fake.token,
      appToken: fake.appToken,
      apiUrl: `${fake.url}/api/`,
      logger,
    });
    socketApp = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  });

  afterAll(async () => {
    await socketApp?.close();
  });

  it('delivers a button press end to end, and a retried thread reply', async () => {
    expect(fake.socketCount).toBe(1);
    const socketApi = client(socketApp.url);
    const create = await socketApi.post('/v1/asks', {
      runId: 'slack-socket',
      questions: single(),
      to: { channel: 'slack', chat: 'C0002' },
    });
    const ref = await eventually(
      async () => (await socketApi.get(`/v1/asks/${create.body.id}`)).body.deliveries[0].message,
    );
    const message = fake.message(ref.chat, ref.messageId)!;
    const button = visibleMessage(message).buttons[1]!;
    await fake.sendEnvelope('interactive', slack.blockAction(message, button.data, 'U0005'));
    const answered = (await socketApi.get(`/v1/asks/${create.body.id}?wait=10`)).body.result;
    expect(answered).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { userId: 'U0005' },
    });
    await eventually(async () => noticesFor('U0005').includes('Answer recorded'));

    const next = await socketApi.post('/v1/asks', {
      runId: 'slack-socket-2',
      questions: single(),
      to: { channel: 'slack', chat: 'C0002' },
    });
    const nextRef = await eventually(
      async () => (await socketApi.get(`/v1/asks/${next.body.id}`)).body.deliveries[0].message,
    );
    const event = slack.messageEvent({ channel: 'C0002', user: 'U0005', text: 'staging', threadTs: nextRef.messageId });
    await fake.sendEnvelope('events_api', event, { retry_attempt: 1, retry_reason: 'timeout' });
    expect((await socketApi.get(`/v1/asks/${next.body.id}?wait=10`)).body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'] },
    });
  });

  it('never logs tokens or free-text answers', () => {
    const log = logLines.join('');
    for (const secret of [fake.token, fake.appToken, SECRET, 'deploy to canary']) expect(log).not.toContain(secret);
  });
});
