import type { MessageRef } from '../../src/core/schemas.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  botMessagesAfter,
  botReply,
  channelFor,
  deliveredRef,
  memoryLogger,
  newUser,
  tap,
  visible,
} from './telegram-world.js';
import { OWN_WORDS_PROMPT } from '../../src/channels/telegram/inbound.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const logger = memoryLogger();
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channelFor(fake, logger)]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

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
const multi = [several[1]!];

/** Asks `user` in their private chat (or `chat`) and waits for the delivery. */
async function ask(user: FakeUser | null, extra: Record<string, unknown> = {}, chat?: number) {
  const to = extra.to ?? {
    channel: 'telegram',
    chat: String(chat ?? user!.id),
    ...(user && chat === undefined ? { users: [String(user.id)] } : {}),
  };
  const { status, body } = await api.post('/v1/asks', askBody(`tg-run-${++run}`, { to, timeoutSeconds: 60, ...extra }));
  expect(status).toBe(201);
  return { id: body.id as string, runId: body.runId as string, ref: await deliveredRef(api, body.id) };
}
const get = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const settled = (id: string) => eventually(async () => ((await get(id)).status !== 'pending' ? get(id) : undefined));
const finalized = (id: string) =>
  eventually(async () => ((await get(id)).deliveries[0].finalized === 'done' ? get(id) : undefined));

