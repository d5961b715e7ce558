import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type ApiCall, type FakeUser } from '../fakes/telegram-api.js';
import { NOT_MODIFIED } from '../fakes/telegram-rules.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  channelFor,
  deliveredRef,
  memoryLogger,
  newUser,
  showsButton,
  tap,
  tapLabel,
  visible,
} from './telegram-world.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

/** Whether a Bot API call was about the message `ref` (message ids repeat across chats). */
const onMessage = (c: ApiCall, ref: MessageRef) =>
  String(c.params.chat_id) === ref.chat && String(c.params.message_id) === ref.messageId;

let redis: TestRedis;
let fake: FakeTelegramApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const logger = memoryLogger();
let run = 0;
let nextGroup = -1_001_000;

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

const checks = {
  id: 'checks',
  header: 'Checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
};
const env = {
  id: 'env',
  header: 'Env',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};

async function askIn(chat: number, questions: unknown[], to?: object): Promise<{ id: string; ref: MessageRef }> {
  const target = to ?? { channel: 'telegram', chat: String(chat) };
  const body = askBody(`tgg-${++run}`, { to: target, questions, timeoutSeconds: 60 });
  const created = await api.post('/v1/asks', body);
  expect(created.status).toBe(201);
  return { id: created.body.id as string, ref: await deliveredRef(api, created.body.id) };
}
const get = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const finalized = (id: string) =>
  eventually(async () => ((await get(id)).deliveries[0].finalized === 'done' ? get(id) : undefined));
const dataOf = (ref: MessageRef, label: string) => visible(fake, ref).buttons.find((b) => b.label === label)!.data;

function group(): { chat: number; alice: FakeUser; bob: FakeUser } {
  const chat = --nextGroup;
  fake.addGroup(chat, 'Team');
  return { chat, alice: newUser(fake, 'Alice', `alice${-chat}`), bob: newUser(fake, 'Bob', `bob${-chat}`) };
}

