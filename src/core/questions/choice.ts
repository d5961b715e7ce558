// The `choice` kind: 2–4 options, one or several chosen (`multiSelect`), or the person's own words.
import { z } from 'zod';
import { RESERVED_LABEL, labelKey, shownText, singleLine } from '../shown-text.js';
import { hasVisible } from '../text.js';
import type { Words } from '../i18n/index.js';
import type { ButtonChoice } from '../token.js';
import { FORM_OWN_WORDS_MAX, type FormContext, type FormMessages, type QuestionKind, type ValueCheck } from './kind.js';
import { choiceGuidance, readChoiceLine } from './choice-line.js';

/** One answer option an agent offers. */
export const OptionSchema = z
  .object({
    label: singleLine(100).refine((s) => !RESERVED_LABEL.test(labelKey(s)), {
      message: 'labels "Other" and "Skip" are reserved: the human can always answer in their own words or skip',
    }),
    description: shownText(300, { multiline: true, required: false }).optional(),
  })
  .strict();

/** What the choice kind reads of a question: its options and whether several may be chosen. */
export interface ChoiceQuestion {
  readonly kind?: 'choice';
  readonly options: readonly { readonly label: string; readonly description?: string }[];
  readonly multiSelect: boolean;
}

/** One numbered option as shown in a message body. */
export interface OptionView {
  /** 1-based number the human can type. */
  number: number;
  label: string;
  description?: string;
}

/** The choice kind's part of a question's view. */
export interface ChoiceView {
  multiSelect: boolean;
  options: OptionView[];
}

const fields = {
  kind: z.literal('choice').optional(),
  options: z.array(OptionSchema).min(2, 'offer at least 2 options').max(4, 'offer at most 4 options'),
  multiSelect: z.boolean().default(false),
};

/** Labels must differ (ignoring case and character width) and not be empty. */
function refine(q: { options: readonly { label: string }[] }, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  q.options.forEach((o, i) => {
    const key = labelKey(o.label);
    if (key === '') {
      ctx.addIssue({ code: 'custom', path: ['options', i, 'label'], message: 'must not be empty' });
    } else if (seen.has(key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['options', i, 'label'],
        message: `duplicates option ${seen.get(key)! + 1} (labels must differ ignoring case and character width)`,
      });
    } else seen.set(key, i);
  });
}

/** The declared label a value names, or the value itself (trimmed) when it is the human's own words. */
function canonicalValue(question: Pick<ChoiceQuestion, 'options'>, value: string): string {
  const key = labelKey(value);
  const option = question.options.find((o) => labelKey(o.label) === key);
  return option ? option.label : value.trim();
}

/**
 * Values matching an option (ignoring case, surrounding space and a "(Recommended)" suffix) become
 * the option's declared label; others are the human's own words. A single-choice question takes
 * exactly one value; duplicates collapse.
 */
function normalize(question: ChoiceQuestion, values: readonly string[]): ValueCheck {
  const normalized = [...new Set(values.map((v) => canonicalValue(question, v)))];
  const blank = normalized.findIndex((v) => v === '');
  if (normalized.length === 0) return { ok: false, message: 'give at least one value' };
  if (blank >= 0) return { ok: false, at: blank, message: 'must not be empty' };
  if (!question.multiSelect && normalized.length > 1)
    return { ok: false, message: 'this question takes a single answer' };
  return { ok: true, values: normalized };
}

/**
 * A single-choice question takes one option or own words, not both; a multi-select question takes
 * any options plus, optionally, own words. Option indexes outside the question are refused (forged
 * or stale data), never clamped.
 */
function readForm(question: ChoiceQuestion, part: { choices: readonly number[]; own?: string }, ctx: FormContext) {
  const own = part.own !== undefined && hasVisible(part.own) ? part.own.trim() : '';
  const message = problemOf(question, part.choices, own, ctx.messages);
  if (message) return { ok: false as const, message };
  const values = [...new Set(part.choices)].map((c) => question.options[c]!.label).concat(own ? [own] : []);
  return { ok: true as const, values };
}

