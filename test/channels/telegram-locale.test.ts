import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi, type FakeUser, type StoredMessage } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  botReply,
  channelFor,
  deliveredRef,
  keyboardRows,
  memoryLogger,
  tap,
  tapLabel,
  visible,
} from './telegram-world.js';
import { LOCALES, translate, wordsFor } from '../../src/core/i18n/index.js';
import { TELEGRAM_WORDS, telegramText, type TelegramWordKey } from '../../src/channels/telegram/words.js';
import {
  PLACEHOLDER_MAX_CHARS as TELEGRAM_PLACEHOLDER_MAX,
  TOAST_MAX_CHARS as TELEGRAM_TOAST_MAX,
} from '../../src/channels/telegram/label-limits.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { answersOnKeyboard, draftMarkup } from '../../src/channels/telegram/drafts-keyboard.js';
import { BUTTON_LABEL_MAX_CHARS } from '../../src/channels/telegram/limits.js';
import { askRecord } from '../helpers/records.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
const logger = memoryLogger();
let run = 0;
let nextId = 70_000;

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

/** A person named Zed with a private chat; `language` is what their Telegram app says (`from.language_code`). */
function person(language?: string): FakeUser {
  const id = ++nextId;
  return fake.addUser(id, 'Zed', { username: `zed_${id}`, ...(language ? { language_code: language } : {}) });
}

// The agent's words carry no letters a language could claim: only the UI words differ between renderings.
const single = [{ id: 'q1', question: 'Q1?', options: [{ label: 'A1' }, { label: 'B1' }] }];
const twoMulti = [1, 2].map((n) => ({
  id: `q${n}`,
  header: `H${n}`,
  question: `Q${n}?`,
  multiSelect: true,
  options: [{ label: `A${n}` }, { label: `B${n}` }],
}));

async function ask(user: FakeUser, questions: unknown[], extra: Record<string, unknown> = {}) {
  const to = { channel: 'telegram', chat: String(user.id), users: [String(user.id)] };
  const { status, body } = await api.post(
    '/v1/asks',
    askBody(`tgl-${++run}`, { to, questions, timeoutSeconds: 30, ...extra }),
  );
  expect(status).toBe(201);
  return { id: body.id as string, ref: await deliveredRef(api, body.id) };
}
const get = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;
const finalized = (id: string) =>
  eventually(async () => ((await get(id)).deliveries[0].finalized === 'done' ? get(id) : undefined));

/** The force-reply prompt the bot sent in reply to the question after message `after`. */
const forceReplyAfter = (ref: MessageRef, after: number) =>
  eventually(async () =>
    fake
      .chatMessages(ref.chat)
      .find(
        (m) =>
          m.from.is_bot &&
          m.message_id > after &&
          m.reply_to === Number(ref.messageId) &&
          !!m.reply_markup &&
          'force_reply' in m.reply_markup,
      ),
  );
const placeholderOf = (m: StoredMessage) =>
  m.reply_markup && 'input_field_placeholder' in m.reply_markup ? (m.reply_markup.input_field_placeholder ?? '') : '';
const lastId = (ref: MessageRef) => fake.chatMessages(ref.chat).at(-1)!.message_id;
/** The label of the keyboard's button that starts with `words` (a control with its mark). */
const labelStarting = (ref: MessageRef, words: string) =>
  eventually(async () => visible(fake, ref).buttons.find((b) => b.label.startsWith(words))?.label, 5000, 10);

/**
 * Everything a person reads of two asks in `locale` (undefined: English) on Telegram: a single
 * question with buttons (its message, a reminder, Other… with its force-reply, the edited outcome,
 * a late tap) and a two-question draft (each step's keyboard, own words, Submit and its toast).
 */
async function renderings(locale: string | undefined): Promise<string[]> {
  const t = wordsFor(locale).t;
  const seen: string[] = [];
  const loc = locale ? { locale } : {};

  const user = person();
  const one = await ask(user, single, { ...loc, remindAfterSeconds: [1] });
  const shown = visible(fake, one.ref);
  seen.push(shown.text, ...shown.buttons.map((b) => b.label));
  const reminder = await botReply(fake, one.ref.chat, Number(one.ref.messageId), 10_000);
  seen.push(reminder.text);
  const other = shown.buttons.find((b) => b.label === t('control.other'))!;
  const toastOther = await tap(fake, one.ref, other.data, user);
  expect(toastOther).toBe(telegramText(locale, 'ownWordsPrompt'));
  seen.push(toastOther!);
  const prompt = await forceReplyAfter(one.ref, reminder.message_id);
  seen.push(prompt.text, placeholderOf(prompt));
  fake.say(one.ref.chat, 'zz', user, prompt.message_id);
  await finalized(one.id);
  seen.push(visible(fake, one.ref).text);
  const late = await tap(fake, one.ref, shown.buttons[0]!.data, user);
  seen.push(late!);

  const drafter = person();
  const two = await ask(drafter, twoMulti, loc);
  const progress = (n: number) => `${t('control.progress', { n, total: 2 })} · H${n}`;
  expect(keyboardRows(fake, two.ref)[0]).toEqual([progress(1)]);
  seen.push(visible(fake, two.ref).text, ...visible(fake, two.ref).buttons.map((b) => b.label));
  expect(await tapLabel(fake, two.ref, '☐ A1', drafter)).toBe('');
  const before = lastId(two.ref);
  expect(await tapLabel(fake, two.ref, t('control.other'), drafter)).toBe('');
  const own = await forceReplyAfter(two.ref, before);
  seen.push(own.text, placeholderOf(own));
  fake.say(two.ref.chat, 'zz', drafter, own.message_id);
  // Own words move the draft on to the next question.
  await eventually(async () => keyboardRows(fake, two.ref)[0]?.[0] === progress(2) || undefined, 5000, 10);
  expect(await tapLabel(fake, two.ref, '☐ B2', drafter)).toBe('');
  await labelStarting(two.ref, '☑ B2');
  seen.push(...visible(fake, two.ref).buttons.map((b) => b.label));
  const submitted = await tapLabel(fake, two.ref, t('control.submit'), drafter);
  expect(submitted).toBe(t('notice.recorded'));
  seen.push(submitted!);
  expect((await finalized(two.id)).result.answers).toEqual({ q1: ['A1', 'zz'], q2: ['B2'] });
  seen.push(visible(fake, two.ref).text);
  return seen;
}

