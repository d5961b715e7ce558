// End to end: an async ask's message shows its deadline, and POST /v1/asks/:id/extend edits every
// delivered message to show the new one (the `refresh` job) — on the Telegram and Slack fakes, with
// askgate in-process and a private redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { channelFor, deliveredRef, memoryLogger, newUser } from './telegram-world.js';
import { ask as slackAsk, record, startWorld, type FormsWorld } from './slack-forms-world.js';
import type { RunningAskgate } from '../../src/main.js';

const DAY_S = 86_400;
const LONG = { ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS: String(30 * DAY_S) };
/** A whole-minute time `days` from now, as the API returns it. */
const daysAhead = (days: number) =>
  new Date(Math.ceil(Date.now() / 60_000) * 60_000 + days * DAY_S * 1000).toISOString();
const unixOf = (iso: string) => Math.floor(Date.parse(iso) / 1000);
/** The line askgate writes for `iso` in English, in `timeZone`. */
const lineOf = (iso: string, timeZone: string) =>
  `Open until ${new Intl.DateTimeFormat('en', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  }).format(Date.parse(iso))} (${timeZone})`;

describe('Telegram: the deadline follows an extend', () => {
  let redis: TestRedis;
  let fake: FakeTelegramApi;
  let app: RunningAskgate;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    redis = await startRedis();
    fake = await FakeTelegramApi.start();
    app = await startTestApp(testEnv({ REDIS_URL: redis.url, ...LONG }), [channelFor(fake, memoryLogger())]);
    api = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
    await redis?.dispose();
  });

  it('a 3-day ask shows its time as a date_time entity; extended to 20 days, the message is edited to the new time', async () => {
    const alice = newUser(fake, 'Alice', 'alice_dl');
    const to = { channel: 'telegram', chat: String(alice.id), users: [String(alice.id)] };
    const made = await api.post(
      '/v1/asks',
      askBody('dl-tg', { to, async: true, expiresAt: daysAhead(3), timeZone: 'Europe/Lisbon' }),
    );
    expect(made.status).toBe(201);
    const ref = await deliveredRef(api, made.body.id);
    const first = fake.message(ref.chat, ref.messageId)!;
    const entityOf = (m: typeof first) => (m.entities ?? []).find((e) => e.type === 'date_time') as any;
    expect(first.text).toContain(lineOf(made.body.expiresAt, 'Europe/Lisbon'));
    expect(entityOf(first)).toMatchObject({ unix_time: unixOf(made.body.expiresAt), date_time_format: 'wdt' });

    const until = daysAhead(20);
    const moved = await api.post(`/v1/asks/${made.body.id}/extend`, { expiresAt: until, by: 'ops-lead' });
    expect(moved.status).toBe(200);
    expect(moved.body.expiresAt).toBe(until);
    const edited = await eventually(async () => {
      const m = fake.message(ref.chat, ref.messageId)!;
      return entityOf(m)?.unix_time === unixOf(until) ? m : undefined;
    });
    expect(edited.text).toContain(lineOf(until, 'Europe/Lisbon'));
    expect(edited.text).not.toContain(lineOf(made.body.expiresAt, 'Europe/Lisbon'));
    const entity = entityOf(edited);
    expect(edited.text.slice(entity.offset, entity.offset + entity.length)).toMatch(/\(Europe\/Lisbon\)$/);
    // Still the same message with its buttons: the prompt was re-rendered in place.
    expect(edited.reply_markup).toEqual(first.reply_markup);
  });
});

describe('Slack: the deadline follows an extend', () => {
  let w: FormsWorld;
  beforeAll(async () => {
    w = await startWorld('deadline-secret', LONG);
  });
  afterAll(async () => {
    await w?.close();
  });

  const deadlineBlock = (w: FormsWorld, m: { channel: string; ts: string }) =>
    w.fake.message(m.channel, m.ts)!.blocks.find((b: any) => b.block_id === 'askgate_deadline');

  it('a <!date> token with the ask’s zone as fallback; after an extend the message is updated to the new time', async () => {
    // No zone on the ask: the fallback is UTC.
    const CHOICE = [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }];
    const { id, message } = await slackAsk(w, 'dl-slack', CHOICE);
    const before = await record(w, id);
    const token = (iso: string) =>
      `Open until <!date^${unixOf(iso)}^{date_short_pretty}, {time}|${lineOf(iso, 'UTC').slice('Open until '.length)}>`;
    expect(deadlineBlock(w, message).elements[0].text).toBe(token(before.expiresAt));

    // A blocking ask may not wait for days; it may still be extended within today's bounds.
    const moved = await w.api.post(`/v1/asks/${id}/extend`, { timeoutSeconds: 3000, by: 'ops-lead' });
    expect(moved.status).toBe(200);
    expect(moved.body.expiresAt).not.toBe(before.expiresAt);
    const updated = await eventually(async () => {
      const block = deadlineBlock(w, message);
      return block?.elements[0].text === token(moved.body.expiresAt) ? block : undefined;
    });
    expect(updated.elements[0].text).toContain(`<!date^${unixOf(moved.body.expiresAt)}^`);
    expect(w.fake.message(message.channel, message.ts)!.blocks.some((b: any) => b.type === 'actions')).toBe(true);
  });
});
