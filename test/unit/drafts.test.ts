import { describe, expect, it } from 'vitest';
import {
  DRAFT_HOLD_MS,
  applyOwnWords,
  applyTap,
  draftKeyboard,
  formAnswers,
  heldNotice,
  newDraft,
  showProblem,
  type DraftKeyboardQuestion,
  type DraftStep,
} from '../../src/core/drafts.js';
import { DraftSchema, type Draft } from '../../src/core/form-draft-store.js';
import { readForm } from '../../src/core/forms.js';
import type { ButtonChoice } from '../../src/core/token.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import type { Question, Responder } from '../../src/core/schemas.js';

const alice: Responder = { channel: 'telegram', userId: '1', username: 'alice' };
const bob: Responder = { channel: 'telegram', userId: '2', name: 'Bob' };
const q = (multiSelect: boolean, header?: string): DraftKeyboardQuestion & Question => ({
  id: `q${header ?? ''}${multiSelect ? 'm' : 's'}`,
  question: 'Which?',
  multiSelect,
  ...(header ? { header } : {}),
  options: [{ label: 'A' }, { label: 'B' }, { label: 'C' }],
});
const single = q(false, 'One');
const multi = q(true, 'Many');
const two = [single, multi];
const base = { askId: 'Ask0000000001', version: 1, now: 1000, expiresAt: 60_000 };
const tap = (choice: ButtonChoice, user = alice, now = 1000) => ({ ...base, choice, user, now });
const draftOf = (step: DraftStep): Draft => {
  if (step.kind !== 'draft') throw new Error(`expected a draft, got ${step.kind}`);
  return step.draft;
};
const start = draftOf(applyTap(two, null, tap({ kind: 'form' })));

describe('applyTap', () => {
  it.each<[string, readonly DraftKeyboardQuestion[], Draft | null, ButtonChoice, Partial<Draft> | string, string?]>([
    [
      'Answer starts a draft on step 1',
      two,
      null,
      { kind: 'form' },
      { step: 0, parts: [{ choices: [] }, { choices: [] }] },
      'render',
    ],
    [
      'a pick on a middle step moves on',
      two,
      start,
      { kind: 'pick', question: 0, index: 1 },
      { step: 1, parts: [{ choices: [1] }, { choices: [] }] },
      'render',
    ],
    [
      'a pick on the last step submits',
      [single],
      null,
      { kind: 'pick', question: 0, index: 2 },
      { step: 0, parts: [{ choices: [2] }] },
      'submit',
    ],
    [
      'a toggle turns an option on and stays',
      two,
      start,
      { kind: 'toggle', question: 1, index: 2 },
      { step: 1, parts: [{ choices: [] }, { choices: [2] }] },
      'render',
    ],
    ['step goes to any question', two, start, { kind: 'step', question: 1 }, { step: 1 }, 'render'],
    [
      'own asks for words for that question',
      two,
      start,
      { kind: 'own', question: 1 },
      { step: 1, awaitingOwn: 1 },
      'ask_own',
    ],
    ['submit submits as it stands', two, start, { kind: 'submit' }, { step: 0 }, 'submit'],
    ['a pick on a multi-select question is refused', two, start, { kind: 'pick', question: 1, index: 0 }, 'invalid'],
    [
      'a toggle on a single-choice question is refused',
      two,
      start,
      { kind: 'toggle', question: 0, index: 0 },
      'invalid',
    ],
    ['an option out of range is refused', two, start, { kind: 'toggle', question: 1, index: 3 }, 'invalid'],
    ['a question out of range is refused', two, start, { kind: 'step', question: 2 }, 'invalid'],
    ['own words for a question out of range are refused', two, start, { kind: 'own', question: 2 }, 'invalid'],
    ['an option button (not a draft control) is refused', two, start, { kind: 'option', index: 0 }, 'invalid'],
    ['skip is not a draft change', two, start, { kind: 'skip' }, 'invalid'],
  ])('%s', (_name, questions, stored, choice, expected, then) => {
    const step = applyTap(questions, stored, tap(choice));
    if (typeof expected === 'string') return expect(step.kind).toBe(expected);
    expect(step).toMatchObject({ kind: 'draft', then, draft: { ...expected, holder: alice, heldAt: 1000 } });
  });

  it('toggling twice turns the option off again; the choices stay sorted and unique', () => {
    let d = start;
    for (const index of [2, 0, 2, 1]) d = draftOf(applyTap(two, d, tap({ kind: 'toggle', question: 1, index })));
    expect(d.parts[1]!.choices).toEqual([0, 1]);
  });

  it('a pick replaces own words given before', () => {
    const own = { ...start, awaitingOwn: 0, parts: [{ choices: [], own: 'mine' }, { choices: [] }] };
    expect(draftOf(applyTap(two, own, tap({ kind: 'pick', question: 0, index: 0 }))).parts[0]).toEqual({
      choices: [0],
    });
  });

  it.each([
    ['another person while the hold lasts', bob, 1000 + DRAFT_HOLD_MS - 1, 'held'],
    [
      'another person once the hold lapsed (the visible state is kept, they hold it now)',
      bob,
      1000 + DRAFT_HOLD_MS,
      'draft',
    ],
    ['the holder any time', alice, 1000 + 10 * DRAFT_HOLD_MS, 'draft'],
  ] as const)('%s', (_name, user, now, kind) => {
    const held = draftOf(applyTap(two, start, tap({ kind: 'toggle', question: 1, index: 0 })));
    const step = applyTap(two, held, tap({ kind: 'toggle', question: 1, index: 1 }, user, now));
    expect(step.kind).toBe(kind);
    if (step.kind === 'held') expect(heldNotice(step.by)).toBe('@alice is answering');
    if (step.kind === 'draft')
      expect(step.draft).toMatchObject({ holder: user, heldAt: now, parts: [{}, { choices: [0, 1] }] });
  });

  it('a stored draft of another ask version (or shape) is started afresh', () => {
    const old = { ...draftOf(applyTap(two, start, tap({ kind: 'toggle', question: 1, index: 0 }))), version: 9 };
    expect(draftOf(applyTap(two, old, tap({ kind: 'step', question: 1 }))).parts[1]!.choices).toEqual([]);
    expect(draftOf(applyTap([single], start, tap({ kind: 'form' }))).parts).toHaveLength(1);
  });
});

