// A typed step on Telegram's keyboard (issue 35), pure: its keyboard (✎ Answer, Skip, the step
// controls; never the value), its force-reply prompt (what is expected, in the person's words, the
// example as the placeholder), and whether a form with typed steps fits Telegram's keyboard.
import { describe, expect, it } from 'vitest';
import { draftKeyboard } from '../../src/core/drafts.js';
import type { Draft } from '../../src/core/form-draft-store.js';
import { formFits } from '../../src/core/capabilities.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { ENGLISH, wordsFor } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';
import { TELEGRAM_CAPABILITIES } from '../../src/channels/telegram/capabilities.js';
import { stepPrompt } from '../../src/channels/telegram/draft-flow.js';
import { askRecord } from '../helpers/records.js';

const env: Question = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
const replicas = { id: 'n', question: 'How many?', kind: 'number', min: 1, max: 10 } as Question;
const day = { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' } as Question;
const note = { id: 'note', question: 'Anything?', kind: 'text', maxLength: 20 } as Question;

describe('the keyboard of a typed step', () => {
  const rows = (
    questions: readonly Question[],
    draft: Pick<Draft, 'step' | 'parts'> | null,
    skip = true,
    words = ENGLISH,
  ) => draftKeyboard(questions, draft, skip, words).map((row) => row.map((b) => b.label));

  it.each<[string, readonly Question[], Pick<Draft, 'step' | 'parts'> | null, boolean, string[][]]>([
    ['a first typed step, untouched', [replicas, env], null, true, [['Question 1 of 2'], ['✎ Answer', 'Skip']]],
    [
      'without Skip (several matching answers needed)',
      [replicas, env],
      null,
      false,
      [['Question 1 of 2'], ['✎ Answer']],
    ],
    [
      'answered (never the value: ✓ only), last: Submit',
      [env, note],
      { step: 1, parts: [{ choices: [1] }, { choices: [], own: 'secret' }] },
      true,
      [['Question 2 of 2'], ['✎ Answer ✓', 'Skip'], ['« Back', 'Submit']],
    ],
    [
      'a middle typed step, unanswered: Back only',
      [env, day, note],
      { step: 1, parts: [{ choices: [0] }, { choices: [] }, { choices: [] }] },
      true,
      [['Question 2 of 3'], ['✎ Answer', 'Skip'], ['« Back']],
    ],
    [
      'a middle typed step, answered: Back and Next',
      [env, day, note],
      { step: 1, parts: [{ choices: [0] }, { choices: [], own: '2026-12-08' }, { choices: [] }] },
      true,
      [['Question 2 of 3'], ['✎ Answer ✓', 'Skip'], ['« Back', 'Next »']],
    ],
  ])('%s', (_n, questions, draft, skip, expected) => {
    expect(rows(questions, draft, skip)).toEqual(expected);
  });

  it('in the ask’s words', () => {
    expect(rows([replicas, env], null, true, wordsFor('pt-BR'))).toEqual([
      ['Pergunta 1 de 2'],
      ['✎ Responder', 'Pular'],
    ]);
  });

  it('its ✎ Answer asks for the value of that step', () => {
    expect(
      draftKeyboard([env, replicas], { step: 1, parts: [{ choices: [0] }, { choices: [] }] }, true)[1]![0]!.choice,
    ).toEqual({
      kind: 'own',
      question: 1,
    });
  });
});

describe('a form with typed steps fits Telegram’s keyboard when every choice step does', () => {
  const shape = (questions: Question[]) => {
    const view = buildPromptView(askRecord(questions, { id: 'CapsAsk0000001', version: 1 }));
    return { askId: 'CapsAsk0000001', version: 1, questions: view.questions, skip: 'skip', words: ENGLISH };
  };
  const stem = 'x'.repeat(90);
  const alike = {
    id: 'a',
    question: 'A?',
    multiSelect: true,
    options: [{ label: `${stem} one` }, { label: `${stem} two` }],
  } as Question;
  it.each<[string, boolean, Question[]]>([
    ['a lone number (answered by reply: no draft)', false, [replicas]],
    ['two typed questions', true, [replicas, note]],
    ['three typed questions', true, [replicas, day, note]],
    ['a choice and typed questions', true, [env, replicas, day]],
    ['a choice whose labels look alike once cut, beside a typed one', false, [alike, replicas]],
  ])('%s → %s', (_n, fits, questions) => {
    expect(formFits(shape(questions), TELEGRAM_CAPABILITIES)).toBe(fits);
  });

  it.each(['text', 'number', 'date', 'time', 'datetime', 'email', 'url'])(
    'a %s question is a step beside another; alone it is answered by reply',
    (kind) => {
      const typed = { id: 'x', question: 'X?', kind } as Question;
      expect(formFits(shape([typed, env]), TELEGRAM_CAPABILITIES)).toBe(true);
      expect(formFits(shape([typed]), TELEGRAM_CAPABILITIES)).toBe(false);
    },
  );

  it('a kind Telegram does not declare keeps the text form', () => {
    const s = shape([replicas]);
    expect(formFits({ ...s, questions: [{ ...s.questions[0]!, kind: 'someday' }] }, TELEGRAM_CAPABILITIES)).toBe(false);
  });

  it('Telegram’s view of a lone typed question is the text form; beside another question it has the form', () => {
    const lone = buildPromptView(askRecord([replicas]), ENGLISH, TELEGRAM_CAPABILITIES);
    expect([lone.buttons, lone.form]).toEqual([null, undefined]);
    expect(lone.instructions).toBe(
      'Type your answer and reply to this message; send "skip" to skip. Please answer with a number between 1 and 10, for example 2.5.',
    );
    const pair = buildPromptView(askRecord([replicas, env]), ENGLISH, TELEGRAM_CAPABILITIES);
    expect(pair.buttons).toBeNull();
    expect(pair.form?.skip).toBeTruthy();
  });
});

describe('the force-reply prompt of a step states the expected form, in the person’s words', () => {
  const view = (questions: Question[], locale = 'en') =>
    buildPromptView(askRecord(questions, { timeZone: 'America/Sao_Paulo' }), wordsFor(locale), TELEGRAM_CAPABILITIES);
  it.each<[string, Question, string, string, string]>([
    ['text', note, 'en', 'Please answer in your own words, at most 20 characters.', 'Your answer'],
    ['number', replicas, 'en', 'Please answer with a number between 1 and 10, for example', ''],
    [
      'number, pt-BR',
      { ...replicas, min: 0.5 } as Question,
      'pt-BR',
      'Por favor, responda com um número entre 0,5 e 10',
      '',
    ],
    [
      'date',
      day,
      'en',
      'Please answer with a date between 2026-12-01 and 2026-12-31, for example 2026-12-',
      '2026-12-',
    ],
    [
      'time',
      { id: 't', question: 'T?', kind: 'time' } as Question,
      'en',
      'Please answer with a time in UTC, for example 14:30.',
      '14:30',
    ],
    [
      'datetime',
      { id: 'd', question: 'D?', kind: 'datetime' } as Question,
      'en',
      'Please answer with a date and time',
      '',
    ],
    ['email', { id: 'e', question: 'E?', kind: 'email' } as Question, 'en', 'Please answer with an email address', '@'],
    [
      'url',
      { id: 'u', question: 'U?', kind: 'url' } as Question,
      'en',
      'Please answer with a link (http or https)',
      'https://',
    ],
  ])('%s', (_kind, question, locale, text, placeholder) => {
    const prompt = stepPrompt(view([question]), 0, wordsFor(locale));
    expect(prompt.text.startsWith(text)).toBe(true);
    expect(prompt.forceReply.placeholder).toContain(placeholder);
    expect(prompt.forceReply.placeholder.length).toBeGreaterThan(0);
    expect(prompt.forceReply.placeholder.length).toBeLessThanOrEqual(64);
  });

  it('several questions name theirs; the ask’s view in English, the person’s prompt in Portuguese', () => {
    const prompt = stepPrompt(view([env, replicas]), 1, wordsFor('pt-BR'));
    expect(prompt.text).toMatch(/^Pergunta 2 · Por favor, responda com um número entre 1 e 10/);
    // Other… on a choice step keeps its own-words prompt.
    expect(stepPrompt(view([env, replicas]), 0, ENGLISH).text).toBe(
      'Question 1 · Reply with your answer in your own words',
    );
  });
});
