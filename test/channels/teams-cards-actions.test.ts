// What Teams sends back from an askgate card, read by readCardAction (issue 39): both the
// `adaptiveCard/action` invoke of an Action.Execute and the message of its Action.Submit fallback,
// every action kind, typed values strict where the input is native, untrusted data refused without
// a throw. Round trips: each card is filled and clicked as Teams would, and what the reader returns
// is what the sink reads (core/forms.ts readForm for forms).
import { describe, expect, it } from 'vitest';
import { promptCard, type AdaptiveCard } from '../../src/channels/teams/cards.js';
import { readCardAction, type CardAction } from '../../src/channels/teams/card-actions.js';
import { teamsText } from '../../src/channels/teams/words.js';
import { TEAMS_CAPABILITIES } from '../../src/channels/teams/capabilities.js';
import { DECISIONS } from '../../src/core/approval/decisions.js';
import { readForm, type FormAnswer } from '../../src/core/forms.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { AskRecord, Question } from '../../src/core/schemas.js';
import { askRecord } from '../helpers/records.js';

const HASH = `sha256:3fa9c2d1${'0'.repeat(56)}`;
type Node = Record<string, unknown>;

const recordOf = (questions: Question[], over: Partial<AskRecord> = {}) => askRecord(questions, over);
const viewOf = (record: AskRecord, locale = 'en'): PromptView =>
  buildPromptView(record, wordsFor(locale, 'Europe/Berlin'), TEAMS_CAPABILITIES);
const approvalRecord = (args: Record<string, unknown> = { ticket: 'T-1' }) =>
  recordOf([], { approval: { action: 'deploy', arguments: args, decisions: [...DECISIONS], actionHash: HASH } });

/** The inputs of a card's own body (not of its show cards), and the show card holding each action. */
function inputsOf(card: AdaptiveCard): string[] {
  return (card.body as unknown as Node[]).filter((n) => String(n.type).startsWith('Input.')).map((n) => n.id as string);
}

/**
 * What Teams sends when a person fills `fill` (input id → value; left out: left empty) and presses
 * the action titled `title` (in the card, or in the show card titled `within`): the invoke value
 * of its Action.Execute, and the message value of its Action.Submit fallback. Inputs of the card
 * and of the show card the action is in are sent, as Teams does; an empty one is left out.
 */
function press(card: AdaptiveCard, title: string, fill: Record<string, string> = {}, within?: string) {
  let scope = card;
  if (within) scope = (card.actions!.find((a) => a.title === within) as unknown as { card: AdaptiveCard }).card;
  const action = scope.actions!.find((a) => a.title === title) as unknown as Node;
  expect(action, title).toBeDefined();
  const ids = [...inputsOf(card), ...(within ? inputsOf(scope) : [])];
  const inputs = Object.fromEntries(ids.filter((id) => fill[id] !== undefined).map((id) => [id, fill[id]!]));
  const fallback = action.fallback as Node;
  return {
    execute: {
      action: { type: 'Action.Execute', id: 'x1', verb: action.verb, data: { ...(action.data as Node), ...inputs } },
      trigger: 'manual',
    },
    submit: { ...(fallback.data as Node), ...inputs },
  };
}

/** The form parts of a reading that must be a form. */
function answersOf(read: CardAction | null): FormAnswer[] {
  if (read?.kind !== 'form') throw new Error(`not a form: ${JSON.stringify(read)}`);
  return read.answers;
}

/** Both shapes read alike; returns the reading. */
function readBoth(sent: { execute: unknown; submit: unknown }): CardAction | null {
  const a = readCardAction(sent.execute);
  expect(readCardAction(sent.submit)).toEqual(a);
  return a;
}

