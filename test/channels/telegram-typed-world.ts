// What the Telegram typed-question tests share (issue 35): one askgate on a real Redis with the
// Telegram channel against the fake Bot API, asks to a chat, and the force-reply prompts of a draft.
import { afterAll, beforeAll, expect } from 'vitest';
import { FakeTelegramApi, type FakeUser, type StoredMessage } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { channelFor, deliveredRef, memoryLogger, tapLabel } from './telegram-world.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

/** The running world of one test file (set in beforeAll). */
export interface TypedWorld {
  fake: FakeTelegramApi;
  app: RunningAskgate;
  api: ReturnType<typeof client>;
  logger: ReturnType<typeof memoryLogger>;
}

let nextUser = 90_000;

/** Starts Redis, the fake Bot API and askgate for the file; `world()` reads them once started. */
export function typedWorld(): () => TypedWorld {
  let redis: TestRedis;
  let world: TypedWorld | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    const fake = await FakeTelegramApi.start();
    const logger = memoryLogger();
    const app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channelFor(fake, logger)]);
    world = { fake, app, api: client(app.url), logger };
  });
  afterAll(async () => {
    await world?.app.close();
    await world?.fake.close();
    await redis?.dispose();
  });
  return () => world!;
}

/** A person with a private chat; `language`: their Telegram app's (`from.language_code`). */
export function person(fake: FakeTelegramApi, first: string, language?: string): FakeUser {
  const id = ++nextUser;
  return fake.addUser(id, first, {
    username: `${first.toLowerCase()}_${id}`,
    ...(language ? { language_code: language } : {}),
  });
}

/** Creates an ask to `chat` (default: the person's private chat) and waits for its message. */
export async function askTo(
  w: TypedWorld,
  chat: number,
  questions: unknown[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; ref: MessageRef }> {
  const to = { channel: 'telegram', chat: String(chat) };
  const { status, body } = await w.api.post(
    '/v1/asks',
    askBody(`tgt-${chat}-${Date.now()}`, { to, questions, timeoutSeconds: 60, ...extra }),
  );
  expect(status).toBe(201);
  return { id: body.id as string, ref: await deliveredRef(w.api, body.id) };
}

/** The ask as the API shows it. */
export const getAsk = async (w: TypedWorld, id: string) => (await w.api.get(`/v1/asks/${id}`)).body;

/** Waits until the ask's message was edited to its outcome. */
export const finalized = (w: TypedWorld, id: string) =>
  eventually(async () => ((await getAsk(w, id)).deliveries[0].finalized === 'done' ? getAsk(w, id) : undefined));

/** The next bot message in `chat` after the first `count` whose markup asks for a reply (a force-reply prompt). */
export function promptAfter(fake: FakeTelegramApi, chat: string | number, count: number): Promise<StoredMessage> {
  return eventually(
    async () =>
      fake
        .chatMessages(chat)
        .slice(count)
        .find((m) => m.from.is_bot && !!m.reply_markup && 'force_reply' in m.reply_markup),
    5000,
    10,
  );
}

/** Taps a typed step's ✎ Answer (or `label`) and returns the force-reply prompt it sends. */
export async function openStep(
  fake: FakeTelegramApi,
  ref: MessageRef,
  user: FakeUser,
  label = '✎ Answer',
): Promise<StoredMessage> {
  const count = fake.chatMessages(ref.chat).length;
  expect(await tapLabel(fake, ref, label, user)).toBe('');
  return promptAfter(fake, ref.chat, count);
}

/** Replies `text` to a prompt and returns the next force-reply prompt (the next step's, or a repair). */
export async function replyTo(
  fake: FakeTelegramApi,
  prompt: StoredMessage,
  user: FakeUser,
  text: string,
): Promise<StoredMessage> {
  const count = fake.chatMessages(prompt.chat.id).length;
  fake.say(prompt.chat.id, text, user, prompt.message_id);
  return promptAfter(fake, prompt.chat.id, count + 1);
}

/** The placeholder of a force-reply prompt. */
export function placeholderOf(prompt: StoredMessage): string | undefined {
  const markup = prompt.reply_markup;
  return markup && 'force_reply' in markup ? markup.input_field_placeholder : undefined;
}

/** Today's date plus `days` on the clocks of `timeZone`, as YYYY-MM-DD. */
export function dayIn(timeZone: string, days: number): string {
  const [y, m, d] = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .format(new Date())
    .split('-')
    .map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}
