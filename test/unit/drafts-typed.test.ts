// Typed steps of a draft (issue 35), pure: reaching one asks for its value, a reply is read by its
// kind in the person's language (a value that does not read keeps the step open). The keyboard of a
// typed step and its prompt on Telegram: test/channels/telegram-typed-keyboard.test.ts.
import { describe, expect, it } from 'vitest';
import {
  DRAFT_HOLD_MS,
  applyTap,
  arrive,
  formAnswers,
  isTypedStep,
  newDraft,
  type DraftStep,
} from '../../src/core/drafts.js';
import { applyStepReply, readTypedStep } from '../../src/core/drafts-typed.js';
import type { Draft } from '../../src/core/form-draft-store.js';
import { readForm } from '../../src/core/forms.js';
import { personContext } from '../../src/core/questions/index.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import type { ButtonChoice } from '../../src/core/token.js';
import type { Question, Responder } from '../../src/core/schemas.js';

const alice: Responder = { channel: 'telegram', userId: '1', username: 'alice' };
const bob: Responder = { channel: 'telegram', userId: '2', name: 'Bob' };
/** 2026-12-07 12:00 UTC: "amanhã" in São Paulo is 2026-12-08. */
const NOW = Date.parse('2026-12-07T12:00:00Z');
const ZONE = 'America/Sao_Paulo';

