// What Teams sends back when a person uses an askgate card, read as untrusted data: the value of an
// `adaptiveCard/action` invoke (`{ action: { type: 'Action.Execute', verb, data }, trigger }`, the
// card's inputs merged into `data`) or the `value` of the message an `Action.Submit` fallback posts
// (the action's data and the inputs at the top level). It only shapes: the sink checks the token,
// the ask, the person and every value again.
import type { Decision } from '../../core/approval/decisions.js';
import { NEEDS_REASON } from '../../core/approval/decisions.js';
import { APPROVAL_TEXT_MAX_BYTES } from '../../core/approval/approval-schema.js';
import type { FormAnswer } from '../../core/forms.js';
import { FORM_OWN_WORDS_MAX } from '../../core/forms.js';
import { ownValue } from '../../core/own.js';
import { hasVisible } from '../../core/text.js';
import { decodeToken } from '../../core/token.js';
import {
  ARGUMENTS_INPUT,
  OTHER_INPUT,
  REFRESH_VERB,
  SHAPE,
  SHAPE_FIELD,
  TOKEN_FIELD,
  VERB,
  ownInput,
  reasonInput,
  valueInput,
  type ShapeLetter,
} from './cards-data.js';

/** What a card action means, for the channel to hand to the sink. */
export type CardAction =
  /** A button that acts at once (an option, Skip): `sink.button`. */
  | { kind: 'tap'; token: string }
  /** A form's Submit, or Other…'s own words: `sink.submitForm`, one part per question. */
  | { kind: 'form'; token: string; answers: FormAnswer[] }
  /** A decision on an approval (Approve, or a submitted reason or edit): `sink.decide` (or `sink.button` for Approve). */
  | { kind: 'decide'; token: string; decision: Decision; reason?: string; arguments?: unknown }
  /**
   * A decision the card's fields cannot make: a blank reason (`reasonEmpty`) or edited arguments
   * that are not JSON (`notJson`). Nothing reaches the sink: the channel answers with
   * words.ts `teamsText(locale, problem)` and leaves the card as it is, so the person can fix it.
   */
  | { kind: 'refused'; token: string; decision: Decision; problem: 'reasonEmpty' | 'notJson' }
  /** Teams asks for the card of one of the people in `refresh.userIds`: the live card, or the outcome. */
  | { kind: 'refresh'; token: string };

/** Longest value of an input read (own words, a reason): longer ones are refused by core, so a bit more is kept to say so. */
const FIELD_MAX = FORM_OWN_WORDS_MAX + 1;
/** Longest edited arguments text read (twice the largest JSON core accepts: its indentation). */
const ARGUMENTS_MAX = APPROVAL_TEXT_MAX_BYTES * 2;
/** Longest multi-select value: "1,2,3,4" with room for spaces. */
const CHOICES_TEXT_MAX = 32;

type Data = Record<string, unknown>;

const isObject = (value: unknown): value is Data =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An input's value as text: a string, or a finite number (some clients send a number input's value
 * as one); absent for anything else; null when it is longer than `max` (the whole action is refused).
 */
function text(data: Data, id: string, max: number): string | undefined | null {
  const value = ownValue(data, id);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  return value.length > max ? null : value;
}

/** The 0-based options of a choice set's value ("2", or "1,3" for several); -1 (refused by core) for anything else. */
function choicesOf(value: string, multi: boolean): number[] | null {
  if (value.length > CHOICES_TEXT_MAX) return null;
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (!multi && parts.length > 1) return parts.map(() => -1);
  return parts.map((p) => (/^[1-9]$/.test(p) ? Number(p) - 1 : -1));
}

