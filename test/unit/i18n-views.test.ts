import { describe, expect, it } from 'vitest';
import { askRecord, iso, T0 } from '../helpers/records.js';
import { buildPromptView, partialPrompt } from '../../src/core/prompt-view.js';
import { noticeFor, outcomeView } from '../../src/core/outcome-view.js';
import { reminderText } from '../../src/core/policy-view.js';
import { formHint, readForm } from '../../src/core/forms.js';
import { parseReply } from '../../src/core/reply-parser.js';
import { countedNotice } from '../../src/app/inbound.js';
import { outcomeNotice, outcomeWords, spoken } from '../../src/core/notices.js';
import { telegramText } from '../../src/channels/telegram/words.js';
import { LOCALES, translate, wordsFor, type Words } from '../../src/core/i18n/index.js';
import type { AskRecord, Delivery, Question, Responder } from '../../src/core/schemas.js';

const approve: Question = {
  id: 'go',
  question: 'Ship it?',
  multiSelect: false,
  options: [{ label: 'Approve' }, { label: 'Reject' }],
};
const env: Question = {
  id: 'env',
  header: 'Environment',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const tags: Question = { id: 'tags', question: 'Which?', multiSelect: true, options: [{ label: 'x' }, { label: 'y' }] };
const alice: Responder = { channel: 'telegram', userId: '1', name: 'Alice' };
const bob: Responder = { channel: 'slack', userId: 'U2', username: 'bob' };
const api: Responder = { channel: 'api', userId: 'ops' };
const sent = (channel: string, chat: string): Delivery => ({
  channel,
  chat,
  status: 'sent',
  message: { chat, messageId: '9' },
  finalized: 'no',
});
const fanOut = [sent('telegram', '42'), sent('web', 'console'), sent('slack', 'C1')];
const at = iso(T0);
const answered = (answers: Record<string, string[]>, by: Responder) =>
  ({ status: 'answered', answers, answeredBy: by, answeredAt: at }) as const;
const noAnswer = (reason: string, extra: object = {}) =>
  ({ status: 'no_answer', reason, at, ...extra }) as unknown as AskRecord['result'];
const ended = (questions: Question[], result: AskRecord['result'], over: Partial<AskRecord> = {}) =>
  askRecord(questions, { status: result?.status ?? 'pending', result, ...over });

/** Everything askgate writes to people, rendered in `w`. */
function renderAll(w: Words): string[] {
  const agree = { policy: { agree: 3 } };
  const responses = [
    { answers: { go: ['Approve'] }, answeredBy: alice, answeredAt: at },
    { answers: { go: ['their words'] }, answeredBy: bob, answeredAt: at },
  ];
  const single = buildPromptView(askRecord([approve]), w);
  const several = buildPromptView(askRecord([env, tags]), w);
  const agreeing = buildPromptView(askRecord([approve], { ...agree, responses, deliveries: fanOut }), w);
  const ends = [
    ended([approve], answered({ go: ['Approve'] }, alice)),
    ended([approve], answered({ go: ['own'] }, api)),
    ended([env, tags], answered({ env: ['Staging'], tags: ['x', 'free'] }, bob)),
    ended([approve], answered({ go: ['Approve'] }, bob), { deliveries: fanOut, ...agree, responses }),
    ended([env, tags], answered({ env: ['Staging'], tags: ['x'] }, bob), { deliveries: fanOut }),
    ended([approve], noAnswer('timeout', { defaults: { go: ['Reject'] } })),
    ended([env, tags], noAnswer('timeout', { defaults: { env: ['Staging'], tags: ['y'] } })),
    ended([approve], noAnswer('timeout'), { ...agree, responses }),
    ended([approve], noAnswer('timeout')),
    ended([approve], noAnswer('skipped', { by: alice })),
    ended([approve], noAnswer('skipped', { by: api })),
    ended([approve], noAnswer('skipped', { by: bob }), { deliveries: fanOut }),
    ended([approve], noAnswer('skipped')),
    ended([approve], noAnswer('cancelled')),
    ended([approve], noAnswer('superseded')),
    ended([approve], noAnswer('undelivered')),
  ];
  const forbidden = askRecord([approve], {
    to: { channel: 'telegram', chat: '42', users: ['1', '2', '3', '4', '5', '6'] },
  });
  const parsed = [
    parseReply([approve], '7', {}, w),
    parseReply([approve], '1,2', {}, w),
    parseReply([env, tags], '1: 1\n1: 2', {}, w),
    parseReply([env, tags], '9: x', {}, w),
    parseReply([env, tags], 'a\nb\nc', {}, w),
    parseReply([env, tags], 'a\n\nb', {}, w),
    parseReply([env, tags], '2: skip\n1: 1', {}, w),
    parseReply([env, tags], '1: 5', {}, w),
    parseReply([env, tags], 'Staging\nfree', { env: ['Staging'] }, w),
  ].map((p) => (p.kind === 'invalid' ? p.hint : ''));
  const form = readForm([env, tags], [{ choices: [0], own: 'also' }, { choices: [] }], w);
  return [
    single.instructions,
    ...single.buttons!.map((b) => b.label),
    several.instructions,
    several.form!.instructions,
    agreeing.instructions,
    ...agreeing.tally!,
    ...buildPromptView(askRecord([approve], agree), w).tally!,
    ...ends.flatMap((r) => [outcomeView(r, w).text, noticeFor(r, 'already_resolved', {}, w)]),
    ...ends.map((r) => noticeFor(r, 'recorded', {}, w)),
    noticeFor(ends[5]!, 'expired', {}, w),
    noticeFor(ends[6]!, 'expired', {}, w),
    noticeFor(forbidden, 'forbidden', {}, w),
    noticeFor(askRecord([approve], { to: { channel: 'x', chat: '1' } }), 'forbidden', {}, w),
    noticeFor(askRecord([approve], { ...agree, responses }), 'recorded', {}, w),
    noticeFor(null, 'not_found', {}, w),
    reminderText(askRecord([approve]), T0 + 60_000, w),
    reminderText(askRecord([approve]), T0 + 899_990, w),
    reminderText(askRecord([approve]), T0 + 2_000_000, w),
    reminderText(askRecord([approve], { expiresAt: iso(T0 + 3 * 86_400_000) }), T0, w),
    reminderText(askRecord([approve], { expiresAt: iso(T0 + 5 * 3_600_000) }), T0, w),
    partialPrompt([env, tags], ['tags'], w),
    partialPrompt([env, tags, approve], ['tags', 'go'], w),
    partialPrompt([env], [], w),
    countedNotice(1, 3, w),
    form.kind === 'invalid' ? formHint(form.problems, 2, w) : '',
    ...parsed,
  ];
}

const words = (texts: readonly string[]) =>
  new Set(texts.flatMap((t) => [...t.toLowerCase().matchAll(/\p{L}{3,}/gu)].map((m) => m[0])));
// The agent's and people's own words in the renders above, and names that are the same in every language.
const NOT_UI = words([
  'Ship it? Approve Reject Where? Environment Staging Production Which? Alice bob ops their words own free also',
  'Telegram Slack Discord API askgate UTC',
]);
// Words French and German share with English (same spelling, their own language's word).
const COGNATES: Record<string, string[]> = {
  fr: [
    'question',
    'questions',
    'option',
    'options',
    'minute',
    'minutes',
    'instant',
    'message',
    'via',
    'expire',
    'place',
  ],
  de: ['option', 'minute'],
};
const englishUi = [...words(renderAll(wordsFor('en')))].filter((w) => !NOT_UI.has(w));

describe('every word askgate writes follows the locale', () => {
  it('the English rendering has UI words to look for', () => {
    expect(englishUi).toEqual(expect.arrayContaining(['answered', 'skip', 'reminder', 'question', 'expired']));
    expect(englishUi.length).toBeGreaterThan(80);
  });

  it.each([...LOCALES.keys()].filter((tag) => tag !== 'en'))('%s shows no English UI word', (tag) => {
    const rendered = renderAll(wordsFor(tag));
    expect(rendered.filter((t) => t === '')).toEqual([]);
    const found = [...words(rendered)].filter((w) => englishUi.includes(w) && !COGNATES[tag]?.includes(w));
    expect(found).toEqual([]);
  });

  it('a pt-BR ask renders its prompt, outcome and reminder in Portuguese without being told', () => {
    const record = askRecord([approve], { locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
    const view = buildPromptView(record);
    expect(view.locale).toBe('pt-BR');
    expect(view.buttons!.map((b) => b.label)).toEqual(['Approve', 'Reject', 'Outra…', 'Pular']);
    expect(reminderText(record, T0)).toBe(
      `Lembrete: esta pergunta ainda está aberta. Ela expira às ${wordsFor('pt-BR', 'America/Sao_Paulo').time(record.expiresAt)} (em 15 minutos).`,
    );
    expect(reminderText(record, T0)).toMatch(/às 11:15 /);
    const done = ended([approve], answered({ go: ['Approve'] }, alice), { locale: 'pt-BR' });
    expect(outcomeView(done).text).toBe('Respondida: Approve — por Alice');
    expect(noticeFor(done, 'already_resolved')).toBe('Esta pergunta já foi respondida por Alice');
  });

  it('English stays the default and its words are unchanged', () => {
    const view = buildPromptView(askRecord([approve]));
    expect(view.locale).toBe('en');
    expect(view.instructions).toBe(translate('en', 'prompt.buttons'));
    expect(noticeFor(askRecord([approve]), 'expired')).toBe('This question expired at 14:15 UTC');
  });

  it('a hostile name is never read as a placeholder', () => {
    const sneaky: Responder = { channel: 'telegram', userId: '9', name: '{summary}{tail}' };
    const done = ended([approve], answered({ go: ['Approve'] }, sneaky), { locale: 'de' });
    expect(outcomeView(done).text).toBe('Beantwortet: Approve — von {summary}{tail}');
  });
});

describe('outcomes say their language', () => {
  it('an outcome in another language carries it, English and ignored ones stay bare', () => {
    expect(spoken({ kind: 'recorded', summary: 'Pulo registrado' }, wordsFor('pt-BR'))).toEqual({
      kind: 'recorded',
      summary: 'Pulo registrado',
      locale: 'pt-BR',
    });
    expect(spoken({ kind: 'recorded', summary: 'Answer recorded' }, wordsFor('en'))).toEqual({
      kind: 'recorded',
      summary: 'Answer recorded',
    });
    expect(spoken({ kind: 'ignored' }, wordsFor('de'))).toEqual({ kind: 'ignored' });
  });

  it('a channel words its own prompt in the outcome language', () => {
    const outcome = spoken({ kind: 'need_text', askId: 'a', prompt: 'x' }, wordsFor('es'));
    expect(outcomeNotice(outcome, telegramText(outcomeWords(outcome).locale, 'ownWordsPrompt'))).toBe(
      'Responde con tu respuesta en tus palabras',
    );
    expect(telegramText(outcomeWords({ kind: 'ignored' }).locale, 'ownWordsPrompt')).toBe(
      'Reply with your answer in your own words',
    );
  });
});