describe('applyOwnWords', () => {
  const asked = (question: number) => draftOf(applyTap(two, start, tap({ kind: 'own', question })));
  it('own words replace a single-choice pick and move on', () => {
    const picked = { ...asked(0), parts: [{ choices: [1] }, { choices: [] }] };
    const step = applyOwnWords(two, picked, { text: 'mine', user: alice, now: 2000 });
    expect(step).toMatchObject({
      kind: 'draft',
      then: 'render',
      draft: { step: 1, parts: [{ choices: [], own: 'mine' }, {}] },
    });
    expect(draftOf(step).awaitingOwn).toBeUndefined();
  });
  it('own words join the toggles of a multi-select question; on the last question they submit', () => {
    const toggled = { ...asked(1), parts: [{ choices: [0] }, { choices: [2] }] };
    const step = applyOwnWords(two, toggled, { text: 'and this', user: alice, now: 2000 });
    expect(step).toMatchObject({
      kind: 'draft',
      then: 'submit',
      draft: { parts: [{}, { choices: [2], own: 'and this' }] },
    });
  });
  it('words nobody asked for, or from someone else during the hold, change nothing', () => {
    expect(applyOwnWords(two, start, { text: 'x', user: alice, now: 2000 }).kind).toBe('invalid');
    expect(applyOwnWords(two, asked(0), { text: 'x', user: bob, now: 2000 }).kind).toBe('held');
    expect(applyOwnWords([single], asked(1), { text: 'x', user: alice, now: 2000 }).kind).toBe('invalid');
  });
});

