import { ComponentType } from 'discord.js';
import type { FormAnswer } from '../../core/forms.js';
import { translate } from '../../core/i18n/index.js';
import { choiceField, ownField, SHARED_OWN_FIELD } from './modal.js';
import { typedField } from './modal-typed.js';

/** One submitted field as discord.js parses it (`ModalSubmitInteraction.fields.fields`): untrusted. */
export interface SubmittedField {
  type: number;
  value?: string | boolean | null;
  values?: readonly string[];
}

/** What a modal submission says: one {@link FormAnswer} per question, or a problem to show before any check. */
export type ModalReading = { kind: 'answers'; answers: FormAnswer[] } | { kind: 'problem'; message: string };

/** Told (in English; `form.ownUnclear` in every locale, forms.ts translates it) when the shared own-words field of a 3-question modal does not say which question it answers. */
export const SHARED_OWN_UNCLEAR = translate('en', 'form.ownUnclear');

/** Most questions a submission is read for (askgate asks hold 1–3; the field names carry one digit). */
const QUESTIONS_MAX = 9;
/** A question's field (`choiceField` / `ownField` / `typedField`): its number. */
const FIELD = /^[qwt]([1-9])$/;
/** A line of the shared field naming its question: `3: words` (a space after the colon, so "2:30pm" stays words). */
const NUMBERED = /^\s*([1-9])\s*:(?:\s+|$)(.*)$/;

/**
 * Reads a submitted form modal (or the one-field "Other…" modal): option values `"1"`–`"4"` become
 * 0-based indexes, anything else an index no question has (readForm refuses it, never clamps);
 * a missing or mistyped field counts as nothing chosen. A typed question's text input is its
 * part's `own` text, as typed (readForm reads and checks it by its kind); the shared own-words
 * field never answers a typed question. The question count is the highest field number present,
 * so a submission missing questions fails readForm's shape check.
 */
export function readModal(fields: ReadonlyMap<string, SubmittedField>): ModalReading {
  let count = 0;
  for (const id of fields.keys()) {
    const m = FIELD.exec(id);
    if (m) count = Math.max(count, Number(m[1]));
  }
  count = Math.min(count, QUESTIONS_MAX);
  const answers: FormAnswer[] = [];
  const typed: boolean[] = [];
  for (let n = 1; n <= count; n++) {
    typed.push(fields.has(typedField(n)));
    const own = textOf(fields.get(typedField(n)) ?? fields.get(ownField(n)));
    answers.push({ choices: choicesOf(fields.get(choiceField(n))), ...(own !== '' ? { own } : {}) });
  }
  const shared = textOf(fields.get(SHARED_OWN_FIELD));
  if (shared.trim() === '') return { kind: 'answers', answers };
  const split = splitShared(
    shared,
    answers.map((a, i) => !typed[i] && a.choices.length === 0 && a.own === undefined),
  );
  if (!split) return { kind: 'problem', message: SHARED_OWN_UNCLEAR };
  return {
    kind: 'answers',
    answers: answers.map((a, i) => (split[i] !== undefined && !typed[i] ? { ...a, own: split[i] } : a)),
  };
}

function choicesOf(field: SubmittedField | undefined): number[] {
  if (field?.type === ComponentType.RadioGroup) return typeof field.value === 'string' ? [indexOf(field.value)] : [];
  if (field?.type === ComponentType.CheckboxGroup && Array.isArray(field.values))
    return field.values.slice(0, QUESTIONS_MAX * 4).map(indexOf);
  return [];
}

const indexOf = (value: unknown) => (typeof value === 'string' && /^[1-9]$/.test(value) ? Number(value) - 1 : -1);

function textOf(field: SubmittedField | undefined): string {
  return field?.type === ComponentType.TextInput && typeof field.value === 'string' ? field.value : '';
}

/**
 * Splits the shared own-words field: a line starting `N:` and the lines after it go to question N;
 * lines before any number go to the only question left empty (`empty`), else the split fails (null).
 * Returns own words per question (undefined where none).
 */
export function splitShared(text: string, empty: readonly boolean[]): (string | undefined)[] | null {
  const parts: string[][] = empty.map(() => []);
  const loose: string[] = [];
  let current = -1;
  for (const row of text.split(/\r?\n/)) {
    const m = NUMBERED.exec(row);
    const n = m ? Number(m[1]) - 1 : -1;
    if (m && n < empty.length) {
      current = n;
      parts[n]!.push(m[2]!);
    } else if (current >= 0) parts[current]!.push(row);
    else loose.push(row);
  }
  if (loose.join('\n').trim() !== '') {
    const open = empty.flatMap((e, i) => (e && parts[i]!.join('').trim() === '' ? [i] : []));
    if (open.length !== 1) return null;
    parts[open[0]!]!.unshift(...loose);
  }
  return parts.map((p) => {
    const words = p.join('\n').trim();
    return words === '' ? undefined : words;
  });
}
