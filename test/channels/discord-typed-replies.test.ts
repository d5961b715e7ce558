import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { FakeDiscord } from '../fakes/discord-api.js';
import { user, type ApiMessage, type ApiUser } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { visibleText } from '../../src/channels/discord/render.js';
import type { RunningAskgate } from '../../src/main.js';

// Typed questions answered by a reply on Discord (a message replying to the question): read by
// core's parseReply in the person's language. A Discord message carries no language, so the
// person's is the one their client sent with their last tap or modal (else the ask's).

const quiet = { info() {}, warn() {}, error() {} };
const american = user('711111111111111111', 'ameri', 'Ameri');
const british = user('722222222222222222', 'brit', 'Brit');
const stranger = user('733333333333333333', 'stranger', null);
const when = { id: 'day', kind: 'date', question: 'Which day?' };

let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  fake.clientLocales.set(american.id, 'en-US');
  fake.clientLocales.set(british.id, 'en-GB');
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

async function ask(questions: object[]): Promise<{ id: string; msg: ApiMessage }> {
  const { body } = await api.post('/v1/asks', {
    runId: `typed-replies-${++run}`,
    to: { channel: 'discord', chat },
    timeZone: 'Europe/London',
    questions,
  });
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

const answerButton = (m: ApiMessage) =>
  (m.components as { components: { label: string; custom_id: string }[] }[])
    .flatMap((r) => r.components)
    .find((b) => b.label === 'Answer')!.custom_id;

/** The person taps Answer (their client sends its language), closes the modal, and replies instead. */
async function tapThenClose(msg: ApiMessage, who: ApiUser): Promise<void> {
  const tap = fake.tap(msg.id, answerButton(msg), who);
  await eventually(async () => tap.ackType !== undefined);
}

/** askgate's reply to message `id`. */
const replyTo = (id: string) =>
  eventually(async () =>
    [...fake.messages.values()].find(
      (m) => m.author.id === fake.bot.id && (m.message_reference as { message_id?: string })?.message_id === id,
    ),
  );

describe('typed replies on Discord', () => {
  it('"12/08/2026" is December 8 from an en-US client, August 12 from an en-GB one', async () => {
    const us = await ask([when]);
    await tapThenClose(us.msg, american);
    fake.say(chat, american, '12/08/2026', { replyTo: us.msg.id });
    const gb = await ask([when]);
    await tapThenClose(gb.msg, british);
    fake.say(chat, british, '12/08/2026', { replyTo: gb.msg.id });
    const [a, b] = [
      (await api.get(`/v1/asks/${us.id}?wait=5`)).body.result,
      (await api.get(`/v1/asks/${gb.id}?wait=5`)).body.result,
    ];
    expect(a).toMatchObject({ status: 'answered', values: { day: '2026-12-08' } });
    expect(b).toMatchObject({ status: 'answered', values: { day: '2026-08-12' } });
  });

  it('a person whose client never said its language is read in the ask’s (English: month first)', async () => {
    const { id, msg } = await ask([when]);
    fake.say(chat, stranger, '12/08/2026', { replyTo: msg.id });
    expect((await api.get(`/v1/asks/${id}?wait=5`)).body.result).toMatchObject({ values: { day: '2026-12-08' } });
  });

  it('a refused reply keeps the ask pending, replies with the repair hint and notes reply_rejected (never the text)', async () => {
    const replicas = { id: 'n', kind: 'number', question: 'How many replicas?', min: 1, max: 10, integer: true };
    const { id, msg } = await ask([replicas]);
    const mine = fake.say(chat, american, 'a dozen-ish zq', { replyTo: msg.id });
    const hint = visibleText((await replyTo(mine)).content);
    expect(hint).toBe(
      'I could not read that answer. Please answer with a whole number between 1 and 10, for example 10. Nothing has been done yet.',
    );
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    const { events } = (await api.get(`/v1/asks/${id}/events`)).body;
    const rejected = events.filter((e: { type: string }) => e.type === 'reply_rejected');
    expect(rejected).toEqual([expect.objectContaining({ questions: ['n'], reason: 'format', userId: american.id })]);
    expect(JSON.stringify(events)).not.toContain('zq');
    // A reply to the hint is read for the same ask (the hint is bound to it): out of range, told again.
    const hintMessage = await replyTo(mine);
    const over = await replyTo(fake.say(chat, american, '12', { replyTo: hintMessage.id }));
    expect(visibleText(over.content)).toContain('That answer is outside the allowed range.');
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    fake.say(chat, american, '3', { replyTo: msg.id });
    expect((await api.get(`/v1/asks/${id}?wait=5`)).body.result).toMatchObject({ values: { n: 3 } });
  });
});