describe('Telegram drafts in a group: one holder, typed replies win, concurrent taps', () => {
  it('the first person holds the draft: another sees "@alice is answering" and their typed reply still wins', async () => {
    const { chat, alice, bob } = group();
    const { id, ref } = await askIn(chat, [checks]);
    expect(await tapLabel(fake, ref, '☐ lint', alice)).toBe('');
    await showsButton(fake, ref, '☑ lint');
    expect(await tapLabel(fake, ref, '☐ tests', bob)).toBe(`@alice${-chat} is answering`);
    expect(await tapLabel(fake, ref, 'Submit', bob)).toBe(`@alice${-chat} is answering`);
    // Skip would end the ask for everyone: it waits for the hold too.
    expect(await tapLabel(fake, ref, 'Skip', bob)).toBe(`@alice${-chat} is answering`);
    expect((await get(id)).status).toBe('pending');
    // Bob answers by reply to the question: the typed answer wins and finalizes the message.
    fake.say(chat, '2,3', bob, ref.messageId);
    const done = await finalized(id);
    expect(done.result).toMatchObject({
      status: 'answered',
      answers: { checks: ['tests', 'e2e'] },
      answeredBy: { userId: String(bob.id) },
    });
    expect(visible(fake, ref).message.reply_markup).toBeUndefined();
    // Alice's draft is gone with the ask: her next tap is told so, and nothing is drawn again.
    const toast = await tap(fake, ref, `${id}.1.t11`, alice);
    expect(toast).toMatch(/already answered/i);
    expect(visible(fake, ref).message.reply_markup).toBeUndefined();
  });

  it('two people tapping at once: one holds the draft, the other is told; a double Submit records once and finalizes once', async () => {
    const { chat, alice, bob } = group();
    const { id, ref } = await askIn(chat, [checks]);
    const a = fake.tap(ref.chat, ref.messageId, dataOf(ref, '☐ lint'), alice);
    const b = fake.tap(ref.chat, ref.messageId, dataOf(ref, '☐ e2e'), bob);
    const toasts = [(await fake.answerOf(a))!.text, (await fake.answerOf(b))!.text].sort();
    expect(toasts[0]).toBe('');
    expect(toasts[1]).toMatch(/^@(alice|bob)\d+ is answering$/);
    // Who won shows on the keyboard: only the holder's toggle is on.
    const shown = await eventually(async () =>
      visible(fake, ref).buttons.find((x) => x.label === '☑ lint' || x.label === '☑ e2e'),
    );
    const winner = shown.label === '☑ lint' ? alice : bob;
    expect(visible(fake, ref).buttons.filter((x) => x.label.startsWith('☑'))).toHaveLength(1);
    const submit = dataOf(ref, 'Submit');
    const s1 = fake.tap(ref.chat, ref.messageId, submit, winner);
    const s2 = fake.tap(ref.chat, ref.messageId, submit, winner);
    const outcomes = [(await fake.answerOf(s1))!.text, (await fake.answerOf(s2))!.text].sort();
    expect(outcomes[0]).toBe('Answer recorded');
    expect(outcomes[1]).toMatch(/already answered/i);
    const done = await finalized(id);
    expect(done.result).toMatchObject({ status: 'answered', answeredBy: { userId: String(winner.id) } });
    expect(done.result.answers.checks).toEqual([winner === alice ? 'lint' : 'e2e']);
    await new Promise((r) => setTimeout(r, 300)); // any second finalize would have landed by now
    const finals = fake.callsOf('editMessageText').filter((c) => c.ok && onMessage(c, ref));
    expect(finals).toHaveLength(1);
  });

  it('forged and stale callback data change nothing', async () => {
    const { chat, alice } = group();
    const { id, ref } = await askIn(chat, [env, checks]);
    const before = visible(fake, ref).buttons.map((b) => b.label);
    for (const [data, toast] of [
      [`${id}.1.t14`, 'This button is not valid'], // option 4 of a question with 3
      [`${id}.1.p21`, 'This button is not valid'], // pick on a multi-select question
      [`${id}.1.t11`, 'This button is not valid'], // toggle on a single-choice question
      [`${id}.1.g9`, 'This button is not valid'], // malformed
      [`${id}.2.t21`, /not found|no longer|not valid/i], // another version of the ask
      ['AAAAAAAAAAAAAA.1.t21', /not found|no longer|not valid/i], // no such ask
      ['__proto__.1.k', 'This button is not valid'],
    ] as const) {
      const got = await tap(fake, ref, data, alice);
      if (typeof toast === 'string') expect(got).toBe(toast);
      else expect(got).toMatch(toast);
    }
    // A real token of this ask tapped on a message in another chat is refused too.
    const other = group();
    const elsewhere = await askIn(other.chat, [checks]);
    expect(await tap(fake, elsewhere.ref, `${id}.1.t21`, other.alice)).toMatch(/not found|no longer|not valid/i);
    // A real draft token claiming a bot message of this chat without the ask's keyboard (the
    // own-words prompt) draws nothing there.
    expect(await tapLabel(fake, ref, 'Other…', alice)).toBe('');
    const prompt = await eventually(async () =>
      fake.chatMessages(chat).find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
    );
    const onPrompt = { chat: ref.chat, messageId: String(prompt.message_id) };
    expect(await tap(fake, onPrompt, `${id}.1.t21`, alice)).toBe('This button is not valid');
    expect(await tap(fake, onPrompt, `${id}.1.g1`, alice)).toBe('This button is not valid');
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.message(chat, prompt.message_id)!.reply_markup).toEqual({
      force_reply: true,
      input_field_placeholder: 'Your answer',
    });
    expect(visible(fake, ref).buttons.map((b) => b.label)).toEqual(before);
    expect((await get(id)).status).toBe('pending');
  });

  it('"message is not modified" is no error, and a 429 on an edit is waited out (retry_after) before the latest keyboard is drawn', async () => {
    const { chat, alice } = group();
    const { ref } = await askIn(chat, [env, checks]);
    // The step row re-draws the same keyboard: Telegram answers "message is not modified".
    expect(await tapLabel(fake, ref, 'Question 1 of 2 · Env', alice)).toBe('');
    const unchanged = await eventually(async () =>
      fake.callsOf('editMessageReplyMarkup').find((c) => onMessage(c, ref) && c.description === NOT_MODIFIED),
    );
    expect(unchanged.ok).toBe(false);
    expect(await tapLabel(fake, ref, 'Production', alice)).toBe('');
    await showsButton(fake, ref, '☐ lint');
    fake.rateLimitNext('editMessageReplyMarkup', 1);
    expect(await tapLabel(fake, ref, '☐ tests', alice)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    const edits = fake.callsOf('editMessageReplyMarkup').filter((c) => onMessage(c, ref));
    const limited = edits.findIndex((c) => c.error_code === 429);
    expect(limited).toBeGreaterThan(-1);
    expect(edits[limited + 1]!.ok).toBe(true);
    expect(edits[limited + 1]!.at - edits[limited]!.at).toBeGreaterThanOrEqual(1000);
    expect(logger.lines.filter((l) => l.includes('draft keyboard not edited'))).toEqual([]);
  });
  it('a keyboard edit that lands after the outcome edit is taken away again (the outcome stays)', async () => {
    const { chat, alice, bob } = group();
    const { id, ref } = await askIn(chat, [checks]);
    fake.delayNext('editMessageReplyMarkup', 600);
    expect(await tapLabel(fake, ref, '☐ lint', alice)).toBe('');
    // While that edit is on its way, Bob's typed answer ends the ask and the message is finalized.
    fake.say(chat, '3', bob, ref.messageId);
    await finalized(id);
    const late = await eventually(async () =>
      fake.callsOf('editMessageReplyMarkup').find((c) => c.ok && onMessage(c, ref) && c.params.reply_markup),
    );
    const final = fake.callsOf('editMessageText').find((c) => c.ok && onMessage(c, ref));
    expect(late.at).toBeGreaterThanOrEqual(final!.at);
    await eventually(async () => (visible(fake, ref).message.reply_markup === undefined ? true : undefined));
    expect(visible(fake, ref).text).toMatch(/Answered: e2e/);
  });
  it('own words: only the holder may give them; given after the ask ended they are refused with the notice', async () => {
    const { chat, alice, bob } = group();
    const { id, ref } = await askIn(chat, [env, checks]);
    expect(await tapLabel(fake, ref, 'Other…', alice)).toBe('');
    const prompt = await eventually(async () =>
      fake
        .chatMessages(chat)
        .find((m) => m.from.is_bot && m.text.includes('Question 1 · Reply with your answer in your own words')),
    );
    const bobs = fake.say(chat, 'not yours', bob, prompt.message_id);
    const told = await eventually(async () =>
      fake.chatMessages(chat).find((m) => m.from.is_bot && m.reply_to === bobs.message_id),
    );
    expect(told.text).toBe(`@alice${-chat} is answering`);
    expect((await get(id)).status).toBe('pending');
    // Bob answers the whole ask by reply to the question; Alice's words then come too late.
    fake.say(chat, '1\n2', bob, ref.messageId);
    expect((await finalized(id)).result).toMatchObject({ answers: { env: ['Staging'], checks: ['tests'] } });
    const late = fake.say(chat, 'my words', alice, prompt.message_id);
    const notice = await eventually(async () =>
      fake.chatMessages(chat).find((m) => m.from.is_bot && m.reply_to === late.message_id),
    );
    expect(notice.text).toMatch(/already answered by @bob/);
    expect((await get(id)).result.answers).toEqual({ env: ['Staging'], checks: ['tests'] });
    for (const m of fake.chatMessages(chat).filter((x) => x.from.is_bot))
      expect(m.text).not.toMatch(/my words|not yours/);
  });
  it('a person the ask is not for is refused before the draft changes, and holds nothing', async () => {
    const { chat, alice, bob } = group();
    const to = { channel: 'telegram', chat: String(chat), users: [String(alice.id)] };
    const { id, ref } = await askIn(chat, [checks], to);
    const before = visible(fake, ref).buttons.map((b) => b.label);
    expect(await tapLabel(fake, ref, '☐ lint', bob)).toBe(`This question is for ${alice.id}`);
    expect(visible(fake, ref).buttons.map((b) => b.label)).toEqual(before);
    // Alice is not held off by Bob's refused tap.
    expect(await tapLabel(fake, ref, '☐ tests', alice)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    expect(await tapLabel(fake, ref, 'Submit', alice)).toBe('Answer recorded');
    expect((await finalized(id)).result.answers).toEqual({ checks: ['tests'] });
  });
});
