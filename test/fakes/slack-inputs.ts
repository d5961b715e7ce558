// Slack's input elements as the fake models them, beyond choices: what views.open accepts of each
// (the fields @slack/types declares for PlainTextInput, NumberInput, EmailInput, URLInput,
// Datepicker, Timepicker and DateTimepicker: any other field is refused, as Slack refuses unknown
// arguments), what Slack's client lets a person submit in it, and the `state.values` entry
// (bolt's ViewStateValue) it then sends.
//
// Client-side checks, as modelled (Slack documents the first three; the last two are assumptions,
// chosen loose so askgate's own checks are what a test exercises): min_length / max_length of a
// plain_text_input; a number_input takes "-?digits(.digits)" ("0.25", "5.5", "-10": Slack's
// examples), decimals only when `is_decimal_allowed`, within min_value / max_value; pickers give
// only real dates ("YYYY-MM-DD"), times ("HH:mm") and instants (epoch seconds, picked on the
// person's own clocks); an email_text_input takes what an HTML `input type=email` takes
// ("ops@localhost" included); a url_text_input takes any absolute URL (`new URL` parses it,
// "ftp://…" included).
import type { ViewStateValue } from '@slack/bolt';

const ACTIONABLE = ['type', 'action_id'];
const FOCUSABLE = ['focus_on_load'];
const CONFIRMABLE = ['confirm'];
const PLACEHOLDABLE = ['placeholder'];
const DISPATCHABLE = ['dispatch_action_config'];

/** Every field each typed input element may carry (@slack/types block-elements.d.ts and its mixins). */
export const INPUT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  plain_text_input: [
    ...ACTIONABLE,
    ...DISPATCHABLE,
    ...FOCUSABLE,
    ...PLACEHOLDABLE,
    'initial_value',
    'multiline',
    'min_length',
    'max_length',
  ],
  number_input: [
    ...ACTIONABLE,
    ...DISPATCHABLE,
    ...FOCUSABLE,
    ...PLACEHOLDABLE,
    'is_decimal_allowed',
    'initial_value',
    'min_value',
    'max_value',
  ],
  email_text_input: [...ACTIONABLE, ...DISPATCHABLE, ...FOCUSABLE, ...PLACEHOLDABLE, 'initial_value'],
  url_text_input: [...ACTIONABLE, ...DISPATCHABLE, ...FOCUSABLE, ...PLACEHOLDABLE, 'initial_value'],
  datepicker: [...ACTIONABLE, ...CONFIRMABLE, ...FOCUSABLE, ...PLACEHOLDABLE, 'initial_date'],
  timepicker: [...ACTIONABLE, ...CONFIRMABLE, ...FOCUSABLE, ...PLACEHOLDABLE, 'initial_time', 'timezone'],
  datetimepicker: [...ACTIONABLE, ...CONFIRMABLE, ...FOCUSABLE, 'initial_date_time'],
};

