import { describe, expect, it } from 'vitest';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { encodeMeta, errorsFor, readMeta, readSubmission } from '../../src/channels/slack/form-state.js';
import {
  CHOICE_ACTION,
  choiceBlock,
  formFits,
  formModal,
  modalProblem,
  OWN_ACTION,
  ownBlock,
} from '../../src/channels/slack/modal.js';
import { decimalText, typedPart, VALUE_ACTION, valueBlock } from '../../src/channels/slack/typed-inputs.js';
import { readForm } from '../../src/core/forms.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { LOCALES } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';
import { checkModal } from '../fakes/slack-views.js';

const META = { token: 'AbCdEfGhIjKl01.3.f', channel: 'C0001' };
const TYPED = { block: valueBlock, action: VALUE_ACTION, timeZone: 'Europe/Berlin' };
const read = (values: unknown, timeZone = 'Europe/Berlin') =>
  readSubmission(values, choiceBlock, ownBlock, { choice: CHOICE_ACTION, own: OWN_ACTION }, { ...TYPED, timeZone });

/** A question of every kind, with every constraint its kind takes. */
const EVERY_KIND = [
  { id: 'c', question: 'Pick?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] },
  { id: 't', question: 'Say?', kind: 'text', minLength: 2, maxLength: 3000, pattern: '[a-z ]+' },
  { id: 'n', question: 'Count?', kind: 'number', min: 0.000_000_1, max: 999_999_999_999_999, unit: 'km/h' },
  { id: 'i', question: 'Whole?', kind: 'number', min: -2.5, max: 2.5, integer: true },
  { id: 'd', question: 'Day?', kind: 'date', min: '2026-01-01', max: '2026-12-31' },
  { id: 'h', question: 'Hour?', kind: 'time', min: '08:00', max: '18:00' },
  { id: 'dt', question: 'When?', kind: 'datetime', min: '2026-01-01T00:00:00+09:00' },
  { id: 'e', question: 'Mail?', kind: 'email' },
  { id: 'u', question: 'Link?', kind: 'url' },
] as unknown as Question[];

const viewOf = (questions: Question[], locale = 'en', timeZone = 'Asia/Tokyo') =>
  buildPromptView(
    { id: 'TypedSlack000001', version: 1, questions, locale, timeZone },
    wordsFor(locale, timeZone),
    SLACK_CAPABILITIES,
  );

describe('typed inputs: every modal Slack would accept', () => {
  // Three questions at most per ask: every kind in threes, in every shipped locale.
  const triples = Array.from({ length: Math.ceil(EVERY_KIND.length / 3) }, (_, i) =>
    EVERY_KIND.slice(i * 3, i * 3 + 3),
  );
  const cases = [...LOCALES.keys()].flatMap((locale) => triples.map((questions) => ({ locale, questions })));

  it.each(cases)('$locale: $questions.0.id…', ({ locale, questions }) => {
    const view = viewOf(questions, locale);
    expect(view.form).toBeDefined();
    expect(formFits(view)).toBe(true);
    const modal = formModal(view, META, locale)!;
    expect(modal).not.toBeNull();
    expect(modalProblem(modal)).toBeNull();
    expect(checkModal(modal)).toBeNull();
    // The field count core's modalFits counts: a choice and its own words, one input per typed question.
    const choices = questions.filter((q) => !('kind' in q)).length;
    expect(modal.blocks).toHaveLength(choices * 2 + (questions.length - choices));
    expect('z' in JSON.parse(modal.private_metadata!)).toBe(
      questions.some((q) => 'kind' in q && q.kind === 'datetime'),
    );
  });

  it('writes number bounds as Slack takes them: plain decimals, whole ones for a whole number', () => {
    const modal = formModal(viewOf([EVERY_KIND[2]!, EVERY_KIND[3]!]), META)!;
    expect(
      modal.blocks.map((b: any) => [b.element.min_value, b.element.max_value, b.element.is_decimal_allowed]),
    ).toEqual([
      ['0.0000001', '999999999999999', true],
      ['-2', '2', false],
    ]);
    expect([decimalText(-0), decimalText(1e-7), decimalText(-2.5), decimalText(1e14)]).toEqual([
      '0',
      '0.0000001',
      '-2.5',
      '100000000000000',
    ]);
  });

  it('a text question Slack cannot hold whole keeps the text form; 3000 fits', () => {
    const text = (maxLength: number) =>
      [{ id: 't', question: 'Say?', kind: 'text', maxLength }] as unknown as Question[];
    expect(formFits(viewOf(text(3000)))).toBe(true);
    const long = viewOf(text(3001));
    expect(long.form).toBeDefined(); // core's rule counts fields only
    expect(formFits(long)).toBe(false);
    expect(formModal(long, META)).toBeNull();
  });

  it('modalProblem catches what views.open would refuse in a typed input', () => {
    const modal = formModal(viewOf([EVERY_KIND[1]!, EVERY_KIND[7]!]), META)!;
    const [text, email] = modal.blocks as any[];
    expect(modalProblem({ ...modal, blocks: [{ ...text, element: { ...text.element, max_length: 3001 } }] })).toBe(
      'length',
    );
    expect(modalProblem({ ...modal, blocks: [{ ...text, element: { ...text.element, min_length: 3001 } }] })).toBe(
      'length',
    );
    const placeholder = { type: 'plain_text', text: 'x'.repeat(151) };
    expect(modalProblem({ ...modal, blocks: [{ ...email, element: { ...email.element, placeholder } }] })).toBe(
      'placeholder',
    );
  });
});

describe('typed inputs: reading a submission', () => {
  it.each([
    ['a text input', { type: 'plain_text_input', value: ' words ' }, { choices: [], own: ' words ' }],
    ['an email input', { type: 'email_text_input', value: 'a@b.example' }, { choices: [], own: 'a@b.example' }],
    ['a url input', { type: 'url_text_input', value: 'https://x.example' }, { choices: [], own: 'https://x.example' }],
    ['a number input', { type: 'number_input', value: '1.234' }, { choices: [], own: '1.234', canonical: true }],
    [
      'a datepicker',
      { type: 'datepicker', selected_date: '2026-12-08' },
      { choices: [], own: '2026-12-08', canonical: true },
    ],
    ['a timepicker', { type: 'timepicker', selected_time: '09:05' }, { choices: [], own: '09:05', canonical: true }],
    [
      'a datetimepicker: epoch seconds in the ask zone',
      { type: 'datetimepicker', selected_date_time: 1_796_736_600 },
      { choices: [], own: '2026-12-08T14:30:00+01:00', canonical: true },
    ],
    ['an untouched input', { type: 'number_input', value: null }, { choices: [], canonical: true }],
    [
      'a datetimepicker value as text',
      { type: 'datetimepicker', selected_date_time: '1796736600' },
      { choices: [], canonical: true },
    ],
    ['a fractional instant', { type: 'datetimepicker', selected_date_time: 1.5 }, { choices: [], canonical: true }],
    [
      'an instant past the year 9999',
      { type: 'datetimepicker', selected_date_time: 1e12 },
      { choices: [], canonical: true },
    ],
    ['a value that is not text', { type: 'plain_text_input', value: { toString: 1 } }, { choices: [] }],
  ])('%s', (_name, state, part) => {
    expect(typedPart(state, 'Europe/Berlin')).toEqual(part);
    expect(read({ askgate_v1: { [VALUE_ACTION]: state } })).toEqual({
      answers: [part],
      fields: { choice: [undefined], own: ['askgate_v1'] },
    });
  });

  it('reads choice and typed questions in order; a forged block of both kinds for one question is read as a choice', () => {
    const values = {
      askgate_q1: { [CHOICE_ACTION]: { type: 'radio_buttons', selected_option: { value: '2' } } },
      askgate_w1: { [OWN_ACTION]: { type: 'plain_text_input', value: null } },
      askgate_v1: { [VALUE_ACTION]: { type: 'number_input', value: '9' } },
      askgate_v2: { [VALUE_ACTION]: { type: 'number_input', value: '4' } },
      // Under another action id: not askgate's input, so question 3 is not there.
      askgate_v3: { other: { type: 'number_input', value: '5' } },
    };
    const got = read(values)!;
    expect(got.answers).toEqual([{ choices: [1] }, { choices: [], own: '4', canonical: true }]);
    expect(got.fields).toEqual({ choice: ['askgate_q1', undefined], own: ['askgate_w1', 'askgate_v2'] });
    // Problems land on the typed input's block.
    expect(errorsFor([{ question: 1, message: 'bad' }], got.fields)).toEqual({ askgate_v2: 'bad' });
  });

  it('a number input value is read strictly; the same text typed in a thread is read in the language', () => {
    const questions = [{ id: 'n', question: 'Quanto?', kind: 'number' }] as unknown as Question[];
    const words = wordsFor('pt-BR');
    const parse = { locales: ['pt-BR'], timeZone: 'UTC', now: 0 };
    expect(readForm(questions, [{ choices: [], own: '1.234', canonical: true }], words, parse)).toEqual({
      kind: 'answers',
      answers: { n: ['1.234'] },
    });
    expect(readForm(questions, [{ choices: [], own: '1.234' }], words, parse)).toMatchObject({
      answers: { n: ['1234'] },
    });
  });
});

describe('typed inputs: private_metadata carries the ask zone when a datetimepicker needs it', () => {
  it('reads back a zone; refuses one that is not an IANA zone', () => {
    expect(readMeta(encodeMeta({ ...META, zone: 'America/Sao_Paulo' }))).toEqual({
      ...META,
      zone: 'America/Sao_Paulo',
    });
    expect(JSON.parse(encodeMeta(META))).toEqual({ t: META.token, c: META.channel });
    for (const zone of ['Mars/Olympus', '../etc/passwd', 'UTC<script>', 42, '', 'a'.repeat(70)])
      expect(readMeta(JSON.stringify({ t: META.token, c: META.channel, z: zone }))).toBeNull();
  });
});