const env: Question = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
const replicas = { id: 'n', question: 'How many?', kind: 'number', min: 1, max: 10 } as Question;
const day = { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' } as Question;
const note = { id: 'note', question: 'Anything?', kind: 'text', maxLength: 20 } as Question;

const base = { askId: 'Ask0000000001', version: 1, now: NOW, expiresAt: NOW + 60_000 };
const tap = (choice: ButtonChoice, user = alice, now = NOW) => ({ ...base, choice, user, now });
const draftOf = (step: DraftStep): Draft => {
  if (step.kind !== 'draft') throw new Error(`expected a draft, got ${step.kind}`);
  return step.draft;
};
const reading = (locale = 'en') => ({
  words: wordsFor(locale, ZONE),
  parse: personContext(locale, { locale: 'en', timeZone: ZONE }, undefined, NOW),
});
/** A draft of `questions` at `step` whose prompt for `step` is out. */
const waiting = (questions: readonly Question[], step: number, parts?: Draft['parts']): Draft => ({
  ...newDraft(questions, tap({ kind: 'form' })),
  step,
  awaitingOwn: step,
  ...(parts ? { parts } : {}),
});
const reply = (text: string, user = alice, now = NOW) => ({ text, user, now });

describe('isTypedStep', () => {
  it.each([
    [{}, false],
    [{ kind: 'choice' }, false],
    [{ multiSelect: true, options: [1, 2] }, false],
    [{ kind: 'number' }, true],
    [{ kind: 'text' }, true],
    [undefined, false],
  ])('%j → %s', (question, typed) => expect(isTypedStep(question)).toBe(typed));
});

describe('reaching a typed step asks for its value', () => {
  it.each<[string, readonly Question[], (d: Draft) => Draft, ButtonChoice, Partial<Draft>, string]>([
    [
      'Answer on a lone typed question asks for it',
      [replicas],
      (d) => d,
      { kind: 'form' },
      { step: 0, awaitingOwn: 0 },
      'ask_own',
    ],
    [
      'a pick moves on to a typed step, which asks',
      [env, day],
      (d) => d,
      { kind: 'pick', question: 0, index: 1 },
      { step: 1, awaitingOwn: 1 },
      'ask_own',
    ],
    [
      'Next onto a typed step asks',
      [env, day],
      (d) => ({ ...d, parts: [{ choices: [0] }, { choices: [] }] }),
      { kind: 'step', question: 1 },
      { step: 1, awaitingOwn: 1 },
      'ask_own',
    ],
    [
      '✎ Answer asks again, even with its prompt out',
      [replicas],
      (d) => ({ ...d, awaitingOwn: 0 }),
      { kind: 'own', question: 0 },
      { step: 0, awaitingOwn: 0 },
      'ask_own',
    ],
    [
      'coming back to a typed step whose prompt is out sends no second prompt',
      [env, day],
      (d) => ({ ...d, awaitingOwn: 1 }),
      { kind: 'step', question: 1 },
      { step: 1, awaitingOwn: 1 },
      'render',
    ],
    [
      'Back to an answered typed step only draws it',
      [day, env],
      (d) => ({ ...d, step: 1, parts: [{ choices: [], own: '2026-12-08' }, { choices: [] }] }),
      { kind: 'step', question: 0 },
      { step: 0 },
      'render',
    ],
    [
      'a choice step is drawn as before',
      [day, env],
      (d) => ({ ...d, parts: [{ choices: [], own: 'x' }, { choices: [] }] }),
      { kind: 'step', question: 1 },
      { step: 1 },
      'render',
    ],
  ])('%s', (_name, questions, from, choice, expected, then) => {
    const step = applyTap(questions, from(newDraft(questions, tap({ kind: 'form' }))), tap(choice));
    expect(step).toMatchObject({ kind: 'draft', then, draft: expected });
    if (then === 'render' && expected.awaitingOwn === undefined) expect(draftOf(step).awaitingOwn).toBeUndefined();
  });

  it.each<[string, ButtonChoice]>([
    ['a pick', { kind: 'pick', question: 0, index: 0 }],
    ['a toggle', { kind: 'toggle', question: 0, index: 0 }],
  ])('%s on a typed step is refused (it has no options)', (_name, choice) => {
    expect(applyTap([replicas, env], null, tap(choice)).kind).toBe('invalid');
  });

  it('arrive is the one rule: unanswered and not already asked → ask_own', () => {
    const d = waiting([env, day], 0);
    expect(arrive([env, day], d, 1)).toMatchObject({ then: 'ask_own', draft: { step: 1, awaitingOwn: 1 } });
    expect(arrive([env, day], d, 0)).toMatchObject({ then: 'render', draft: { step: 0 } });
  });
});

describe('a reply to a typed step is read by its kind in the person’s language', () => {
  const one = (q: Question) => [q];
  it.each<[string, Question, string, string, string[], string?]>([
    [
      'a number with a comma in pt-BR',
      { id: 'n', question: 'N?', kind: 'number' } as Question,
      'pt-BR',
      '3,5',
      ['3.5'],
      '3,5',
    ],
    [
      'a number with its unit',
      { id: 'n', question: 'N?', kind: 'number', unit: 'GB' } as Question,
      'en',
      '16 GB',
      ['16'],
      '16 GB',
    ],
    ['a whole number', { id: 'n', question: 'N?', kind: 'number', integer: true } as Question, 'en', '42', ['42']],
    ['"amanhã" in São Paulo', day, 'pt-BR', 'amanhã', ['2026-12-08'], 'amanhã'],
    ['an ISO date', day, 'en', '2026-12-24', ['2026-12-24']],
    [
      'a day-first date in en-GB',
      { ...day, max: '2027-12-31' } as Question,
      'en-GB',
      '08/12/2026',
      ['2026-12-08'],
      '08/12/2026',
    ],
    [
      'a time, English pm',
      { id: 't', question: 'T?', kind: 'time' } as Question,
      'en',
      '2:30 pm',
      ['14:30'],
      '2:30 pm',
    ],
    [
      'a time in German',
      { id: 't', question: 'T?', kind: 'time' } as Question,
      'de',
      '14.30 Uhr',
      ['14:30'],
      '14.30 Uhr',
    ],
    [
      'a date-time on the ask’s clocks',
      { id: 'dt', question: 'DT?', kind: 'datetime' } as Question,
      'en',
      '2026-12-08 14:30',
      ['2026-12-08T14:30:00-03:00'],
      '2026-12-08 14:30',
    ],
    [
      'an email (domain lower-cased)',
      { id: 'e', question: 'E?', kind: 'email' } as Question,
      'en',
      'Ann@Example.COM',
      ['Ann@example.com'],
      'Ann@Example.COM',
    ],
    [
      'a link',
      { id: 'u', question: 'U?', kind: 'url' } as Question,
      'en',
      'https://example.com/x',
      ['https://example.com/x'],
    ],
    ['text, hostile as it may be', note, 'en', '<b>@everyone</b>', ['<b>@everyone</b>']],
  ])(
    '%s: fills the step, submits (last), and the draft reads as the same value',
    (_n, q, locale, text, values, raw) => {
      const step = applyStepReply(one(q), waiting(one(q), 0), reply(text), reading(locale));
      expect(step).toMatchObject({ kind: 'draft', then: 'submit', draft: { parts: [{ choices: [], own: text }] } });
      const draft = draftOf(step);
      expect(draft.awaitingOwn).toBeUndefined();
      const r = reading(locale);
      const read = readForm(one(q), formAnswers(draft), r.words, r.parse);
      expect(read).toEqual({ kind: 'answers', answers: { [q.id]: values }, ...(raw ? { raw: { [q.id]: raw } } : {}) });
    },
  );

  it.each<[string, Question, string, string, RegExp]>([
    [
      'not a number',
      replicas,
      'en',
      'lots',
      /^I could not read that answer\. Please answer with a number between 1 and 10/,
    ],
    ['a number out of range', replicas, 'en', '11', /^That answer is outside the allowed range\./],
    ['"3,5" in English', replicas, 'en', '3,5', /^I could not read that answer\./],
    [
      'a date out of range',
      day,
      'en',
      '2027-01-05',
      /^That answer is outside the allowed range\. Please answer with a date between/,
    ],
    ['an impossible date', day, 'en', '2026-02-30', /^I could not read/],
    [
      'text too long',
      note,
      'en',
      'x'.repeat(21),
      /^That answer is too short or too long\. Please answer in your own words, at most 20 characters\./,
    ],
    [
      'a link without a scheme',
      { id: 'u', question: 'U?', kind: 'url' } as Question,
      'en',
      'www.test.org/x',
      /^I could not read/,
    ],
    ['in the person’s language', replicas, 'pt-BR', 'muitos', /^Não consegui ler essa resposta\./],
  ])(
    '%s: rejected, the step stays open, what was expected and that nothing was done',
    (_n, q, locale, text, message) => {
      const draft = waiting([env, q], 1, [{ choices: [0] }, { choices: [] }]);
      const step = applyStepReply([env, q], draft, reply(text), reading(locale));
      expect(step).toMatchObject({ kind: 'rejected', question: 1 });
      if (step.kind !== 'rejected') return;
      expect(step.message).toMatch(message);
      expect(step.message).toMatch(/(Nothing has been done yet|Nada foi feito ainda)\.$/);
      expect(step.message).not.toContain(text);
    },
  );

  it('a valid value on a middle step moves on: to a typed step, which asks next', () => {
    const questions = [replicas, day, env];
    const step = applyStepReply(questions, waiting(questions, 0), reply('4'), reading());
    expect(step).toMatchObject({ kind: 'draft', then: 'ask_own', draft: { step: 1, awaitingOwn: 1 } });
    const next = applyStepReply(questions, draftOf(step), reply('2026-12-09'), reading());
    expect(next).toMatchObject({ kind: 'draft', then: 'render', draft: { step: 2 } });
    expect(draftOf(next).parts).toEqual([
      { choices: [], own: '4' },
      { choices: [], own: '2026-12-09' },
      { choices: [] },
    ]);
  });

  it('Other…’s own words on a choice step are not read by any kind (as before)', () => {
    const step = applyStepReply([env, replicas], waiting([env, replicas], 0), reply('somewhere else'), reading());
    expect(step).toMatchObject({ kind: 'draft', then: 'ask_own', draft: { step: 1, awaitingOwn: 1 } });
    expect(draftOf(step).parts[0]).toEqual({ choices: [], own: 'somewhere else' });
  });

  it('someone else during the hold, or a reply nobody asked for, changes nothing', () => {
    const d = waiting([replicas], 0);
    expect(applyStepReply([replicas], d, reply('4', bob, NOW + 1), reading()).kind).toBe('held');
    const { awaitingOwn: _a, ...unasked } = d;
    expect(applyStepReply([replicas], unasked, reply('4'), reading()).kind).toBe('invalid');
  });

  it('a person taking over a lapsed hold keeps the choices but not another’s typed values (never shown, read in their language)', () => {
    const questions = [env, replicas, note];
    const parts = [{ choices: [1] }, { choices: [], own: '1,500' }, { choices: [], own: 'secret' }];
    const held = { ...waiting(questions, 2, parts), heldAt: NOW };
    const later = NOW + DRAFT_HOLD_MS;
    const tapped = draftOf(applyTap(questions, held, tap({ kind: 'step', question: 0 }, bob, later)));
    expect(tapped).toMatchObject({
      holder: bob,
      heldAt: later,
      parts: [{ choices: [1] }, { choices: [] }, { choices: [] }],
    });
    const replied = draftOf(applyStepReply(questions, held, reply('mine', bob, later), reading()));
    expect(replied.parts).toEqual([{ choices: [1] }, { choices: [] }, { choices: [], own: 'mine' }]);
    // The holder keeps their own values.
    expect(draftOf(applyTap(questions, held, tap({ kind: 'step', question: 0 }, alice, later))).parts).toEqual(parts);
  });

  it('readTypedStep is the kind’s form reading (the one the submitted draft gets)', () => {
    expect(readTypedStep(replicas, ' 7 ', reading())).toEqual({ ok: true, values: ['7'] });
    expect(readTypedStep(replicas, '7,0', reading('de'))).toEqual({ ok: true, values: ['7'], raw: '7,0' });
    expect(readTypedStep(replicas, '', reading())).toMatchObject({ ok: false });
  });
});
