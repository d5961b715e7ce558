import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { StoreKeys } from '../../src/store/keys.js';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { botMessagesAfter, channelFor, deliveredRef, memoryLogger, newUser, visible } from './telegram-world.js';
import { several, settle, stored } from '../helpers/resend.js';

// Telegram re-sends an update whose webhook answer never arrived, to whichever replica the load
// balancer picks, and a poller that died before confirming its offset gets its updates again after
// the restart. Either way the update must not be answered twice.

const SECRET = 'resend_secret-0123456789';

let redis: TestRedis;
let fake: FakeTelegramApi;
let prefix: string;

/** An askgate replica in webhook mode on its own port (Telegram's webhook URL points at the last one started). */
async function webhookReplica(): Promise<RunningAskgate> {
  const port = await freePort();
  const channel = channelFor(fake, memoryLogger(), {
    webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
    webhookSecret: SECRET,
  });
  return startTestApp(testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: prefix, PORT: String(port) }), [channel]);
}

/** POSTs an update to a replica as Telegram does. */
const post = (app: RunningAskgate, update: unknown) =>
  fetch(`${app.url}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify(update),
  });

async function ask(app: RunningAskgate, user: FakeUser, extra: Record<string, unknown> = {}) {
  const api = client(app.url);
  const { status, body } = await api.post(
    '/v1/asks',
    askBody(`tg-resend-${randomBytes(4).toString('hex')}`, {
      to: { channel: 'telegram', chat: String(user.id) },
      timeoutSeconds: 60,
      ...extra,
    }),
  );
  expect(status).toBe(201);
  return { id: body.id as string, ref: await deliveredRef(api, body.id) };
}

const notes = async (app: RunningAskgate, id: string, type: string) =>
  (await stored(app, id)).history.filter((h) => h.type === type);
/** The bot's replies to one message of the person. */
const repliesTo = (chat: number, messageId: number) =>
  botMessagesAfter(fake, chat, 0).filter((m) => m.reply_to === messageId);

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
  prefix = `t${randomBytes(4).toString('hex')}`;
});

afterAll(async () => {
  await fake?.close();
  await redis?.dispose();
});

describe('Telegram webhook: a re-sent update_id is answered once, on any replica and after a restart', () => {
  let a: RunningAskgate;
  let b: RunningAskgate;
  let raw: Redis;

  beforeAll(async () => {
    a = await webhookReplica();
    b = await webhookReplica();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await a?.close();
    await b?.close();
  });

  it('an out-of-range reply re-sent to the other replica, then to a restarted one: one hint, noted once', async () => {
    const user = newUser(fake, 'Resend');
    const { id, ref } = await ask(a, user);
    const nine = fake.say(ref.chat, '9', user, ref.messageId);
    await eventually(async () => repliesTo(user.id, nine.message_id).length === 1);
    const update = fake.pushed.at(-1);
    expect((await post(a, update)).status).toBe(200);
    expect((await post(b, update)).status).toBe(200);
    await a.close();
    a = await webhookReplica();
    expect((await post(a, update)).status).toBe(200);
    await settle();
    expect(repliesTo(user.id, nine.message_id)).toHaveLength(1);
    expect(await notes(b, id, 'hint_sent')).toHaveLength(1);
    expect((await stored(b, id)).status).toBe('pending');
  });

  it('a partial reply re-sent to both replicas at once: one prompt for the rest, the partial stored once', async () => {
    const user = newUser(fake, 'Parts');
    const { id, ref } = await ask(a, user, { questions: several });
    const first = fake.say(ref.chat, '1: Staging', user, ref.messageId);
    await eventually(async () => repliesTo(user.id, first.message_id).length === 1);
    const update = fake.pushed.at(-1);
    const statuses = (await Promise.all([post(a, update), post(b, update), post(a, update)])).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200]);
    await settle();
    expect(repliesTo(user.id, first.message_id)).toHaveLength(1);
    expect(await notes(a, id, 'partial')).toHaveLength(1);
    expect((await stored(a, id)).partial).toEqual({ env: ['Staging'] });
  });

  it('"Other…" tapped once, its update re-sent to the other replica: one force-reply prompt', async () => {
    const user = newUser(fake, 'OwnWords');
    const { ref } = await ask(a, user);
    const other = visible(fake, ref).buttons.find((b) => b.label === 'Other…')!;
    fake.tap(ref.chat, ref.messageId, other.data, user);
    const prompts = () =>
      repliesTo(user.id, Number(ref.messageId)).filter((m) => m.reply_markup && 'force_reply' in m.reply_markup);
    await eventually(async () => prompts().length === 1);
    const update = fake.pushed.at(-1);
    expect((await post(a, update)).status).toBe(200);
    expect((await post(b, update)).status).toBe(200);
    await settle();
    expect(prompts()).toHaveLength(1);
  });

  it('a tap re-sent to the other replica: processed again at once, its second answer refused by Telegram, no message', async () => {
    const user = newUser(fake, 'TapTwice', 'taptwice');
    const { id, ref } = await ask(a, user);
    fake.tap(ref.chat, ref.messageId, visible(fake, ref).buttons[1]!.data, user);
    expect((await client(a.url).get(`/v1/asks/${id}?wait=5`)).body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
    });
    const update = fake.pushed.at(-1);
    const started = Date.now();
    const again = await post(b, update);
    expect(again.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    // Its answer rides on the webhook answer, as the first one did; Telegram takes one per query.
    expect(await fake.webhookReply(await again.text())).toMatchObject({ status: 400 });
    expect(fake.answers.filter((x) => x.id === update.callback_query.id).map((x) => x.text)).toEqual([
      'Answer recorded',
    ]);
    await settle();
    expect(repliesTo(user.id, Number(ref.messageId))).toEqual([]);
    expect((await stored(a, id)).result).toMatchObject({ answers: { env: ['Production'] } });
  });

  it('an update whose attempt died before answering (its lease left behind) is handled once the lease ends', async () => {
    const user = newUser(fake, 'Crashed');
    const { id, ref } = await ask(a, user);
    const reply = fake.say(ref.chat, 'production', user, ref.messageId);
    await eventually(async () => (await stored(a, id)).status === 'answered');
    // A second update of the same person, claimed by an attempt that then died (any replica).
    const lost = {
      update_id: 777_000_001,
      message: { ...fake.pushed.at(-1).message, message_id: reply.message_id + 1000, text: 'skip' },
    };
    await raw.set(
      new StoreKeys(prefix).seen('telegram', `${fake.bot.id}:${lost.update_id}`),
      `p:${Date.now() + 400}:dead`,
      'PX',
      60_000,
    );
    const started = Date.now();
    expect((await post(b, lost)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    // Taken over as a retry: the ask was answered meanwhile, and a retry says nothing about that.
    await settle();
    expect(repliesTo(user.id, lost.message.message_id)).toEqual([]);
    expect((await post(a, lost)).status).toBe(200);
  });
});

describe('Telegram webhook: Redis unreachable when an update arrives', () => {
  let own: TestRedis;
  let app: RunningAskgate;

  beforeAll(async () => {
    own = await startRedis(['--appendonly', 'yes']);
    const port = await freePort();
    const channel = channelFor(fake, memoryLogger(), {
      webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
      webhookSecret: SECRET,
    });
    app = await startTestApp(testEnv({ REDIS_URL: own.url, PORT: String(port) }), [channel]);
  });
  afterAll(async () => {
    await app?.close();
    await own?.dispose();
  });

  it('answers 503 so Telegram re-sends it, and the re-send is handled once', async () => {
    const user = newUser(fake, 'Outage');
    const { ref } = await ask(app, user);
    const nine = fake.say(ref.chat, '9', user, ref.messageId);
    await eventually(async () => repliesTo(user.id, nine.message_id).length === 1);
    const update = { ...fake.pushed.at(-1), update_id: 888_000_001 };
    await own.stop();
    expect((await post(app, update)).status).toBe(503);
    await own.restart();
    await eventually(async () => (await fetch(`${app.url}/readyz`)).status === 200);
    expect((await post(app, update)).status).toBe(200);
    expect((await post(app, update)).status).toBe(200);
    await settle();
    // The original delivery's hint and the re-send's: the 503 one said nothing.
    expect(repliesTo(user.id, nine.message_id)).toHaveLength(2);
  });
});

describe('Telegram long polling: updates re-delivered after a restart are not answered again', () => {
  it('a hint, then the poller restarts before confirming: the re-delivered update gets no second hint', async () => {
    const env = testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: `t${randomBytes(4).toString('hex')}` });
    let app = await startTestApp(env, [channelFor(fake, memoryLogger())]);
    try {
      const user = newUser(fake, 'Poller');
      const { ref } = await ask(app, user);
      const nine = fake.say(ref.chat, '9', user, ref.messageId);
      await eventually(async () => repliesTo(user.id, nine.message_id).length === 1);
      const update = fake.pushed.at(-1);
      await app.close();
      fake.redeliver(update);
      const restarted = Date.now();
      app = await startTestApp(env, [channelFor(fake, memoryLogger())]);
      // The new poller got the update and confirmed it (its next offset is past it).
      await eventually(async () =>
        fake.callsOf('getUpdates').some((c) => c.at >= restarted && Number(c.params.offset) > update.update_id),
      );
      await settle();
      expect(repliesTo(user.id, nine.message_id)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe('Telegram webhook in memory mode (no REDIS_URL)', () => {
  it('a re-sent update is answered once by the one process', async () => {
    const port = await freePort();
    const channel = channelFor(fake, memoryLogger(), {
      webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
      webhookSecret: SECRET,
    });
    const app = await startTestApp(testEnv({ PORT: String(port) }), [channel]);
    try {
      expect(app.storeMode).toBe('memory');
      const user = newUser(fake, 'Memory');
      const { ref } = await ask(app, user);
      const nine = fake.say(ref.chat, '9', user, ref.messageId);
      await eventually(async () => repliesTo(user.id, nine.message_id).length === 1);
      const update = fake.pushed.at(-1);
      expect((await post(app, update)).status).toBe(200);
      fake.redeliver(update);
      await eventually(async () => fake.webhookLog.filter((l) => l.update_id === update.update_id).length === 2);
      await settle();
      expect(repliesTo(user.id, nine.message_id)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
