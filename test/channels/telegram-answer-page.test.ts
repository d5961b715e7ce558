import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { channelFor, deliveredRef, memoryLogger, newUser, visible } from './telegram-world.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

// Issue 38: a Telegram prompt shortened to fit carries an "Open" URL button to the answer page,
// signed for the person the message is for; answering there edits the Telegram message with the
// outcome like a tap. A prompt that fits whole has no such button.

const PUBLIC = 'https://askgate.example.com';
let redis: TestRedis;
let fake: FakeTelegramApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const logger = memoryLogger();
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_PUBLIC_URL: PUBLIC,
      ASKGATE_LINK_SECRET: 'telegram-page-secret-0123456789abcdef',
    }),
    [channelFor(fake, logger)],
  );
  api = client(app.url);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

/** Three questions of 1000 characters with long option descriptions: more than Telegram's 4096. */
const long = [0, 1, 2].map((n) => ({
  id: `q${n}`,
  question: `Question ${n}: ${'lorem ipsum dolor sit amet '.repeat(37)}`.slice(0, 1000),
  options: [0, 1, 2, 3].map((k) => ({ label: `Option ${n}.${k}`, description: 'd'.repeat(300) })),
}));

async function ask(user: FakeUser, extra: Record<string, unknown>): Promise<{ id: string; ref: MessageRef }> {
  const body = {
    runId: `tg-page-${++run}`,
    to: { channel: 'telegram', chat: String(user.id), users: [String(user.id)] },
    timeoutSeconds: 600,
    questions: [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }],
    ...extra,
  };
  const { status, body: created } = await api.post('/v1/asks', body);
  expect(status, JSON.stringify(created)).toBe(201);
  return { id: created.id, ref: await deliveredRef(api, created.id) };
}

/** The message's URL buttons. */
function urlButtons(ref: MessageRef): { text: string; url: string }[] {
  const markup = visible(fake, ref).message.reply_markup;
  const rows = markup && 'inline_keyboard' in markup ? markup.inline_keyboard : [];
  return rows.flat().flatMap((b) => (b.url ? [{ text: b.text, url: b.url }] : []));
}

describe('Telegram: the Open button to the answer page', () => {
  it('a prompt that fits whole has none', async () => {
    const user = newUser(fake, 'Ana');
    const { ref } = await ask(user, {});
    expect(urlButtons(ref)).toEqual([]);
    expect(visible(fake, ref).buttons.length).toBeGreaterThan(0);
  });

  it('a shortened prompt has one, for its person; answering there edits the message with the outcome', async () => {
    const user = newUser(fake, 'Bea', 'bea');
    const { id, ref } = await ask(user, { questions: long });
    const [open] = urlButtons(ref);
    expect(open?.text).toBe('Open');
    expect(open!.url.startsWith(`${PUBLIC}/a/`)).toBe(true);
    const local = app.url + open!.url.slice(PUBLIC.length);
    const page = await fetch(local);
    const html = await page.text();
    expect(html).toContain(`Answering as ${user.id}`);
    expect(html).toContain('Option 2.3');
    const guard = /name="guard" value="([^"]+)"/.exec(html)![1]!;
    const answered = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ guard, c0: '1', c1: '2', c2: '3' }).toString(),
    });
    expect(answered.status).toBe(200);
    const record = (await api.get(`/v1/asks/${id}`)).body;
    expect(record.result).toMatchObject({
      status: 'answered',
      answers: { q0: ['Option 0.1'], q1: ['Option 1.2'], q2: ['Option 2.3'] },
      answeredBy: { channel: 'telegram', userId: String(user.id) },
    });
    await eventually(async () => (await api.get(`/v1/asks/${id}`)).body.deliveries[0].finalized === 'done');
    expect(visible(fake, ref).text).toContain('Answered');
    expect(urlButtons(ref)).toEqual([]);
  });

  it('a message in a group for one named person carries no link: the whole group would see it', async () => {
    const user = newUser(fake, 'Dan');
    fake.addGroup(-1001234, 'Ops');
    const { ref } = await ask(user, {
      questions: long,
      to: { channel: 'telegram', chat: '-1001234', users: [String(user.id)] },
    });
    expect(urlButtons(ref)).toEqual([]);
  });

  it('a conversation that names no one gets a link for the conversation (anyone there may answer)', async () => {
    const user = newUser(fake, 'Eve');
    const { id, ref } = await ask(user, { questions: long, to: { channel: 'telegram', chat: String(user.id) } });
    const [open] = urlButtons(ref);
    expect(open).toBeDefined();
    const html = await (await fetch(app.url + open!.url.slice(PUBLIC.length))).text();
    expect(html).toContain(`Answering as ${user.id}`);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
  });

  it('a message for several named people carries no link (one message cannot hold one per person)', async () => {
    const user = newUser(fake, 'Cid');
    const { ref } = await ask(user, {
      questions: long,
      to: { channel: 'telegram', chat: String(user.id), users: [String(user.id), '777'] },
    });
    expect(urlButtons(ref)).toEqual([]);
  });
});