function problemOf(
  question: ChoiceQuestion,
  choices: readonly number[],
  own: string,
  messages: FormMessages,
): string | null {
  if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= question.options.length)) return messages.unknown;
  if (own.length > FORM_OWN_WORDS_MAX) return messages.tooLong;
  const chosen = new Set(choices).size;
  if (chosen === 0 && own === '') return messages.nothing;
  if (!question.multiSelect && chosen > 1) return messages.tooMany;
  if (!question.multiSelect && chosen === 1 && own !== '') return messages.both;
  return null;
}

/**
 * The chosen option labels (without "(Recommended)"), in the order given; any value that is not
 * an option is shown only as "their own words": free text may hold secrets or mentions.
 */
function summary(question: Pick<ChoiceQuestion, 'options'>, values: readonly string[], words: Words): string {
  const shown = values.map((v) => {
    const option =
      question.options.find((o) => o.label === v) ?? question.options.find((o) => labelKey(o.label) === labelKey(v));
    return option ? option.label.replace(/\s*\(recommended\)\s*$/i, '') : words.t('prompt.ownWords');
  });
  return [...new Set(shown)].join(words.t('list.separator'));
}

/** The option labels `values` name in `question` (canonical), or the first value that names none. */
function defaultLabels(question: Pick<ChoiceQuestion, 'options'>, values: readonly string[]): ValueCheck {
  const labels: string[] = [];
  for (const [i, value] of values.entries()) {
    const option = question.options.find((o) => labelKey(o.label) === labelKey(value));
    if (!option)
      return {
        ok: false,
        at: i,
        message: `must be one of the options: ${question.options.map((o) => o.label).join(', ')}`,
      };
    if (!labels.includes(option.label)) labels.push(option.label);
  }
  return { ok: true, values: labels };
}

/** A default names options only; a single-choice question takes exactly one. */
function defaultValues(question: ChoiceQuestion, values: readonly string[]): ValueCheck {
  const found = defaultLabels(question, values);
  if (found.ok && !question.multiSelect && found.values.length !== 1)
    return { ok: false, message: 'this question takes a single answer: give exactly one label' };
  return found;
}

/**
 * `option` (a single single-choice question's button) and `pick` need a single-choice question,
 * `toggle` a multi-select one; each an option the question has.
 */
function fits(question: ChoiceQuestion, choice: ButtonChoice): boolean {
  switch (choice.kind) {
    case 'option':
      return !question.multiSelect && choice.index < question.options.length;
    case 'pick':
    case 'toggle':
      return choice.index < question.options.length && question.multiSelect === (choice.kind === 'toggle');
    default:
      return false;
  }
}

/** The choice kind: today's options, one or several. */
export const choice = {
  name: 'choice' as const,
  fields,
  stored: {
    kind: z.literal('choice').optional(),
    options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
    multiSelect: z.boolean(),
  },
  refine,
  normalize,
  readLine: readChoiceLine,
  guidance: choiceGuidance,
  claims: (question, text) => question.options.some((o) => labelKey(o.label) === labelKey(text)),
  readForm,
  view: (q, base) => ({
    ...base,
    multiSelect: q.multiSelect,
    options: q.options.map((o, j) => ({
      number: j + 1,
      label: o.label,
      ...(o.description !== undefined && o.description !== '' ? { description: o.description } : {}),
    })),
  }),
  promptNotes: (q, words) => (q.multiSelect ? [words.t('prompt.pickSeveral')] : []),
  summary,
  value: (_q, values) => [...values],
  defaultValues,
  // A value naming an option is already its label, so "production" and "Production" agree; own words
  // agree when they are the same text.
  agreementKey: (values) => [...values].sort(),
  buttons: (q) =>
    q.multiSelect ? null : q.options.map((o, index) => ({ label: o.label, choice: { kind: 'option', index } })),
  buttonValues: (q, c) => (c.kind === 'option' && fits(q, c) ? [q.options[c.index]!.label] : null),
  fits,
} satisfies QuestionKind<ChoiceQuestion, ChoiceView>;
