import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { SlackChannel } from '../../src/channels/slack/slack-channel.js';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { createLogger } from '../../src/logger.js';
import type { RunningAskgate } from '../../src/main.js';
import { parseStoredAsk } from '../../src/store/ask-doc.js';
import { StoreKeys } from '../../src/store/keys.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import type { ApiMessage, ApiUser } from '../fakes/discord-payloads.js';
import { FakeSlackApi, type FakeMessage } from '../fakes/slack-api.js';
import { SlackInjector } from '../fakes/slack-events.js';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';

/** Slack's signing secret and Telegram's webhook secret of the world. */
export const SLACK_SECRET = 'security-signing-secret';
export const TG_SECRET = 'tg_webhook_secret-0123456789';

/** A stored ask as Redis holds it: the CAS revision, the status and the JSON document. */
export interface RawAsk {
  rev: string;
  status: string;
  doc: string;
}

/**
 * One askgate (in-process, private redis-server) with all three platforms on their fakes:
 * Telegram in webhook mode (secret checked), Slack in HTTP mode (v0 signatures), Discord over
 * the gateway. Used by the security tests.
 */
export interface SecurityWorld {
  redis: TestRedis;
  app: RunningAskgate;
  api: ReturnType<typeof client>;
  logLines: string[];
  tg: FakeTelegramApi;
  slack: FakeSlackApi;
  slackIn: SlackInjector;
  discord: FakeDiscord;
  /** Two Discord text channels (an ask in one, a replay from the other). */
  discordChats: [string, string];
  /** The stored form of an ask, read straight from Redis. */
  raw(askId: string): Promise<RawAsk>;
  /** Every ask's raw state, for "nothing changed" checks. */
  snapshot(askIds: string[]): Promise<RawAsk[]>;
  close(): Promise<void>;
}

let seq = 0;
/** A unique run id. */
export const runId = (tag: string) => `sec-${tag}-${++seq}-${Date.now().toString(36)}`;

/** Starts the world. */
export async function startSecurityWorld(): Promise<SecurityWorld> {
  const redis = await startRedis();
  const [tg, slack, discord] = await Promise.all([FakeTelegramApi.start(), FakeSlackApi.start(), FakeDiscord.start()]);
  const discordChats: [string, string] = [discord.addTextChannel(), discord.addTextChannel()];
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const port = await freePort();
  const env = testEnv({ REDIS_URL: redis.url, PORT: String(port) });
  const channels = [
    new TelegramChannel({
      token: tg.token,
      apiRoot: tg.url,
      logger,
      minSendIntervalMs: 20,
      webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
      webhookSecret: TG_SECRET,
    }),
    new SlackChannel({ token: slack.token, signingSecret: SLACK_SECRET, apiUrl: `${slack.url}/api/`, logger }),
    new DiscordChannel({ token: discord.token, apiUrl: discord.apiUrl, logger }),
  ];
  const app = await startTestApp(env, channels);
  const conn = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const keys = new StoreKeys(env.ASKGATE_KEY_PREFIX);
  const raw = async (askId: string): Promise<RawAsk> => {
    const runOf = await conn.get(keys.idMap(askId));
    const value = runOf ? await conn.get(keys.ask(runOf, askId)) : null;
    if (!runOf || value === null) return { rev: '', status: '', doc: '' };
    // The stored form is `<rev> <status> <compact JSON>`; doc is the whole record it decodes to.
    const [rev = '', status = ''] = value.split(' ', 2);
    const record = parseStoredAsk(value, keys.ask(runOf, askId), { id: askId, runId: runOf });
    return { rev, status, doc: JSON.stringify(record) };
  };
  return {
    redis,
    app,
    api: client(app.url),
    logLines,
    tg,
    slack,
    slackIn: new SlackInjector(`${app.url}/slack/events`, SLACK_SECRET, slack),
    discord,
    discordChats,
    raw,
    snapshot: (ids) => Promise.all(ids.map(raw)),
    async close() {
      await app.close();
      await Promise.all([tg.close(), slack.close(), discord.close()]);
      conn.disconnect();
      await redis.dispose();
    },
  };
}