describe('Telegram end to end (grammy → fake Bot API, askgate in-process, private redis-server)', () => {
  it('HTTP ask → buttons → tap → the waiting agent gets the label and the user; the message is edited and its keyboard gone', async () => {
    const alice = newUser(fake, 'Alice', 'alice', 'Liddell');
    const { id, ref } = await ask(alice);
    const shown = visible(fake, ref);
    expect(shown.text).toContain('Where should I deploy?');
    expect(shown.text).toContain('Production — live traffic');
    expect(shown.buttons.map((b) => b.label)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    const waiting = api.get(`/v1/asks/${id}?wait=10`);
    expect(await tap(fake, ref, shown.buttons[0]!.data, alice)).toBe('Answer recorded');
    const { body } = await waiting;
    expect(body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'] },
      answeredBy: { channel: 'telegram', userId: String(alice.id), username: 'alice', name: 'Alice Liddell' },
    });
    await finalized(id);
    const after = visible(fake, ref);
    expect(after.buttons).toEqual([]);
    expect(after.message.reply_markup).toBeUndefined();
    expect(after.text).toContain('Where should I deploy?');
    expect(after.text).toContain('Answered: Staging — by @alice');
    expect(after.text).not.toContain('Tap an option');
  });

  it.each([
    ['2', { env: ['Production'] }],
    ['staging', { env: ['Staging'] }],
    ['my own words', { env: ['my own words'] }],
  ])('a reply "%s" to the question answers it', async (text, answers) => {
    const bob = newUser(fake, 'Bob', 'bob');
    const { id, ref } = await ask(bob);
    fake.say(ref.chat, text, bob, ref.messageId);
    expect((await settled(id)).result).toMatchObject({ status: 'answered', answers });
    const edited = (await finalized(id)) && visible(fake, ref).text;
    if (text === 'my own words') expect(edited).toContain('their own words');
    expect(edited).not.toContain(text === 'my own words' ? text : '\u0000');
  });

  it('"1,3" answers a multi-select question', async () => {
    const u = newUser(fake, 'Multi');
    const { id, ref } = await ask(u, { questions: multi });
    // The toggles of a draft (issue 17) are there; a typed reply answers as before.
    expect(visible(fake, ref).buttons.map((b) => b.label)).toEqual([
      '☐ lint',
      '☐ tests',
      '☐ e2e',
      'Other…',
      'Skip',
      'Submit',
    ]);
    fake.say(ref.chat, '1,3', u, ref.messageId);
    expect((await settled(id)).result.answers).toEqual({ checks: ['lint', 'e2e'] });
  });

  it('several questions are answered by lines in one reply', async () => {
    const u = newUser(fake, 'Lines');
    const { id, ref } = await ask(u, { questions: several });
    fake.say(ref.chat, '2\n1,3', u, ref.messageId);
    expect((await settled(id)).result.answers).toEqual({ env: ['Production'], checks: ['lint', 'e2e'] });
  });

  it('several questions answered by two partial replies: the rest is asked for, and a reply to that prompt completes it', async () => {
    const u = newUser(fake, 'Partial');
    const { id, ref } = await ask(u, { questions: several });
    const first = fake.say(ref.chat, '1: Staging', u, ref.messageId);
    const prompt = await botReply(fake, ref.chat, first.message_id);
    expect(prompt.text).toMatch(/Still open: 2\. Which checks\?/);
    expect((await get(id)).status).toBe('pending');
    fake.say(ref.chat, 'tests', u, prompt.message_id);
    expect((await settled(id)).result.answers).toEqual({ env: ['Staging'], checks: ['tests'] });
  });

  it('"skip" declines: no_answer/skipped, shown in the message', async () => {
    const u = newUser(fake, 'Skipper', 'skipper');
    const { id, ref } = await ask(u);
    fake.say(ref.chat, 'skip', u, ref.messageId);
    expect((await settled(id)).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    await finalized(id);
    expect(visible(fake, ref).text).toContain('Skipped by @skipper');
  });

  it('an out-of-range "9" gets a hint and keeps the ask pending; a reply to the hint then counts', async () => {
    const u = newUser(fake, 'Range');
    const { id, ref } = await ask(u);
    const nine = fake.say(ref.chat, '9', u, ref.messageId);
    const hint = await botReply(fake, ref.chat, nine.message_id);
    expect(hint.text).toMatch(/9/);
    expect((await get(id)).status).toBe('pending');
    fake.say(ref.chat, '1', u, hint.message_id);
    expect((await settled(id)).result.answers).toEqual({ env: ['Staging'] });
  });

  it('in a private chat the next plain message answers the one pending ask', async () => {
    const u = newUser(fake, 'Plain');
    const { id, ref } = await ask(u);
    fake.say(ref.chat, 'production', u);
    expect((await settled(id)).result.answers).toEqual({ env: ['Production'] });
  });

  it('"Other…" asks for own words with a force reply, and the reply to it is recorded', async () => {
    const u = newUser(fake, 'Other');
    const { id, ref } = await ask(u);
    const other = visible(fake, ref).buttons.find((b) => b.label === 'Other…')!;
    expect(await tap(fake, ref, other.data, u)).toBe(OWN_WORDS_PROMPT);
    const prompt = await botReply(fake, ref.chat, Number(ref.messageId));
    expect(prompt.reply_markup).toMatchObject({ force_reply: true });
    fake.say(ref.chat, 'canary first, please', u, prompt.message_id);
    expect((await settled(id)).result.answers).toEqual({ env: ['canary first, please'] });
  });

  it('10 duplicate taps → one answer, one edit; the other taps are told it was already answered', async () => {
    const u = newUser(fake, 'Dup', 'dup');
    const { id, ref } = await ask(u);
    const data = visible(fake, ref).buttons[1]!.data;
    const toasts = await Promise.all(Array.from({ length: 10 }, () => tap(fake, ref, data, u)));
    expect(toasts.filter((t) => t === 'Answer recorded')).toHaveLength(1);
    expect(toasts.filter((t) => t === 'This question was already answered by @dup')).toHaveLength(9);
    expect((await settled(id)).result.answers).toEqual({ env: ['Production'] });
    await finalized(id);
    const edits = fake
      .callsOf('editMessageText')
      .filter((c) => c.ok && String(c.params.chat_id) === ref.chat && String(c.params.message_id) === ref.messageId);
    expect(edits).toHaveLength(1);
  });

  it('a tap on a superseded ask or an expired ask → the honest toast, nothing changes', async () => {
    const u = newUser(fake, 'Stale');
    const old = await ask(u);
    const oldData = visible(fake, old.ref).buttons[0]!.data;
    const { body: newer } = await api.post(
      '/v1/asks',
      askBody(old.runId, { to: { channel: 'telegram', chat: String(u.id) }, timeoutSeconds: 60 }),
    );
    await deliveredRef(api, newer.id);
    expect(await tap(fake, old.ref, oldData, u)).toBe('This question was replaced by a newer one');
    expect((await get(old.id)).result).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    expect((await get(newer.id)).status).toBe('pending');

    const short = await ask(newUser(fake, 'Late'), { timeoutSeconds: 1 });
    const data = visible(fake, short.ref).buttons[0]!.data;
    await settled(short.id);
    const toast = await tap(fake, short.ref, data, u);
    expect(toast).toMatch(/^This question expired at \d\d:\d\d UTC$/);
    expect((await get(short.id)).result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
  });

  it('forged callback_data (random bytes, another ask, a wrong version) is rejected and changes nothing', async () => {
    const u = newUser(fake, 'Target');
    const other = newUser(fake, 'Other');
    const mine = await ask(u);
    const theirs = await ask(other);
    const [askId, version] = visible(fake, mine.ref).buttons[0]!.data.split('.');
    const forged = [
      randomBytes(48).toString('base64'),
      randomBytes(30).toString('latin1'),
      visible(fake, theirs.ref).buttons[0]!.data,
      `${askId}.${Number(version) + 1}.1`,
      `${askId}.${version}.4`,
      `${askId}.0.1`,
    ];
    for (const data of forged) {
      expect(await tap(fake, mine.ref, data, u)).toMatch(/not valid|no longer open/);
    }
    expect((await get(mine.id)).status).toBe('pending');
    expect((await get(theirs.id)).status).toBe('pending');
    expect(visible(fake, mine.ref).buttons).toHaveLength(4);
  });

  it('a tap from someone not in `users` → "this question is for …", still pending; the addressee can answer', async () => {
    const group = fake.addGroup(-1_000_000_001, 'ops');
    const alice = newUser(fake, 'Ann', 'ann');
    const mallory = newUser(fake, 'Mallory', 'mallory');
    const { id, ref } = await ask(null, {
      to: { channel: 'telegram', chat: String(group.id), users: [String(alice.id)] },
    });
    const data = visible(fake, ref).buttons[0]!.data;
    expect(await tap(fake, ref, data, mallory)).toBe(`This question is for ${alice.id}`);
    const reply = fake.say(group.id, '2', mallory, ref.messageId);
    expect((await botReply(fake, group.id, reply.message_id)).text).toBe(`This question is for ${alice.id}`);
    expect((await get(id)).status).toBe('pending');
    expect(await tap(fake, ref, data, alice)).toBe('Answer recorded');
    expect((await settled(id)).result.answeredBy.userId).toBe(String(alice.id));
  });

  it("an ask in two groups with their own `users`: a tap in the wrong group is refused naming that group's users only", async () => {
    const ops = fake.addGroup(-1_000_000_011, 'ops');
    const dev = fake.addGroup(-1_000_000_012, 'dev');
    const olga = newUser(fake, 'Olga', 'olga');
    const dan = newUser(fake, 'Dan', 'dan');
    const { id } = await ask(null, {
      to: [
        { channel: 'telegram', chat: String(ops.id), users: [String(olga.id)] },
        { channel: 'telegram', chat: String(dev.id), users: [String(dan.id)] },
      ],
    });
    const inDev = await eventually(async () => {
      const d = (await get(id)).deliveries[1];
      return d?.status === 'sent' ? (d.message as MessageRef) : undefined;
    });
    // Olga may answer in ops, not in dev: the notice names dev's users, not the first target's.
    const data = visible(fake, inDev).buttons[0]!.data;
    expect(await tap(fake, inDev, data, olga)).toBe(`This question is for ${dan.id}`);
    expect((await get(id)).status).toBe('pending');
    expect(await tap(fake, inDev, data, dan)).toBe('Answer recorded');
  });

  it('group chat: a plain message is ignored, a reply to the question is accepted', async () => {
    const group = fake.addGroup(-1_000_000_002, 'team');
    const carol = newUser(fake, 'Carol', 'carol');
    const { id, ref } = await ask(null, {}, group.id);
    const plain = fake.say(group.id, '2', carol);
    await new Promise((r) => setTimeout(r, 400));
    expect((await get(id)).status).toBe('pending');
    expect(botMessagesAfter(fake, group.id, plain.message_id)).toEqual([]);
    fake.say(group.id, '2', carol, ref.messageId);
    expect((await settled(id)).result).toMatchObject({
      answers: { env: ['Production'] },
      answeredBy: { username: 'carol' },
    });
  });

  it('never logs the token or answer text, and sends no parse_mode', () => {
    const all = logger.lines.join('\n');
    expect(all).not.toContain(fake.token.split(':')[1]);
    expect(all).not.toContain('canary first');
    expect(fake.callsOf('sendMessage').every((c) => c.params.parse_mode === undefined)).toBe(true);
  });
});