describe('readCardAction: buttons and forms', () => {
  const single = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
  const multi = { ...single, multiSelect: true };

  it('reads a tap on an option and on Skip, and Other…’s own words as a form', () => {
    const card = promptCard(viewOf(recordOf([single as Question])), { live: true });
    expect(readBoth(press(card, 'B'))).toEqual({ kind: 'tap', token: 'AbCdEfGhIjKl.1.2' });
    expect(readBoth(press(card, 'Skip'))).toEqual({ kind: 'tap', token: 'AbCdEfGhIjKl.1.s' });
    const other = readBoth(press(card, 'Submit', { askgate_other: 'Neither *really*' }, 'Other…'));
    expect(other).toEqual({
      kind: 'form',
      token: 'AbCdEfGhIjKl.1.o',
      answers: [{ choices: [], own: 'Neither *really*' }],
    });
  });

  it('splits a multi-select value and keeps own words; the sink reads the answer', () => {
    const record = recordOf([multi as Question]);
    const card = promptCard(viewOf(record), { live: true });
    const read = readBoth(press(card, 'Submit', { askgate_q1: '1,2', askgate_w1: 'and C' }));
    expect(read).toEqual({ kind: 'form', token: 'AbCdEfGhIjKl.1.f', answers: [{ choices: [0, 1], own: 'and C' }] });
    expect(readForm(record.questions, answersOf(read))).toEqual({
      kind: 'answers',
      answers: { env: ['A', 'B', 'and C'] },
    });
    // Nothing chosen, nothing typed: an empty part the sink refuses with what to fix.
    const empty = answersOf(readBoth(press(card, 'Submit')));
    expect(empty).toEqual([{ choices: [] }]);
    expect(readForm(record.questions, empty).kind).toBe('invalid');
  });

  it('reads typed values: native inputs canonical (read strictly), text fields as typed', () => {
    const questions = [
      { id: 'n', question: 'How many?', kind: 'number', min: 0, max: 5000 },
      { id: 'd', question: 'Day?', kind: 'date' },
      { id: 't', question: 'Time?', kind: 'time' },
    ] as unknown as Question[];
    const record = recordOf(questions, { locale: 'pt-BR' });
    const card = promptCard(viewOf(record, 'pt-BR'), { live: true });
    const submit = card.actions![0]!.title!;
    const read = readBoth(press(card, submit, { askgate_q1: '1.234', askgate_q2: '2026-12-08', askgate_q3: '14:30' }));
    expect(read).toEqual({
      kind: 'form',
      token: 'AbCdEfGhIjKl.1.f',
      answers: [
        { choices: [], own: '1.234', canonical: true },
        { choices: [], own: '2026-12-08', canonical: true },
        { choices: [], own: '14:30', canonical: true },
      ],
    });
    // "1.234" from a number input is 1.234, never 1234 read in Portuguese.
    const words = wordsFor('pt-BR', 'Europe/Berlin');
    expect(readForm(questions, answersOf(read), words)).toMatchObject({
      kind: 'answers',
      answers: { n: ['1.234'], d: ['2026-12-08'], t: ['14:30'] },
    });
    // A time with zero seconds (a browser's time field) is the same time; other seconds stay, refused by core.
    const seconds = (value: string) =>
      answersOf(readCardAction({ askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 't', askgate_q1: value }))[0];
    expect(seconds('14:30:00')).toEqual({ choices: [], own: '14:30', canonical: true });
    expect(seconds('14:30:05')).toEqual({ choices: [], own: '14:30:05', canonical: true });
    // A number sent as a JSON number reads the same.
    const numeric = readCardAction({ askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'n', askgate_q1: 42 });
    expect(numeric).toMatchObject({ answers: [{ own: '42', canonical: true }] });
    const text = [
      { id: 'x', question: 'Say?', kind: 'text' },
      { id: 'w', question: 'When?', kind: 'datetime' },
      { id: 'c', question: 'Pick?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] },
    ] as unknown as Question[];
    const textRecord = recordOf(text);
    const textCard = promptCard(viewOf(textRecord), { live: true });
    const typed = answersOf(
      readBoth(press(textCard, 'Submit', { askgate_q1: 'hello', askgate_q2: '2026-12-08 14:30', askgate_q3: '2' })),
    );
    expect(typed).toEqual([{ choices: [], own: 'hello' }, { choices: [], own: '2026-12-08 14:30' }, { choices: [1] }]);
    expect(readForm(text, typed, wordsFor('en', 'Europe/Berlin'))).toMatchObject({
      kind: 'answers',
      answers: { x: ['hello'], w: ['2026-12-08T14:30:00+01:00'], c: ['B'] },
    });
  });

  it('a single choice with two values, or values that are no option, reaches the sink as refused parts', () => {
    const part = (value: string, shape = 'c') =>
      (readCardAction({ askgate: 'AbCdEfGhIjKl.1.f', askgateForm: shape, askgate_q1: value }) as { answers: unknown[] })
        .answers[0];
    expect(part('1,2')).toEqual({ choices: [-1, -1] });
    expect(part('0')).toEqual({ choices: [-1] });
    expect(part('x, 3', 'm')).toEqual({ choices: [-1, 2] });
  });
});

describe('readCardAction: decisions and refresh', () => {
  const card = promptCard(viewOf(approvalRecord({ ticket: 'T-1', n: 2 })), { live: true });

  it('reads each decision with its reason or edited arguments', () => {
    expect(readBoth(press(card, 'Approve'))).toEqual({
      kind: 'decide',
      token: 'AbCdEfGhIjKl.1.da',
      decision: 'approve',
    });
    expect(readBoth(press(card, 'Submit', { askgate_reason_r: 'Too risky' }, 'Reject…'))).toEqual({
      kind: 'decide',
      token: 'AbCdEfGhIjKl.1.dr',
      decision: 'reject',
      reason: 'Too risky',
    });
    expect(readBoth(press(card, 'Submit', { askgate_reason_q: 'Use staging' }, 'Request changes…'))).toMatchObject({
      decision: 'request_changes',
      reason: 'Use staging',
    });
    // Edit… sends the field as Teams prefilled it, edited.
    const editCard = (card.actions!.find((a) => a.title === 'Edit…') as unknown as { card: AdaptiveCard }).card;
    const prefilled = (editCard.body[0] as unknown as { value: string }).value;
    const edited = prefilled.replace('"T-1"', '"T-2"');
    expect(readBoth(press(card, 'Submit', { askgate_args: edited }, 'Edit…'))).toEqual({
      kind: 'decide',
      token: 'AbCdEfGhIjKl.1.de',
      decision: 'edit',
      arguments: { ticket: 'T-2', n: 2 },
    });
    expect(readBoth(press(card, 'Skip'))).toEqual({ kind: 'tap', token: 'AbCdEfGhIjKl.1.s' });
  });

  it('refuses a blank reason and arguments that are not JSON, with words to say so', () => {
    expect(readBoth(press(card, 'Submit', { askgate_reason_r: ' \n ' }, 'Reject…'))).toEqual({
      kind: 'refused',
      token: 'AbCdEfGhIjKl.1.dr',
      decision: 'reject',
      problem: 'reasonEmpty',
    });
    expect(readBoth(press(card, 'Submit', {}, 'Request changes…'))).toMatchObject({ problem: 'reasonEmpty' });
    expect(readBoth(press(card, 'Submit', { askgate_args: '{"ticket": T-2}' }, 'Edit…'))).toMatchObject({
      kind: 'refused',
      decision: 'edit',
      problem: 'notJson',
    });
    expect(readBoth(press(card, 'Submit', {}, 'Edit…'))).toMatchObject({ problem: 'notJson' });
    expect(teamsText('de', 'notJson')).toMatch(/kein gültiges JSON/);
  });

  it('reads the refresh invoke Teams sends for a person named in refresh.userIds', () => {
    const refreshing = promptCard(viewOf(approvalRecord()), { live: false, refreshUserIds: ['aad-1'] });
    const value = { action: { ...refreshing.refresh!.action }, trigger: 'automatic' };
    expect(readCardAction(value)).toEqual({ kind: 'refresh', token: 'AbCdEfGhIjKl.1.f' });
  });
});

describe('readCardAction: untrusted data', () => {
  const token = 'AbCdEfGhIjKl.1.1';
  it.each([
    ['nothing', undefined],
    ['a string', 'AbCdEfGhIjKl.1.1'],
    ['an array', [{ askgate: token }]],
    ['another app’s data', { action: 'approve', id: 7 }],
    ['another verb', { action: { type: 'Action.Execute', verb: 'other', data: { askgate: token } } }],
    ['not an Execute', { action: { type: 'Action.Submit', verb: 'askgate', data: { askgate: token } } }],
    ['data not an object', { action: { type: 'Action.Execute', verb: 'askgate', data: token } }],
    ['a token that does not decode', { askgate: 'AbCdEfGhIjKl.1.9' }],
    ['a token of another type', { askgate: 123 }],
    ['an oversized token', { askgate: `${token}${'1'.repeat(100)}` }],
    ['a draft control', { askgate: 'AbCdEfGhIjKl.1.p11' }],
    ['a form without its shape', { askgate: 'AbCdEfGhIjKl.1.f' }],
    ['a form with a forged shape', { askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'cz' }],
    ['a form with too many questions', { askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'cccc' }],
    ['oversized own words', { askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'c', askgate_w1: 'x'.repeat(5000) }],
    ['oversized choices', { askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'm', askgate_q1: '1,'.repeat(40) }],
    ['an oversized reason', { askgate: 'AbCdEfGhIjKl.1.dr', askgate_reason_r: 'x'.repeat(5000) }],
    ['oversized arguments', { askgate: 'AbCdEfGhIjKl.1.de', askgate_args: ' '.repeat(70_000) }],
    ['an inherited token', JSON.parse('{"__proto__": {"askgate": "AbCdEfGhIjKl.1.1"}}')],
  ])('%s → null', (_, value) => {
    expect(readCardAction(value)).toBeNull();
  });

  it('leaves __proto__ keys harmless and ignores unknown fields', () => {
    const value = JSON.parse(
      '{"askgate": "AbCdEfGhIjKl.1.de", "__proto__": {"polluted": true}, "askgate_args": "{\\"__proto__\\": {\\"x\\": 1}, \\"a\\": 1}", "extra": [1]}',
    );
    const read = readCardAction(value) as { arguments: Record<string, unknown> };
    expect(read).toMatchObject({ kind: 'decide', decision: 'edit' });
    expect(Object.hasOwn(read.arguments, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const shaped = readCardAction(
      JSON.parse('{"askgate": "AbCdEfGhIjKl.1.f", "askgateForm": "c", "askgate_q1": {"__proto__": "1"}}'),
    );
    expect(shaped).toEqual({ kind: 'form', token: 'AbCdEfGhIjKl.1.f', answers: [{ choices: [] }] });
  });

  it('never throws, whatever it is given', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const atoms = [
      null,
      0,
      -1,
      1e309,
      'AbCdEfGhIjKl.1.f',
      'AbCdEfGhIjKl.1.dr',
      'askgate',
      'refresh',
      'Action.Execute',
      '1,2',
      '',
      {},
      [],
    ];
    const any = (depth: number): unknown => {
      if (depth > 3 || random() < 0.4) return atoms[Math.floor(random() * atoms.length)];
      const keys = [
        'action',
        'type',
        'verb',
        'data',
        'askgate',
        'askgateForm',
        'askgate_q1',
        'askgate_w1',
        'askgate_args',
        'askgate_reason_r',
        '__proto__',
        'constructor',
      ];
      const out: Record<string, unknown> = {};
      for (let i = 0; i < 4; i++) out[keys[Math.floor(random() * keys.length)]!] = any(depth + 1);
      return out;
    };
    for (let i = 0; i < 3000; i++) expect(() => readCardAction(any(0))).not.toThrow();
  });
});
