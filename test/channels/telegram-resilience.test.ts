import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { channelFor, deliveredRef, memoryLogger, newUser, tap, visible } from './telegram-world.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let run = 0;
const runId = () => `tg-res-${++run}`;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

describe('Telegram: crash and restart (askgate serve as a child process)', () => {
  let fake: FakeTelegramApi;
  const processes: AskgateProcess[] = [];

  beforeAll(async () => {
    fake = await FakeTelegramApi.start();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await fake?.close();
  });

  it('kill -9 after delivery, restart, then the old button is tapped → accepted and the message finalized', async () => {
    const env = testEnv({
      REDIS_URL: redis.url,
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.url,
      LOG_LEVEL: 'warn',
    });
    const first = await startAskgateProcess(env);
    processes.push(first);
    const user = newUser(fake, 'Crash', 'crash');
    const api1 = client(first.url);
    const { body: created } = await api1.post(
      '/v1/asks',
      askBody(runId(), { to: { channel: 'telegram', chat: String(user.id) }, timeoutSeconds: 60 }),
    );
    const ref = await deliveredRef(api1, created.id);
    const data = visible(fake, ref).buttons[1]!.data;
    await first.kill9();

    const second = await startAskgateProcess(env);
    processes.push(second);
    const api2 = client(second.url);
    expect(await tap(fake, ref, data, user)).toBe('Answer recorded');
    const done = await eventually(async () => {
      const r = await api2.get(`/v1/asks/${created.id}`);
      return r.body.deliveries[0].finalized === 'done' && r.body;
    });
    expect(done.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { userId: String(user.id) },
    });
    const shown = visible(fake, ref);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Where should I deploy?');
    expect(shown.text).toContain('Answered: Production — by @crash');
    expect(first.output() + second.output()).not.toContain(fake.token.split(':')[1]);
  });
});

describe('Telegram: platform failures through the outbox', () => {
  let fake: FakeTelegramApi;
  let app: RunningAskgate;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    fake = await FakeTelegramApi.start();
    app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channelFor(fake, memoryLogger())]);
    api = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('429 on sendMessage → delivered once, after retry_after', async () => {
    const user = newUser(fake, 'Limited');
    fake.rateLimitNext('sendMessage', 1);
    const started = Date.now();
    const { body } = await api.post(
      '/v1/asks',
      askBody(runId(), { to: { channel: 'telegram', chat: String(user.id) }, timeoutSeconds: 60 }),
    );
    await deliveredRef(api, body.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(fake.chatMessages(user.id)).toHaveLength(1);
    expect(fake.callsOf('sendMessage').filter((c) => c.error_code === 429)).toHaveLength(1);
  });

  it('403 (bot blocked) → the ask ends undelivered promptly, without retries', async () => {
    const user = newUser(fake, 'Blocker');
    fake.block(user.id);
    const started = Date.now();
    const { body } = await api.post(
      '/v1/asks?wait=10',
      askBody(runId(), { to: { channel: 'telegram', chat: String(user.id) }, timeoutSeconds: 60 }),
    );
    expect(body.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
    expect(body.deliveries[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/403.*blocked/) });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.callsOf('sendMessage').filter((c) => String(c.params.chat_id) === String(user.id))).toHaveLength(1);
  });
});

describe('Telegram: webhook mode', () => {
  const secret = 'webhook_secret-0123456789';
  let fake: FakeTelegramApi;
  let app: RunningAskgate;
  let api: ReturnType<typeof client>;
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(`${app.url}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    fake = await FakeTelegramApi.start();
    const port = await freePort();
    const channel = channelFor(fake, memoryLogger(), {
      webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
      webhookSecret: secret,
    });
    app = await startTestApp(testEnv({ REDIS_URL: redis.url, PORT: String(port) }), [channel]);
    api = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('registers the webhook with its secret and does not poll', () => {
    expect(fake.webhook).toEqual({ url: expect.stringMatching(/\/telegram\/webhook$/), secret });
    expect(fake.callsOf('getUpdates')).toEqual([]);
  });

  it('a wrong or missing secret → 401 and nothing changes; the right secret works, answered at once and handled once', async () => {
    const user = newUser(fake, 'Hook');
    const { body } = await api.post(
      '/v1/asks',
      askBody(runId(), { to: { channel: 'telegram', chat: String(user.id) }, timeoutSeconds: 60 }),
    );
    const ref = await deliveredRef(api, body.id);
    const message = fake.message(ref.chat, ref.messageId)!;
    const data = visible(fake, ref).buttons[0]!.data;
    const forged = {
      update_id: 900_001,
      callback_query: {
        id: 'forged-1',
        from: user,
        chat_instance: '1',
        data,
        message: {
          message_id: message.message_id,
          chat: { id: user.id, type: 'private' },
          date: 0,
          text: message.text,
        },
      },
    };
    const wrong: Record<string, string>[] = [
      { 'x-telegram-bot-api-secret-token': 'wrong-secret-0123456789' },
      {},
      { 'x-telegram-bot-api-secret-token': `${secret}x` },
    ];
    for (const headers of wrong) {
      expect((await post(forged, headers)).status).toBe(401);
    }
    expect((await api.get(`/v1/asks/${body.id}`)).body.status).toBe('pending');
    expect(fake.callsOf('answerCallbackQuery')).toEqual([]);

    expect(await tap(fake, ref, data, user)).toBe('Answer recorded');
    const answered = await api.get(`/v1/asks/${body.id}`);
    expect(answered.body.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    const update = fake.pushed.at(-1);
    const deliveries = fake.webhookLog.filter((l) => l.update_id === update.update_id);
    expect(deliveries).toEqual([expect.objectContaining({ attempt: 1, status: 200 })]);
    expect(deliveries[0]!.ms).toBeLessThan(1500);
    // The answer to the tap rode on the answer to Telegram's POST (a webhook reply), not a call of its own.
    expect(fake.webhookReplies).toEqual([
      {
        method: 'answerCallbackQuery',
        params: { callback_query_id: update.callback_query.id, text: 'Answer recorded' },
      },
    ]);

    // Telegram re-sends an update it thinks was lost: the same update_id is handled once.
    expect((await post(update, { 'x-telegram-bot-api-secret-token': secret })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.callsOf('answerCallbackQuery')).toHaveLength(1);
  });
});