describe('formAnswers and showProblem', () => {
  it('a complete draft reads as the answers readForm expects; an incomplete one points at the first problem', () => {
    const done = { ...start, parts: [{ choices: [1] }, { choices: [0, 2], own: 'extra' }] };
    expect(readForm(two, formAnswers(done))).toEqual({
      kind: 'answers',
      answers: { qOnes: ['B'], qManym: ['A', 'C', 'extra'] },
    });
    const half = { ...start, step: 1, parts: [{ choices: [] }, { choices: [0] }] };
    const reading = readForm(two, formAnswers(half));
    expect(reading.kind).toBe('invalid');
    if (reading.kind === 'invalid') expect(showProblem(half, reading.problems).step).toBe(0);
  });

  it.each([
    [
      'the first question with a problem, wherever the draft was',
      0,
      [
        { question: 2, message: 'x' },
        { question: 1, message: 'y' },
      ],
      1,
    ],
    ['a later question than the one shown', 0, [{ question: 2, message: 'x' }], 2],
    ['no problem naming a question of the draft: stays', 1, [{ question: 7, message: 'x' }], 1],
    ['no problems: stays', 2, [], 2],
  ])('showProblem: %s', (_name, step, problems, expected) => {
    const three = { ...start, step, parts: [{ choices: [] }, { choices: [] }, { choices: [] }] };
    expect(showProblem(three, problems).step).toBe(expected);
  });
});

describe('draftKeyboard', () => {
  const labels = (rows: ReturnType<typeof draftKeyboard>) => rows.map((r) => r.map((b) => b.label));
  it.each<[string, readonly DraftKeyboardQuestion[], Pick<Draft, 'step' | 'parts'> | null, boolean, string[][]]>([
    [
      'one multi-select question, untouched',
      [multi],
      null,
      true,
      [['☐ A'], ['☐ B'], ['☐ C'], ['Other…', 'Skip'], ['Submit']],
    ],
    [
      'one multi-select question, without Skip',
      [multi],
      null,
      false,
      [['☐ A'], ['☐ B'], ['☐ C'], ['Other…'], ['Submit']],
    ],
    [
      'step 1 of 2, untouched (no Next until answered)',
      two,
      null,
      true,
      [['Question 1 of 2 · One'], ['A'], ['B'], ['C'], ['Other…', 'Skip']],
    ],
    [
      'step 1 of 2, picked',
      two,
      { step: 0, parts: [{ choices: [1] }, { choices: [] }] },
      true,
      [['Question 1 of 2 · One'], ['A'], ['✓ B'], ['C'], ['Other…', 'Skip'], ['Next »']],
    ],
    [
      'step 2 of 2, toggles and own words',
      two,
      { step: 1, parts: [{ choices: [1] }, { choices: [0, 2], own: 'x' }] },
      true,
      [['Question 2 of 2 · Many'], ['☑ A'], ['☐ B'], ['☑ C'], ['Other… ✓', 'Skip'], ['« Back', 'Submit']],
    ],
  ])('%s', (_name, questions, draft, canSkip, expected) => {
    expect(labels(draftKeyboard(questions, draft, canSkip))).toEqual(expected);
  });

  it("in the ask's words (core/i18n control words; the marks stay)", () => {
    const rows = draftKeyboard(
      two,
      { step: 1, parts: [{ choices: [0] }, { choices: [1], own: 'x' }] },
      true,
      wordsFor('de'),
    );
    expect(labels(rows)).toEqual([
      ['Frage 2 von 2 · Many'],
      ['☐ A'],
      ['☑ B'],
      ['☐ C'],
      ['Andere… ✓', 'Überspringen'],
      ['« Zurück', 'Absenden'],
    ]);
  });

  it('every button names its question and option', () => {
    const rows = draftKeyboard(two, { step: 1, parts: [{ choices: [] }, { choices: [] }] }, true);
    expect(rows.flat().map((b) => b.choice)).toEqual([
      { kind: 'step', question: 1 },
      { kind: 'toggle', question: 1, index: 0 },
      { kind: 'toggle', question: 1, index: 1 },
      { kind: 'toggle', question: 1, index: 2 },
      { kind: 'own', question: 1 },
      { kind: 'skip' },
      { kind: 'step', question: 0 },
      { kind: 'submit' },
    ]);
  });
});

describe('DraftSchema (a stored draft is untrusted)', () => {
  it.each([
    ['a valid draft', newDraft(two, { ...base, user: alice }), true],
    ['an option index out of range', { ...start, parts: [{ choices: [7] }, { choices: [] }] }, false],
    ['a step out of range', { ...start, step: 5 }, false],
    ['a holder with extra keys', { ...start, holder: { ...alice, admin: true } }, false],
    ['no parts', { ...start, parts: [] }, false],
  ])('%s', (_name, value, ok) => {
    expect(DraftSchema.safeParse(value).success).toBe(ok);
  });
});
