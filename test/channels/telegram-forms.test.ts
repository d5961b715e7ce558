import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type ApiCall, type FakeUser } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  botReply,
  channelFor,
  deliveredRef,
  keyboardRows,
  memoryLogger,
  mockup,
  newUser,
  showsButton,
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

/** `n` questions, all single-choice or all multi-select, three options each (A, B, C + the question's number). */
function questions(n: number, multiSelect: boolean) {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i + 1}`,
    header: `H${i + 1}`,
    question: `Question number ${i + 1}?`,
    multiSelect,
    options: ['A', 'B', 'C'].map((l) => ({ label: `${l}${i + 1}` })),
  }));
}

async function ask(user: FakeUser, qs: unknown[]): Promise<{ id: string; ref: MessageRef }> {
  const to = { channel: 'telegram', chat: String(user.id), users: [String(user.id)] };
  const { status, body } = await api.post(
    '/v1/asks',
    askBody(`tgf-${++run}`, { to, questions: qs, timeoutSeconds: 60 }),
  );
  expect(status).toBe(201);
  return { id: body.id as string, ref: await deliveredRef(api, body.id) };
}
const get = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const finalized = (id: string) =>
  eventually(async () => ((await get(id)).deliveries[0].finalized === 'done' ? get(id) : undefined));

/** Gives own words for the step shown: taps Other…, then replies to the force-reply prompt. */
async function ownWords(ref: MessageRef, user: FakeUser, text: string): Promise<void> {
  const before = fake.chatMessages(ref.chat).length;
  expect(await tapLabel(fake, ref, 'Other…', user)).toBe('');
  const prompt = await eventually(async () =>
    fake
      .chatMessages(ref.chat)
      .slice(before)
      .find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
  );
  expect(prompt.reply_markup).toMatchObject({ force_reply: true });
  fake.say(ref.chat, text, user, prompt.message_id);
}

const shapes = [1, 2, 3].flatMap((n) =>
  [false, true].flatMap((multi) => [false, true].map((own) => ({ n, multi, own }))),
);

describe('Telegram forms: every shape answered with taps (and own words by force-reply) through grammy against the fake', () => {
  it.each(shapes)('$n question(s), multiSelect $multi, own words $own', async ({ n, multi, own }) => {
    const user = newUser(fake, `Shape${n}${multi}${own}`, `shape_${n}_${multi ? 'm' : 's'}_${own ? 'o' : 'n'}`);
    const { id, ref } = await ask(user, questions(n, multi));
    const expected: Record<string, string[]> = {};
    if (n === 1 && !multi) {
      // A single single-choice question keeps its buttons (no draft): the option, or Other… and a reply.
      expect(visible(fake, ref).buttons.map((b) => b.label)).toEqual(['A1', 'B1', 'C1', 'Other…', 'Skip']);
      if (own) {
        expect(await tapLabel(fake, ref, 'Other…', user)).toBe('Reply with your answer in your own words');
        const prompt = await botReply(fake, ref.chat, Number(ref.messageId));
        fake.say(ref.chat, 'my own words', user, prompt.message_id);
        expected.q1 = ['my own words'];
      } else {
        expect(await tapLabel(fake, ref, 'B1', user)).toBe('Answer recorded');
        expected.q1 = ['B1'];
      }
    } else {
      for (let i = 0; i < n; i++) {
        const k = i + 1;
        if (n > 1) await showsButton(fake, ref, `Question ${k} of ${n} · H${k}`);
        const last = i === n - 1;
        if (multi) {
          expect(await tapLabel(fake, ref, `☐ A${k}`, user)).toBe('');
          await showsButton(fake, ref, `☑ A${k}`);
          if (own && i === 0) {
            await ownWords(ref, user, `words for ${k}`);
            expected[`q${k}`] = [`A${k}`, `words for ${k}`];
            continue;
          }
          expect(await tapLabel(fake, ref, `☐ C${k}`, user)).toBe('');
          await showsButton(fake, ref, `☑ C${k}`);
          const toast = await tapLabel(fake, ref, last ? 'Submit' : 'Next »', user);
          expect(toast).toBe(last ? 'Answer recorded' : '');
          expected[`q${k}`] = [`A${k}`, `C${k}`];
        } else if (own && i === 0) {
          await ownWords(ref, user, `words for ${k}`);
          expected[`q${k}`] = [`words for ${k}`];
        } else {
          expect(await tapLabel(fake, ref, `B${k}`, user)).toBe(last ? 'Answer recorded' : '');
          expected[`q${k}`] = [`B${k}`];
        }
      }
    }
    const done = await finalized(id);
    expect(done.result).toMatchObject({
      status: 'answered',
      answers: expected,
      answeredBy: { channel: 'telegram', userId: String(user.id) },
    });
    const after = visible(fake, ref);
    expect(after.message.reply_markup).toBeUndefined();
    expect(after.text).toMatch(/Answered/);
    // Own words are never echoed in the chat.
    for (const m of fake.chatMessages(ref.chat).filter((x) => x.from.is_bot)) expect(m.text).not.toContain('words for');
  });

  it('toggles are edited in place (one message, its keyboard only), Back returns to the previous step with its pick kept', async () => {
    const user = newUser(fake, 'Toggler', 'toggler');
    const qs = [questions(1, false)[0]!, { ...questions(2, true)[1]! }];
    const { id, ref } = await ask(user, qs);
    expect(mockup(fake, ref)).toContain('[ Question 1 of 2 · H1 ]');
    expect(visible(fake, ref).text).toContain('Tap to answer, or reply to this message.');
    const textBefore = visible(fake, ref).text;
    expect(await tapLabel(fake, ref, 'A1', user)).toBe('');
    await showsButton(fake, ref, '☐ A2');
    expect(keyboardRows(fake, ref)).toEqual([
      ['Question 2 of 2 · H2'],
      ['☐ A2'],
      ['☐ B2'],
      ['☐ C2'],
      ['Other…', 'Skip'],
      ['« Back', 'Submit'],
    ]);
    await tapLabel(fake, ref, '☐ B2', user);
    await showsButton(fake, ref, '☑ B2');
    await tapLabel(fake, ref, '☑ B2', user);
    await showsButton(fake, ref, '☐ B2');
    await tapLabel(fake, ref, '☐ C2', user);
    await showsButton(fake, ref, '☑ C2');
    await tapLabel(fake, ref, '« Back', user);
    await showsButton(fake, ref, '✓ A1');
    expect(keyboardRows(fake, ref)).toEqual([
      ['Question 1 of 2 · H1'],
      ['✓ A1'],
      ['B1'],
      ['C1'],
      ['Other…', 'Skip'],
      ['Next »'],
    ]);
    await tapLabel(fake, ref, 'Next »', user);
    await showsButton(fake, ref, '☑ C2');
    // Every change was an edit of the question message itself: no new message, text unchanged.
    expect(fake.chatMessages(ref.chat).filter((m) => m.from.is_bot)).toHaveLength(1);
    expect(visible(fake, ref).text).toBe(textBefore);
    const edits = fake.callsOf('editMessageReplyMarkup').filter((c) => onMessage(c, ref));
    expect(edits.length).toBeGreaterThanOrEqual(4);
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Answer recorded');
    expect((await finalized(id)).result.answers).toEqual({ q1: ['A1'], q2: ['C2'] });
  });

  it('a multi-select step submitted with nothing chosen gets the hint and stays open; Skip skips the ask', async () => {
    const user = newUser(fake, 'Empty', 'empty');
    const { id, ref } = await ask(user, questions(1, true));
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Choose an option or write your own answer.');
    expect((await get(id)).status).toBe('pending');
    expect(await tapLabel(fake, ref, 'Skip', user)).toBe('Skip recorded');
    const done = await finalized(id);
    expect(done.result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    expect(visible(fake, ref).message.reply_markup).toBeUndefined();
  });
  it('a prompt whose keyboard cannot fit (labels alike once cut to a button) keeps the text form, and typed replies answer', async () => {
    const user = newUser(fake, 'Long', 'long');
    const stem = 'x'.repeat(90);
    const qs = [
      {
        id: 'pick',
        question: 'Which?',
        multiSelect: true,
        options: [{ label: `${stem} one` }, { label: `${stem} two` }],
      },
    ];
    const { id, ref } = await ask(user, qs);
    const shown = visible(fake, ref);
    expect(shown.message.reply_markup).toBeUndefined();
    expect(shown.text).toContain('Pick several like "1,3".');
    expect(shown.text).not.toContain('Tap to answer');
    fake.say(ref.chat, '1,2', user, ref.messageId);
    expect((await finalized(id)).result.answers).toEqual({ pick: [`${stem} one`, `${stem} two`] });
  });

  it('hostile labels go on the buttons as plain text and are recorded literally', async () => {
    const user = newUser(fake, 'Hostile', 'hostile');
    const labels = ['@everyone <b>x</b>', '*_[x](http://e.vil)_* `c`', 'שלום <@U1> &amp;'];
    const qs = [
      {
        id: 'evil',
        question: 'Pick <b>one</b> @channel',
        multiSelect: true,
        options: labels.map((label) => ({ label })),
      },
    ];
    const { id, ref } = await ask(user, qs);
    expect(visible(fake, ref).message.parse_mode).toBeUndefined();
    expect(await tapLabel(fake, ref, `☐ ${labels[0]}`, user)).toBe('');
    await showsButton(fake, ref, `☑ ${labels[0]}`);
    expect(await tapLabel(fake, ref, `☐ ${labels[1]}`, user)).toBe('');
    await showsButton(fake, ref, `☑ ${labels[1]}`);
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Answer recorded');
    expect((await finalized(id)).result.answers).toEqual({ evil: [labels[0], labels[1]] });
  });

  it('an ask that needs two matching answers: each person submits their own draft (no Skip), the second one decides', async () => {
    const chat = -1_009_001;
    fake.addGroup(chat, 'Pair');
    const [ann, ben] = [newUser(fake, 'Ann', 'ann_pair'), newUser(fake, 'Ben', 'ben_pair')];
    const { status, body } = await api.post(
      '/v1/asks',
      askBody(`tgf-${++run}`, {
        to: { channel: 'telegram', chat: String(chat) },
        questions: questions(1, true),
        agree: 2,
        timeoutSeconds: 60,
      }),
    );
    expect(status).toBe(201);
    const ref = await deliveredRef(api, body.id);
    expect(visible(fake, ref).buttons.map((b) => b.label)).not.toContain('Skip');
    expect(await tapLabel(fake, ref, '☐ B1', ann)).toBe('');
    await showsButton(fake, ref, '☑ B1');
    expect(await tapLabel(fake, ref, 'Submit', ann)).toMatch(/1 of 2/);
    // Ann's submission frees the draft: Ben starts afresh at once, without waiting out the hold.
    await showsButton(fake, ref, '☐ B1');
    expect(await tapLabel(fake, ref, '☐ B1', ben)).toBe('');
    await showsButton(fake, ref, '☑ B1');
    expect(await tapLabel(fake, ref, 'Submit', ben)).toBe('Answer recorded');
    const done = await finalized(body.id);
    expect(done.result).toMatchObject({ status: 'answered', answers: { q1: ['B1'] } });
    expect(visible(fake, ref).message.reply_markup).toBeUndefined();
  });
  it('logs hold neither own words nor the bot token', () => {
    const all = logger.lines.join('\n');
    expect(all).not.toMatch(/words for|my own words/);
    expect(all).not.toContain(fake.token.split(':')[1]!);
  });
  it("an ask in German gets the keyboard's words and the own-words prompt in German", async () => {
    const user = newUser(fake, 'Deutsch', 'deutsch');
    const to = { channel: 'telegram', chat: String(user.id) };
    const { status, body } = await api.post(
      '/v1/asks',
      askBody(`tgf-${++run}`, { to, questions: questions(2, false), locale: 'de', timeoutSeconds: 60 }),
    );
    expect(status).toBe(201);
    const ref = await deliveredRef(api, body.id);
    expect(keyboardRows(fake, ref)).toEqual([
      ['Frage 1 von 2 · H1'],
      ['A1'],
      ['B1'],
      ['C1'],
      ['Andere…', 'Überspringen'],
    ]);
    expect(await tapLabel(fake, ref, 'A1', user)).toBe('');
    await showsButton(fake, ref, '« Zurück');
    expect(await tapLabel(fake, ref, 'Andere…', user)).toBe('');
    const prompt = await eventually(async () =>
      fake.chatMessages(ref.chat).find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
    );
    expect(prompt.text).toMatch(/^Frage 2 · /);
    fake.say(ref.chat, 'eigene Worte', user, prompt.message_id);
    expect((await finalized(body.id)).result.answers).toEqual({ q1: ['A1'], q2: ['eigene Worte'] });
  });
});
