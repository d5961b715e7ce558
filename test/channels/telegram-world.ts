import { FakeTelegramApi, type FakeUser, type StoredMessage } from '../fakes/telegram-api.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import type { Logger } from '../../src/core/ports.js';
import type { MessageRef } from '../../src/core/schemas.js';
import { client, eventually } from '../helpers/http.js';

/** A logger that keeps its lines (tests check that no token or answer text is logged). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (obj: object, msg?: string) => void lines.push(JSON.stringify({ level, ...obj, msg }));
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

/** A Telegram channel pointed at a fake, with test-friendly pacing, polling and update lease (1 s). */
export function channelFor(
  fake: FakeTelegramApi,
  logger: Logger,
  extra: { webhookUrl?: string; webhookSecret?: string; updateLeaseMs?: number; minSendIntervalMs?: number } = {},
): TelegramChannel {
  return new TelegramChannel({
    token: fake.token,
    apiRoot: fake.url,
    logger,
    minSendIntervalMs: 50,
    pollTimeoutSeconds: 1,
    updateLeaseMs: 1000,
    ...extra,
  });
}

let nextUserId = 10_000;
/** A fresh user with a private chat, so tests do not share conversations. */
export function newUser(fake: FakeTelegramApi, first: string, username?: string, last?: string): FakeUser {
  return fake.addUser(++nextUserId, first, { ...(username ? { username } : {}), ...(last ? { last_name: last } : {}) });
}

/** Waits until the ask's delivery is sent and returns where its message lives. */
export async function deliveredRef(api: ReturnType<typeof client>, askId: string, ms = 10_000): Promise<MessageRef> {
  return eventually(async () => {
    const r = await api.get(`/v1/asks/${askId}`);
    return r.body.deliveries?.[0]?.status === 'sent' ? (r.body.deliveries[0].message as MessageRef) : undefined;
  }, ms);
}

/** The message's visible text and buttons. */
export function visible(
  fake: FakeTelegramApi,
  ref: MessageRef,
): { text: string; buttons: { label: string; data: string }[]; message: StoredMessage } {
  const message = fake.message(ref.chat, ref.messageId)!;
  const rows =
    message.reply_markup && 'inline_keyboard' in message.reply_markup ? message.reply_markup.inline_keyboard : [];
  return {
    text: message.text,
    buttons: rows.flat().map((b) => ({ label: b.text, data: b.callback_data ?? '' })),
    message,
  };
}

/** Taps as `user` and returns the toast (empty when the query was answered empty, null when never answered). */
export async function tap(
  fake: FakeTelegramApi,
  ref: MessageRef,
  data: string,
  user: FakeUser,
): Promise<string | null> {
  const answer = await fake.answerOf(fake.tap(ref.chat, ref.messageId, data, user), 4000);
  return answer ? answer.text : null;
}

/** The first bot message in `chat` replying to `messageId`, waiting for it. */
export async function botReply(
  fake: FakeTelegramApi,
  chat: number | string,
  messageId: number,
  ms = 5000,
): Promise<StoredMessage> {
  return eventually(async () => fake.chatMessages(chat).find((m) => m.from.is_bot && m.reply_to === messageId), ms, 10);
}

/** The bot messages in a chat after a given message id. */
export function botMessagesAfter(fake: FakeTelegramApi, chat: number | string, messageId: number): StoredMessage[] {
  return fake.chatMessages(chat).filter((m) => m.from.is_bot && m.message_id > messageId);
}

/** The rows of the message's inline keyboard, as labels. */
export function keyboardRows(fake: FakeTelegramApi, ref: MessageRef): string[][] {
  const m = fake.message(ref.chat, ref.messageId)!;
  const rows = m.reply_markup && 'inline_keyboard' in m.reply_markup ? m.reply_markup.inline_keyboard : [];
  return rows.map((row) => row.map((b) => b.text));
}

/** The message as a text mock-up: its text, then each keyboard row as `[ label ] [ label ]`. */
export function mockup(fake: FakeTelegramApi, ref: MessageRef): string {
  const rows = keyboardRows(fake, ref).map((row) => row.map((label) => `[ ${label} ]`).join(' '));
  const message = fake.message(ref.chat, ref.messageId)!;
  return [withoutDeadline(message), ...(rows.length > 0 ? ['', ...rows] : [])].join('\n');
}

/**
 * A message's text without its deadline paragraph (the one holding a `date_time` entity): its time
 * is the run's own, and each reader's client shows it in their zone, so the docs' mockups leave it out.
 */
export function withoutDeadline(message: StoredMessage): string {
  const entity = (message.entities ?? []).find((e) => e.type === 'date_time');
  if (!entity) return message.text;
  const start = message.text.lastIndexOf('\n\n', entity.offset);
  const end = message.text.indexOf('\n\n', entity.offset + entity.length);
  return message.text.slice(0, start) + (end < 0 ? '' : message.text.slice(end));
}

/** Taps the button labelled `label` (waiting until the keyboard shows it) and returns the toast. */
export async function tapLabel(
  fake: FakeTelegramApi,
  ref: MessageRef,
  label: string,
  user: FakeUser,
): Promise<string | null> {
  const button = await eventually(async () => visible(fake, ref).buttons.find((b) => b.label === label), 5000, 10);
  return tap(fake, ref, button.data, user);
}

/** Waits until the keyboard has a button labelled `label`. */
export async function showsButton(fake: FakeTelegramApi, ref: MessageRef, label: string): Promise<void> {
  await eventually(async () => visible(fake, ref).buttons.some((b) => b.label === label) || undefined, 5000, 10);
}