const NUMBER = /^-?\d+(\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/** WHATWG's `input type=email` rule. */
const HTML_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

const isPlain = (t: any, max: number) =>
  t === undefined ||
  (t?.type === 'plain_text' && typeof t.text === 'string' && t.text.length > 0 && t.text.length <= max);

function isZone(name: unknown): boolean {
  if (typeof name !== 'string') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function isDate(s: unknown): boolean {
  const m = typeof s === 'string' ? DATE.exec(s) : null;
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/** What views.open refuses in a typed input element, or null (undefined: not one of these elements). */
export function checkTypedElement(e: any): string | null | undefined {
  const fields = INPUT_FIELDS[e?.type];
  if (!fields) return undefined;
  const unknown = Object.keys(e).find((k) => !fields.includes(k));
  if (unknown) return `unknown field ${unknown}`;
  if (!isPlain(e.placeholder, 150)) return 'placeholder';
  switch (e.type) {
    case 'plain_text_input': {
      for (const key of ['min_length', 'max_length']) {
        const n = e[key];
        if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > 3000)) return key;
      }
      if ((e.min_length ?? 0) > (e.max_length ?? 3000)) return 'min_length';
      return null;
    }
    case 'number_input': {
      if (typeof e.is_decimal_allowed !== 'boolean') return 'is_decimal_allowed';
      for (const key of ['min_value', 'max_value', 'initial_value']) {
        const v = e[key];
        // Slack takes these as strings ("must be a string"), a whole number when decimals are not allowed.
        if (v !== undefined && (typeof v !== 'string' || !NUMBER.test(v))) return key;
        if (v !== undefined && !e.is_decimal_allowed && v.includes('.')) return key;
      }
      if (e.min_value !== undefined && e.max_value !== undefined && Number(e.min_value) > Number(e.max_value))
        return 'min_value';
      return null;
    }
    case 'datepicker':
      return e.initial_date === undefined || isDate(e.initial_date) ? null : 'initial_date';
    case 'timepicker':
      if (e.initial_time !== undefined && !TIME.test(String(e.initial_time))) return 'initial_time';
      return e.timezone === undefined || isZone(e.timezone) ? null : 'timezone';
    case 'datetimepicker':
      return e.initial_date_time === undefined || Number.isInteger(e.initial_date_time) ? null : 'initial_date_time';
    default:
      return null;
  }
}

/**
 * The state entry of a typed input the person filled in with `given` (undefined or '': untouched),
 * or null when `e` is not one of these elements. Throws what Slack's client refuses to send.
 * A datetimepicker is filled with the instant picked, as ISO 8601 with an offset.
 */
export function fillTypedInput(block: string, e: any, given: string | undefined): ViewStateValue | null {
  if (!INPUT_FIELDS[e?.type]) return null;
  const text = given === undefined || given === '' ? null : given;
  const refuse = (why: string) => new Error(`${block}: Slack refuses ${JSON.stringify(text)} (${why})`);
  switch (e.type) {
    case 'plain_text_input':
      if (text !== null && e.max_length !== undefined && text.length > e.max_length)
        throw new Error(`${block}: Slack refuses more than ${e.max_length} characters`);
      if (text !== null && e.min_length !== undefined && text.length < e.min_length)
        throw refuse(`fewer than ${e.min_length} characters`);
      return { type: e.type, value: text };
    case 'number_input': {
      if (text === null) return { type: e.type, value: null };
      if (!NUMBER.test(text)) throw refuse('not a number');
      if (!e.is_decimal_allowed && text.includes('.')) throw refuse('not a whole number');
      if (e.min_value !== undefined && Number(text) < Number(e.min_value)) throw refuse(`below ${e.min_value}`);
      if (e.max_value !== undefined && Number(text) > Number(e.max_value)) throw refuse(`above ${e.max_value}`);
      return { type: e.type, value: text };
    }
    case 'email_text_input':
      if (text !== null && !HTML_EMAIL.test(text)) throw refuse('not an email address');
      return { type: e.type, value: text };
    case 'url_text_input':
      if (text !== null && !URL.canParse(text)) throw refuse('not a URL');
      return { type: e.type, value: text };
    case 'datepicker':
      if (text !== null && !isDate(text)) throw refuse('a picker gives only real dates');
      return { type: e.type, selected_date: text };
    case 'timepicker':
      if (text !== null && !TIME.test(text)) throw refuse('a picker gives only HH:mm');
      return { type: e.type, selected_time: text };
    default: {
      const at = text === null ? null : Date.parse(text);
      if (at !== null && (!/(Z|[+-]\d{2}:\d{2})$/.test(text!) || Number.isNaN(at) || at % 60_000 !== 0))
        throw refuse('a picker gives whole minutes on the person’s clocks');
      return { type: e.type, selected_date_time: at === null ? null : at / 1000 };
    }
  }
}

/** Whether a state entry is empty (what a required input may not be). */
export const isEmptyState = (v: ViewStateValue): boolean =>
  v.value === null ||
  v.selected_option === null ||
  v.selected_options?.length === 0 ||
  v.selected_date === null ||
  v.selected_time === null ||
  v.selected_date_time === null;

/** A typed input as a person sees it (one line under its label), or null for another element. */
export function renderTypedInput(e: any, decode: (s: string) => string): string | null {
  if (!INPUT_FIELDS[e?.type]) return null;
  // A prefilled input shows its initial_value (multiline: each line in the box), else its placeholder.
  const shown =
    typeof e.initial_value === 'string'
      ? e.initial_value.replace(/\n/g, '\n    ')
      : e.placeholder
        ? decode(e.placeholder.text)
        : '';
  const box = `[ ${shown} ]`;
  switch (e.type) {
    case 'plain_text_input': {
      const limits =
        e.min_length !== undefined || (e.max_length !== undefined && e.max_length < 3000)
          ? ` ${e.min_length ?? 0}–${e.max_length ?? 3000} characters`
          : '';
      return limits ? `${box} ${e.multiline ? 'text area' : 'one line'},${limits}` : box;
    }
    case 'number_input': {
      const range = [e.min_value ?? '…', e.max_value ?? '…'].join(' to ');
      return `${box} number (${e.is_decimal_allowed ? 'decimals allowed' : 'whole'}, ${range})`;
    }
    case 'email_text_input':
      return `${box} email`;
    case 'url_text_input':
      return `${box} link`;
    case 'datepicker':
      return '[ 📅 Select a date ]';
    case 'timepicker':
      return `[ 🕑 Select time ] ${e.timezone ?? ''}`.trimEnd();
    default:
      return '[ 📅 Select a date ] [ 🕑 Select time ]';
  }
}