const words = (texts: readonly string[]) =>
  new Set(texts.flatMap((t) => [...t.toLowerCase().matchAll(/\p{L}{3,}/gu)].map((m) => m[0])));
// The person's name and names that are the same in every language.
const NOT_UI = words(['zed Telegram API askgate UTC']);

describe('Telegram in the ask’s language and the person’s', () => {
  it('a pt-BR ask shows only Portuguese controls and notices where the English one shows English', async () => {
    const english = await renderings(undefined);
    const englishUi = [...words(english)].filter((w) => !NOT_UI.has(w));
    // The English rendering has the words to look for (else the comparison below could not fail).
    expect(englishUi).toEqual(
      expect.arrayContaining(['tap', 'reply', 'other', 'skip', 'reminder', 'question', 'pick', 'submit', 'back']),
    );
    expect(englishUi).toEqual(expect.arrayContaining(['answered', 'recorded', 'already', 'your', 'own', 'words']));
    const portuguese = await renderings('pt-BR');
    expect(portuguese.filter((t) => t.trim() === '')).toEqual([]);
    expect([...words(portuguese)].filter((w) => englishUi.includes(w))).toEqual([]);
    const all = portuguese.join('\n');
    for (const key of ['tapHint', 'pickSeveral', 'answerPlaceholder'] as const)
      expect(all).toContain(telegramText('pt-BR', key));
    expect(all).toContain('Lembrete');
    expect(all).toContain('Pergunta 1 · ');
  });

  it('a Spanish-speaking person tapping an ask without a locale gets Spanish toasts; the message stays English', async () => {
    const ana = person('es');
    const { id, ref } = await ask(ana, single);
    const shown = visible(fake, ref);
    expect(shown.buttons.map((b) => b.label)).toEqual(['A1', 'B1', 'Other…', 'Skip']);
    const other = shown.buttons.find((b) => b.label === 'Other…')!;
    expect(await tap(fake, ref, other.data, ana)).toBe('Responde con tu respuesta en tus palabras');
    const prompt = await forceReplyAfter(ref, Number(ref.messageId));
    expect([prompt.text, placeholderOf(prompt)]).toEqual(['Responde con tu respuesta en tus palabras', 'Tu respuesta']);
    expect(await tap(fake, ref, shown.buttons[1]!.data, ana)).toBe(translate('es', 'notice.recorded'));
    expect(translate('es', 'notice.recorded')).toBe('Respuesta registrada');
    await finalized(id);
    expect(visible(fake, ref).text).toMatch(/\n\nAnswered: B1 — by @zed_\d+$/);
    expect(await tap(fake, ref, shown.buttons[0]!.data, ana)).toMatch(/^Esta pregunta ya /);
    // A forged tap, decided before any ask is found, is in the person's language too.
    expect(await tap(fake, ref, 'not-a-token', ana)).toBe(translate('es', 'notice.invalidButton'));
  });

  it('a person whose language is English reads English toasts on a pt-BR ask; a language askgate does not ship reads the ask’s', async () => {
    const en = person('en');
    const one = await ask(en, single, { locale: 'pt-BR' });
    const outra = visible(fake, one.ref).buttons.find((b) => b.label === 'Outra…')!;
    expect(await tap(fake, one.ref, outra.data, en)).toBe('Reply with your answer in your own words');
    const ko = person('ko');
    const two = await ask(ko, single, { locale: 'pt-BR' });
    expect(await tap(fake, two.ref, visible(fake, two.ref).buttons[0]!.data, ko)).toBe('Resposta registrada');
  });

  it('a typed "pular" skips a pt-BR ask; on an English ask it is the person’s own words', async () => {
    const user = person();
    const pt = await ask(user, single, { locale: 'pt-BR' });
    fake.say(pt.ref.chat, 'Pular!', user, pt.ref.messageId);
    expect((await finalized(pt.id)).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    expect(visible(fake, pt.ref).text).toMatch(/\n\nPulada/);
    const en = await ask(user, single);
    fake.say(en.ref.chat, 'pular', user, en.ref.messageId);
    expect((await finalized(en.id)).result).toMatchObject({ status: 'answered', answers: { q1: ['pular'] } });
  });

  it('a skip refused (the ask needs two matching answers) is explained in the person’s language, not in English', async () => {
    const hans = person('de');
    const to = { channel: 'telegram', chat: String(hans.id) };
    const created = await api.post('/v1/asks', askBody(`tgl-${++run}`, { to, questions: single, agree: 2 }));
    expect(created.status).toBe(201);
    const ref = await deliveredRef(api, created.body.id);
    const said = fake.say(ref.chat, 'überspringen', hans, ref.messageId);
    const hint = await botReply(fake, ref.chat, said.message_id);
    expect(hint.text).toBe('Diese Frage braucht 2 übereinstimmende Antworten: tippe auf eine Option.');
    expect(hint.text).toBe(translate('de', 'notice.skipRefused', { count: 2 }));
    expect((await get(created.body.id)).status).toBe('pending');
  });

  it('the draft keyboard is checked in the ask’s words: a label that is the locale’s Other… keeps the text form there only', async () => {
    const qs = [1, 2].map((n) => ({ id: `q${n}`, question: `Q${n}?`, options: [{ label: 'Outra…' }, { label: 'B' }] }));
    const user = person();
    const en = await ask(user, qs);
    expect(visible(fake, en.ref).buttons.map((b) => b.label)).toContain('Outra…');
    const pt = await ask(user, qs, { locale: 'pt-BR' });
    expect(visible(fake, pt.ref).buttons).toEqual([]);
    expect(visible(fake, pt.ref).text).toContain(translate('pt-BR', 'prompt.several'));
    expect(visible(fake, pt.ref).text).not.toContain(telegramText('pt-BR', 'tapHint'));
  });
});

describe('a draft held in a group speaks to each person in their language', () => {
  it('"@alice is answering" in German for a German tap, in the ask’s Portuguese for one without a language', async () => {
    const chat = -1_007_000 - nextId;
    fake.addGroup(chat, 'Equipe');
    const alice = fake.addUser(++nextId, 'Alice', { username: `alice_${nextId}` });
    const hans = person('de-AT');
    const zed = person();
    const body = askBody(`tgl-${++run}`, {
      to: { channel: 'telegram', chat: String(chat) },
      questions: twoMulti,
      timeoutSeconds: 30,
      locale: 'pt-BR',
    });
    const created = await api.post('/v1/asks', body);
    expect(created.status).toBe(201);
    const ref = await deliveredRef(api, created.body.id);
    expect(await tapLabel(fake, ref, '☐ A1', alice)).toBe('');
    await labelStarting(ref, '☑ A1');
    const name = `@${alice.username}`;
    expect(await tapLabel(fake, ref, '☐ B1', hans)).toBe(`${name} antwortet gerade`);
    expect(await tapLabel(fake, ref, 'Pular', hans)).toBe(`${name} antwortet gerade`);
    expect(await tapLabel(fake, ref, 'Pular', zed)).toBe(`${name} está respondendo`);
    expect((await get(created.body.id)).status).toBe('pending');
  });
});

describe('Telegram’s own words fit its limits in every language', () => {
  const tags = [...LOCALES.keys()];
  const three = [1, 2, 3].map((n) => ({
    id: `q${n}`,
    header: 'Umgebung123',
    question: `Q${n}?`,
    multiSelect: n !== 2,
    options: ['A', 'B', 'C', 'D'].map((l) => ({ label: `${l}${n}` })),
  }));

  it.each(tags)('%s: toasts, the placeholder and a three-question draft keyboard', (tag) => {
    // Telegram's own words, and the form session's notice Telegram shows as a toast.
    const texts: [string, string][] = [
      ...(Object.keys(TELEGRAM_WORDS.en) as TelegramWordKey[]).map((k): [string, string] => [
        k,
        telegramText(tag, k, { name: '@x' }),
      ]),
      ['form.answering', translate(tag, 'form.answering', { name: '@x' })],
    ];
    for (const [key, text] of texts) expect([key, text.length <= TELEGRAM_TOAST_MAX]).toEqual([key, true]);
    expect(telegramText(tag, 'answerPlaceholder').length).toBeLessThanOrEqual(TELEGRAM_PLACEHOLDER_MAX);
    const view = buildPromptView(askRecord(three, { locale: tag }));
    expect(view.locale).toBe(tag);
    expect(answersOnKeyboard(view)).toBe(true);
    const full = { step: 2, parts: three.map(() => ({ choices: [0, 1, 2, 3], own: 'x' })) };
    const labels = draftMarkup(view, full)
      .inline_keyboard.flat()
      .map((b) => b.text);
    expect(labels).toContain(translate(tag, 'control.submit'));
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(BUTTON_LABEL_MAX_CHARS);
  });
});