/** Creates an ask and waits until its message is out; returns the ask id and the message ref. */
export async function askAndDeliver(
  w: SecurityWorld,
  to: object,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; runId: string; chat: string; messageId: string }> {
  const body = {
    runId: runId('ask'),
    to,
    timeoutSeconds: 120,
    questions: [
      {
        id: 'env',
        header: 'Deploy',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging' }, { label: 'Production' }],
      },
    ],
    ...extra,
  };
  const res = await w.api.post('/v1/asks', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const message = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return (
      r.body.deliveries?.[0]?.status === 'sent' && (r.body.deliveries[0].message as { chat: string; messageId: string })
    );
  });
  return { id: res.body.id, runId: body.runId, chat: message.chat, messageId: message.messageId };
}

/**
 * Asserts that `after` is `before` except for audit notes: a refused tap or reply may append a
 * `reply_rejected` entry (who and why, never the text) to the history, nothing else.
 */
export function expectOnlyNotes(
  before: RawAsk,
  after: RawAsk,
  reasons: string[] = ['forbidden', 'already_resolved', 'expired'],
): void {
  const strip = (raw: RawAsk) => {
    const { history: _h, rev: _r, ...rest } = JSON.parse(raw.doc) as Record<string, unknown>;
    return { status: raw.status, ...rest };
  };
  expect(strip(after)).toEqual(strip(before));
  const prior = (JSON.parse(before.doc) as { history: unknown[] }).history.length;
  const added = (JSON.parse(after.doc) as { history: Record<string, unknown>[] }).history.slice(prior);
  for (const entry of added) {
    expect(Object.keys(entry).sort()).toEqual(['at', 'channel', 'reason', 'type', 'userId']);
    expect(entry.type).toBe('reply_rejected');
    expect(reasons).toContain(entry.reason);
  }
}

/** Waits until the ask is resolved and its message edited (no more commits are due), then returns its raw state. */
export async function settled(w: SecurityWorld, askId: string): Promise<RawAsk> {
  await eventually(async () => {
    const r = (await w.api.get(`/v1/asks/${askId}`)).body;
    return (
      r.status !== 'pending' &&
      r.deliveries.every((d: { finalized: string; status: string }) => d.status !== 'sent' || d.finalized === 'done')
    );
  });
  return w.raw(askId);
}

/** A fresh Telegram user with a private chat. */
let tgUser = 40_000;
export const newTgUser = (w: SecurityWorld, name: string): FakeUser =>
  w.tg.addUser(++tgUser, name, { username: name.toLowerCase() });

/** Telegram: the buttons' callback data of a message. */
export function tgButtons(w: SecurityWorld, chat: string, messageId: string): string[] {
  const m = w.tg.message(chat, messageId)!;
  const rows = m.reply_markup && 'inline_keyboard' in m.reply_markup ? m.reply_markup.inline_keyboard : [];
  return rows.flat().map((b) => b.callback_data ?? '');
}

/** Telegram: taps `data` on a message as `user`; resolves with the toast, or null when never answered. */
export async function tgTap(
  w: SecurityWorld,
  chat: string,
  messageId: string,
  data: string,
  user: FakeUser,
): Promise<string | null> {
  const answer = await w.tg.answerOf(w.tg.tap(chat, messageId, data, user), 4000);
  return answer ? answer.text : null;
}

/** Slack: the stored message of a delivery. */
export const slackMessage = (w: SecurityWorld, chat: string, messageId: string): FakeMessage =>
  w.slack.message(chat, messageId)!;

/** Slack: the values of the message's buttons. */
export const slackValues = (m: FakeMessage): string[] =>
  m.blocks.flatMap((b: any) => (b.type === 'actions' ? b.elements : [])).map((e: any) => e.value as string);

/** Discord: the stored message and its buttons' custom ids. */
export function discordButtons(w: SecurityWorld, messageId: string): { msg: ApiMessage; ids: string[] } {
  const msg = w.discord.messages.get(messageId)!;
  const ids = (msg.components as { components: { custom_id: string }[] }[]).flatMap((r) =>
    r.components.map((c) => c.custom_id),
  );
  return { msg, ids };
}

/** Discord: dispatches a tap and waits for askgate's ephemeral follow-up (null when none came). */
export async function discordTap(
  w: SecurityWorld,
  messageId: string,
  customId: string,
  user: ApiUser,
  interactionId?: string,
): Promise<string | null> {
  const before = interactionId ? (w.discord.interactions.get(interactionId)?.followUps.length ?? 0) : 0;
  const tap = w.discord.tap(messageId, customId, user, interactionId);
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    if (tap.followUps.length > before) return tap.followUps.at(-1)!.content;
    await new Promise((r) => setTimeout(r, 10));
  }
  return null;
}
