import { formMessages, type FormAnswer, type FormProblem } from '../../core/forms.js';
import { ENGLISH, isTimeZone, LOCALES, type Words } from '../../core/i18n/index.js';
import { ownValue } from '../../core/own.js';
import { ID_PREFIX } from './render.js';
import { typedPart } from './typed-inputs.js';

/**
 * What a modal carries in its `private_metadata` to route its submission: the token of the button
 * that opened it, the conversation (for the check and the notice), the thread the prompt is in and
 * the shipped locale the modal speaks (when not English: a notice no outcome carries follows it),
 * and the ask's time zone when the modal has a datetimepicker (its value is an instant, written in
 * that zone before core reads it). Slack echoes it in a signed request, but it is still parsed as
 * untrusted data.
 */
export interface FormMeta {
  token: string;
  channel: string;
  thread?: string;
  locale?: string;
  zone?: string;
}

/** Most questions an ask has (core's request schema), so the most a submission is read for. */
const QUESTIONS_MAX = 3;
const TOKEN = /^[0-9A-Za-z.]{1,64}$/;
const CONVERSATION = /^[A-Z0-9]{1,32}$/;
const TS = /^\d{1,12}\.\d{1,8}$/;
/** An IANA zone name's shape (checked against Intl too). */
const ZONE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
/** An option's value: its 1-based number. */
const OPTION_VALUE = /^[1-9]$/;

/** The `private_metadata` string of a form. */
export function encodeMeta(meta: FormMeta): string {
  return JSON.stringify({
    t: meta.token,
    c: meta.channel,
    ...(meta.thread ? { h: meta.thread } : {}),
    ...(meta.locale && meta.locale !== 'en' ? { l: meta.locale } : {}),
    ...(meta.zone ? { z: meta.zone } : {}),
  });
}

/** Reads `private_metadata`; null for anything that is not exactly what {@link encodeMeta} writes. */
export function readMeta(raw: unknown): FormMeta | null {
  if (typeof raw !== 'string' || raw.length > 512) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  const token = ownValue(o, 't');
  const channel = ownValue(o, 'c');
  const thread = ownValue(o, 'h');
  const locale = ownValue(o, 'l');
  const zone = ownValue(o, 'z');
  if (typeof token !== 'string' || !TOKEN.test(token)) return null;
  if (typeof channel !== 'string' || !CONVERSATION.test(channel)) return null;
  if (thread !== undefined && (typeof thread !== 'string' || !TS.test(thread))) return null;
  // Only a shipped tag: the map's own keys, never a lookup on a plain object.
  if (locale !== undefined && (typeof locale !== 'string' || !LOCALES.has(locale))) return null;
  if (zone !== undefined && (typeof zone !== 'string' || !ZONE.test(zone) || !isTimeZone(zone))) return null;
  return {
    token,
    channel,
    ...(typeof thread === 'string' ? { thread } : {}),
    ...(typeof locale === 'string' ? { locale } : {}),
    ...(typeof zone === 'string' ? { zone } : {}),
  };
}

/** Where each question's fields were in the submitted modal, to put a problem beside the right one. */
export interface FormFields {
  /**
   * block_id of the choices and of the own words, per question (0-based), when the modal had them;
   * a typed question's one input is its `own`.
   */
  choice: (string | undefined)[];
  own: (string | undefined)[];
}

/** A submission read from `view.state.values`: one {@link FormAnswer} per question, and where its fields were. */
export interface ReadSubmission {
  answers: FormAnswer[];
  fields: FormFields;
}

type Entry = Record<string, unknown>;

function entry(values: Entry, blockId: string, actionId: string): Entry | undefined {
  const block = ownValue(values, blockId);
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return undefined;
  const value = ownValue(block as Entry, actionId);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entry) : undefined;
}

/** An option's 0-based index from its untrusted value; -1 (refused by the core's check) for anything else. */
function optionIndex(option: unknown): number {
  const value = typeof option === 'object' && option !== null ? (option as { value?: unknown }).value : undefined;
  return typeof value === 'string' && OPTION_VALUE.test(value) ? Number(value) - 1 : -1;
}

/** Where a typed question's input is (`block(n)`, `action`) and the zone a datetimepicker's instant is written in. */
export interface TypedFields {
  block: (n: number) => string;
  action: string;
  timeZone: string;
}

/**
 * Reads the untrusted `view.state.values` (block_id -> action_id -> value) of an askgate modal:
 * a choice question `n` has `askgate_q<n>` (radio_buttons: `selected_option`; checkboxes:
 * `selected_options`) and `askgate_w<n>` (plain_text_input: `value`); a typed one (with `typed`)
 * its input `askgate_v<n>` (read by typed-inputs.ts `typedPart`). The questions are those with
 * any of these blocks, from the first on; null when there is none. Option values are the 1-based
 * option numbers.
 */
export function readSubmission(
  values: unknown,
  choiceBlock: (n: number) => string,
  ownBlock: (n: number) => string,
  actions: { choice: string; own: string },
  typed?: TypedFields,
): ReadSubmission | null {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return null;
  const state = values as Entry;
  const answers: FormAnswer[] = [];
  const fields: FormFields = { choice: [], own: [] };
  for (let n = 1; n <= QUESTIONS_MAX; n++) {
    const choice = entry(state, choiceBlock(n), actions.choice);
    const own = entry(state, ownBlock(n), actions.own);
    const value = typed && !choice && !own ? entry(state, typed.block(n), typed.action) : undefined;
    if (value && typed) {
      answers.push(typedPart(value, typed.timeZone));
      fields.choice.push(undefined);
      fields.own.push(typed.block(n));
      continue;
    }
    if (!choice && !own) break;
    const picked = !choice
      ? []
      : choice.type === 'checkboxes'
        ? Array.isArray(choice.selected_options)
          ? choice.selected_options.map(optionIndex)
          : []
        : choice.selected_option
          ? [optionIndex(choice.selected_option)]
          : [];
    const words = own && typeof own.value === 'string' ? own.value : undefined;
    answers.push({ choices: picked, ...(words !== undefined ? { own: words } : {}) });
    fields.choice.push(choice ? choiceBlock(n) : undefined);
    fields.own.push(own ? ownBlock(n) : undefined);
  }
  return answers.length > 0 ? { answers, fields } : null;
}

/**
 * `response_action: errors` for a form's problems, keyed by block_id: beside the own words when
 * they are too long or the question has no choices in this modal, beside the choices otherwise.
 * Two problems for one field are joined. `words`: the language the problems are in.
 */
export function errorsFor(
  problems: readonly FormProblem[],
  fields: FormFields,
  words: Words = ENGLISH,
): Record<string, string> {
  const tooLong = formMessages(words).tooLong;
  const errors = new Map<string, string>();
  const first = fields.choice[0] ?? fields.own[0] ?? `${ID_PREFIX}q1`;
  for (const p of problems) {
    const choice = fields.choice[p.question];
    const own = fields.own[p.question];
    const block = (p.message === tooLong ? (own ?? choice) : (choice ?? own)) ?? first;
    errors.set(block, errors.has(block) ? `${errors.get(block)} ${p.message}` : p.message);
  }
  return Object.fromEntries(errors);
}
