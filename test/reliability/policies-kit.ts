import { Redis } from 'ioredis';
import type { FakeTelegramApi } from '../fakes/telegram-api.js';
import type { History, HistoryEvent } from './harness/history.js';
import type { Posted } from './harness/telegram-rig.js';
import type { StoredAsk } from './harness/redis-watch.js';

/** The one question of every policy row (three options, buttons on every platform). */
export const QUESTION = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }, { label: 'Canary' }],
};

/** What the policy rows read of a stored record beyond {@link StoredAsk}. */
export interface PolicyRecord extends StoredAsk {
  createdAt: string;
  reminded?: number;
  escalated?: number;
  deliveries: (StoredAsk['deliveries'][number] & { step?: number; reminded?: number; users?: string[] })[];
  history: { type: string; at: string; reason?: string; detail?: string }[];
}

type Api = { post: (p: string, b?: unknown, h?: Record<string, string>) => Promise<{ status: number; body: any }> };

/**
 * Creates an ask with policy fields through `POST /v1/asks` like a careful agent (Idempotency-Key,
 * retries while askgate answers 503 or is down) and records the `create` event the checker needs.
 */
export async function policyAsk(
  api: () => Api,
  history: History,
  body: Record<string, unknown> & { runId: string; timeoutSeconds: number },
  meta: { platform: string; users?: string[]; row?: string; extra?: Record<string, unknown> },
): Promise<{ askId: string; expiresAt: string; createdAt: number }> {
  const full = { questions: [QUESTION], ...body };
  let res: { status: number; body: any } = { status: 0, body: null };
  for (let i = 0; i < 60; i++) {
    res = await api()
      .post('/v1/asks', full, { 'idempotency-key': body.runId })
      .catch(() => ({ status: 0, body: null }));
    if (res.status === 201 || res.status === 200 || (res.status >= 400 && res.status < 500)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  history.inject('create', {
    askId: res.body.id,
    runId: body.runId,
    version: res.body.version,
    platform: meta.platform,
    data: {
      timeoutSeconds: body.timeoutSeconds,
      expiresAt: res.body.expiresAt,
      ...(meta.users ? { users: meta.users } : {}),
      ...meta.extra,
    },
    ...(meta.row ? { row: meta.row } : {}),
  });
  return {
    askId: res.body.id,
    expiresAt: res.body.expiresAt,
    createdAt: Date.parse(res.body.expiresAt) - body.timeoutSeconds * 1000,
  };
}

/** Delivery `index` of a record as a tappable Telegram message, or null while it is not sent. */
export function telegramPostedAt(fake: FakeTelegramApi, record: PolicyRecord | null, index: number): Posted | null {
  const d = record?.deliveries[index];
  if (!record || d?.status !== 'sent' || !d.message) return null;
  const stored = fake.message(d.message.chat, d.message.messageId);
  if (!stored) return null;
  const rows =
    stored.reply_markup && 'inline_keyboard' in stored.reply_markup ? stored.reply_markup.inline_keyboard : [];
  const buttons = new Map(rows.flat().map((b) => [b.text, b.callback_data ?? ''] as const));
  return { askId: record.id, chat: d.message.chat, messageId: d.message.messageId, buttons };
}

/** The bot's question messages in a Telegram chat (its messages that are not replies; a chat used by one ask only). */
export function questionMessages(fake: FakeTelegramApi, chat: string): number {
  return fake.chatMessages(chat).filter((m) => m.from.is_bot && m.reply_to === undefined).length;
}

/** The bot's reminder messages in a Telegram chat (replies to the question that start with "Reminder"). */
export function reminderMessages(fake: FakeTelegramApi, chat: string): { text: string; replyTo: number }[] {
  return fake
    .chatMessages(chat)
    .filter((m) => m.from.is_bot && m.reply_to !== undefined && /^Reminder/.test(m.text))
    .map((m) => ({ text: m.text, replyTo: m.reply_to! }));
}

/** Count of history entries of `type` in a record. */
export const historyCount = (record: PolicyRecord | null | undefined, type: string): number =>
  record?.history.filter((h) => h.type === type).length ?? 0;

/**
 * A subscriber to askgate's `<prefix>:history` announcements (`"<askId> <runId>"`, one per
 * commit): crash triggers that must land right after a particular commit listen here.
 */
export async function historyFeed(
  url: string,
  prefix: string,
): Promise<{ on: Set<(askId: string) => void>; close: () => void }> {
  const sub = new Redis(url, { retryStrategy: () => 100 });
  sub.on('error', () => {});
  const on = new Set<(askId: string) => void>();
  sub.on('message', (_c: string, message: string) => {
    const askId = message.split(' ')[0]!;
    for (const f of on) f(askId);
  });
  await sub.subscribe(`${prefix}:history`);
  return { on, close: () => sub.disconnect() };
}

/** Waits until `probe` holds (polling), or throws `what` after `ms`. */
export async function until(probe: () => Promise<boolean>, ms: number, what: string, everyMs = 100): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

/** Kill events of a history (wall clock). */
export const killTimes = (events: readonly HistoryEvent[]): number[] =>
  events.filter((e) => e.type === 'kill').map((e) => e.wall);