/** One question's form part from its inputs, read by its shape letter; null when a value is oversized. */
function partOf(data: Data, n: number, letter: ShapeLetter): FormAnswer | null {
  const value = text(data, valueInput(n), FIELD_MAX);
  if (value === null) return null;
  if (letter === 'c' || letter === 'm') {
    const choices = value === undefined ? [] : choicesOf(value, letter === 'm');
    const own = text(data, ownInput(n), FIELD_MAX);
    if (choices === null || own === null) return null;
    return { choices, ...(own !== undefined && own !== '' ? { own } : {}) };
  }
  const canonical = letter === 'n' || letter === 'd' || letter === 't';
  // A time input's value is HH:MM; a client on a browser time field may add ":00" seconds.
  const own = letter === 't' && value !== undefined ? value.replace(/^(\d{2}:\d{2}):00$/, '$1') : value;
  return { choices: [], ...(own !== undefined ? { own } : {}), ...(canonical ? { canonical } : {}) };
}

/** A decision's action: the reason or the edited arguments its fields hold. */
function decisionOf(data: Data, token: string, decision: Decision): CardAction | null {
  if (decision === 'edit') {
    const said = text(data, ARGUMENTS_INPUT, ARGUMENTS_MAX);
    if (said === null) return null;
    // Approve's token never comes with arguments; an Edit without its field is not JSON either.
    if (said === undefined) return { kind: 'refused', token, decision, problem: 'notJson' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(said);
    } catch {
      return { kind: 'refused', token, decision, problem: 'notJson' };
    }
    return { kind: 'decide', token, decision, arguments: parsed };
  }
  if (!NEEDS_REASON.has(decision)) return { kind: 'decide', token, decision };
  const reason = text(data, reasonInput(decision), FIELD_MAX);
  if (reason === null) return null;
  if (reason === undefined || !hasVisible(reason)) return { kind: 'refused', token, decision, problem: 'reasonEmpty' };
  return { kind: 'decide', token, decision, reason };
}

/** The data of an invoke's `Action.Execute`, or of a Submit's message value; null when it is not askgate's. */
function dataOf(value: Data): { data: Data; refresh: boolean } | null {
  const action = ownValue(value, 'action');
  if (action === undefined) return { data: value, refresh: false };
  if (!isObject(action) || ownValue(action, 'type') !== 'Action.Execute') return null;
  const verb = ownValue(action, 'verb');
  const data = ownValue(action, 'data');
  if ((verb !== VERB && verb !== REFRESH_VERB) || !isObject(data)) return null;
  return { data, refresh: verb === REFRESH_VERB };
}

/**
 * Reads what a card action means; null for anything that is not an askgate action (another app's
 * card, a token that does not decode, a malformed or oversized value). Never throws; reads only
 * own properties (a `__proto__` key is just a key); ignores fields it does not know.
 */
export function readCardAction(value: unknown): CardAction | null {
  if (!isObject(value)) return null;
  const read = dataOf(value);
  if (!read) return null;
  const token = ownValue(read.data, TOKEN_FIELD);
  const decoded = decodeToken(token);
  if (typeof token !== 'string' || !decoded) return null;
  if (read.refresh) return { kind: 'refresh', token };
  const choice = decoded.choice;
  switch (choice.kind) {
    case 'option':
    case 'skip':
      return { kind: 'tap', token };
    case 'decide':
      return decisionOf(read.data, token, choice.decision);
    case 'other': {
      const own = text(read.data, OTHER_INPUT, FIELD_MAX);
      if (own === null) return null;
      return { kind: 'form', token, answers: [{ choices: [], ...(own !== undefined ? { own } : {}) }] };
    }
    case 'form': {
      const shape = ownValue(read.data, SHAPE_FIELD);
      if (typeof shape !== 'string' || !SHAPE.test(shape)) return null;
      const answers: FormAnswer[] = [];
      for (const [i, letter] of [...shape].entries()) {
        const part = partOf(read.data, i + 1, letter as ShapeLetter);
        if (!part) return null;
        answers.push(part);
      }
      return { kind: 'form', token, answers };
    }
    default:
      // Draft controls (pick, toggle, step, own, submit) belong to forms drawn on a message: not on a card.
      return null;
  }
}
