// Slack's native inputs for typed questions (issue 35): one required input block per question, its
// element chosen by the question's kind, and its submitted value read back as the form part core
// reads (core/forms.ts readForm checks every value again: Slack's own checks are only a first line).
import type { types } from '@slack/bolt';
import type { FormAnswer } from '../../core/forms.js';
import type { TypedQuestionView } from '../../core/prompt-view.js';
import { TEXT_MAX_DEFAULT } from '../../core/questions/index.js';
import { zonedIso } from '../../core/questions/parse/index.js';
import { ID_PREFIX } from './render.js';
import { INPUT_LABEL_MAX, PLACEHOLDER_MAX, TEXT_INPUT_MAX } from './limits.js';

/** `action_id` of a typed question's input. */
export const VALUE_ACTION = `${ID_PREFIX}value`;
/** `block_id` of typed question `n`'s (1-based) input. */
export const valueBlock = (n: number): string => `${ID_PREFIX}v${n}`;

/** Longest text answer shown in a single-line input; longer ones get a text area. */
const SINGLE_LINE_MAX = 150;
/** Latest epoch second a datetimepicker value may name (the year 9999): anything past it is not a time. */
const EPOCH_SECONDS_MAX = 253_402_300_799;

/** The element of one typed input, as @slack/types declares it. */
export type TypedElement =
  | types.PlainTextInput
  | types.NumberInput
  | types.EmailInput
  | types.URLInput
  | types.Datepicker
  | types.Timepicker
  | types.DateTimepicker;

/** Text within the limits of an input's plain_text fields (the caller's escaping function). */
type Plain = (text: string, max: number) => types.PlainTextElement;

/** A number as Slack's `min_value` / `max_value` take it: plain decimal digits, never an exponent. */
export function decimalText(n: number): string {
  const text = String(n === 0 ? 0 : n);
  return /e/i.test(text) ? n.toFixed(20).replace(/\.?0+$/, '') : text;
}

/**
 * Whether Slack's input can take every answer the question allows: a text question longer than a
 * plain_text_input holds (3000) keeps the text form, where a thread reply takes it whole.
 */
export function inputFits(q: TypedQuestionView): boolean {
  return q.kind !== 'text' || (q.maxLength ?? TEXT_MAX_DEFAULT) <= TEXT_INPUT_MAX;
}

/** The element of a typed question (null for a kind without a case here: the prompt keeps its text form). */
export function typedElement(q: TypedQuestionView, plain: Plain): TypedElement | null {
  const action_id = VALUE_ACTION;
  const placeholder = (text: string | undefined) => (text ? { placeholder: plain(text, PLACEHOLDER_MAX) } : {});
  switch (q.kind) {
    case 'text': {
      const max = Math.min(q.maxLength ?? TEXT_MAX_DEFAULT, TEXT_INPUT_MAX);
      return {
        type: 'plain_text_input',
        action_id,
        multiline: max > SINGLE_LINE_MAX,
        ...(q.minLength ? { min_length: Math.min(q.minLength, max) } : {}),
        max_length: max,
      };
    }
    case 'number': {
      const min = q.min === undefined ? undefined : q.integer ? Math.ceil(q.min) : q.min;
      const max = q.max === undefined ? undefined : q.integer ? Math.floor(q.max) : q.max;
      return {
        type: 'number_input',
        action_id,
        is_decimal_allowed: !q.integer,
        ...(min !== undefined ? { min_value: decimalText(min) } : {}),
        ...(max !== undefined ? { max_value: decimalText(max) } : {}),
        // The input takes the number alone (Slack's notation, "2.5"): its placeholder is the unit, the
        // hint has the example.
        ...placeholder(q.unit),
      };
    }
    case 'email':
      return { type: 'email_text_input', action_id, ...placeholder(q.example) };
    case 'url':
      return { type: 'url_text_input', action_id, ...placeholder(q.example) };
    // Pickers: Slack's own placeholder ("Select a date") in the person's Slack language; no initial
    // value (an answer is never pre-filled); min/max are askgate's checks (Slack's pickers have none).
    case 'date':
      return { type: 'datepicker', action_id };
    case 'time':
      return { type: 'timepicker', action_id, timezone: q.timeZone };
    case 'datetime':
      return { type: 'datetimepicker', action_id };
    default:
      return null;
  }
}

/** The input block of typed question `q`: its label, what is expected as the hint, required. */
export function typedInput(q: TypedQuestionView, label: string, plain: Plain): types.InputBlock | null {
  const element = typedElement(q, plain);
  if (!element) return null;
  return {
    type: 'input',
    block_id: valueBlock(q.number),
    optional: false,
    label: plain(label, INPUT_LABEL_MAX),
    ...(q.expected ? { hint: plain(q.expected, INPUT_LABEL_MAX) } : {}),
    element,
  };
}

/** A form part of `own` (absent when the state holds no string). */
const part = (own: unknown, canonical: boolean): FormAnswer => ({
  choices: [],
  ...(typeof own === 'string' ? { own } : {}),
  ...(canonical ? { canonical } : {}),
});

/**
 * The form part of a typed input's untrusted state value (bolt's ViewStateValue): a text input's
 * `value`; a picker's or a number input's value in its canonical form (read strictly by core): a
 * datepicker's `selected_date`, a timepicker's `selected_time` (on the clocks of the zone it was
 * given, the ask's), a datetimepicker's `selected_date_time` (epoch seconds) written as ISO 8601
 * in the ask's `timeZone`, so what reaches core is the value it keeps.
 */
export function typedPart(state: Record<string, unknown>, timeZone: string): FormAnswer {
  switch (state.type) {
    case 'number_input':
      return part(state.value, true);
    case 'datepicker':
      return part(state.selected_date, true);
    case 'timepicker':
      return part(state.selected_time, true);
    case 'datetimepicker': {
      const seconds = state.selected_date_time;
      const valid =
        typeof seconds === 'number' && Number.isSafeInteger(seconds) && Math.abs(seconds) <= EPOCH_SECONDS_MAX;
      return part(valid ? zonedIso(seconds * 1000, timeZone) : undefined, true);
    }
    default:
      return part(state.value, false);
  }
}
