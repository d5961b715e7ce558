// The seam every answer kind fills (choice now; text, number, date… next). A kind module owns what
// is particular to its answers: its schema part, every check of a value, how a typed line or a form
// part reads, what a renderer is handed, how an answer is shown and compared. This file imports no
// schema and no catalogue (types only), so the request schema and the SDK can load the kinds.
import type { z } from 'zod';
import type { Words } from '../i18n/index.js';
import type { ButtonChoice } from '../token.js';
import type { ParseContext } from './parse-context.js';

export type { ParseContext } from './parse-context.js';

/** The longest own-words answer a form takes (the API's limit for one answer value). */
export const FORM_OWN_WORDS_MAX = 4000;

/**
 * What a kind's check says of one question's values: the values as kept (canonical), with what was
 * given when that differs from them (`raw`, a typed kind's one value as written), or why not (`at`: which value).
 */
export type ValueCheck = { ok: true; values: string[]; raw?: string } | { ok: false; at?: number; message: string };

/** A normalized value in the result's `values`: a choice's labels, a number, or a typed kind's text. */
export type AnswerValue = string | number | string[];

/** What one line (or a whole single-question reply) says about one question. */
export type LineReading =
  | { kind: 'empty' }
  | { kind: 'skip' }
  /**
   * The values as kept (a choice: declared option labels in option order, or the human's trimmed
   * words; a typed kind: its one normalized value), and what the person wrote when that differs (`raw`).
   */
  | { kind: 'values'; values: string[]; raw?: string }
  /**
   * `problem` is one sentence; the caller adds the kind's guidance and, for several questions, a prefix
   * (then `inline`, the same sentence as it reads after "Question 2: ").
   */
  | { kind: 'invalid'; problem: string; inline: string; reason?: RejectReason };

/** Why a typed answer was refused, as the ask's history records it (never the text). */
export type RejectReason = 'format' | 'range' | 'length' | 'pattern' | 'integer' | 'nonexistent';

/** What a kind reads a line with: the words of its hints, whether a text is a skip word of the ask's locales, how typed values read. */
export interface LineContext {
  words: Words;
  isSkipWord(text: string): boolean;
  parse: ParseContext;
}

/**
 * One question's part of a submitted form: the chosen options (0-based indexes) and the person's
 * own words ("Other"). Untrusted: it comes from a platform's form payload or a stored draft.
 */
export interface FormAnswer {
  choices: readonly number[];
  own?: string;
  /**
   * `own` is a native input's value in the API's canonical form (a number input's "1.234", a date
   * picker's "2026-12-08"): a typed kind reads it strictly, never in a language ("1.234" is not
   * 1234 in pt-BR there).
   */
  canonical?: boolean;
}

/** What a person is told for each problem of a form (catalogue keys `form.*`, see core/forms.ts). */
export type FormMessages = Readonly<Record<'nothing' | 'both' | 'tooMany' | 'unknown' | 'tooLong' | 'shape', string>>;

/** What a form part means for one question: its values (and `raw`, see {@link ValueCheck}), or the problem to show beside its field. */
export type FormPartReading =
  | { ok: true; values: string[]; raw?: string }
  /** `reason`: why a typed value was refused (the history's `reply_rejected`). */
  | { ok: false; message: string; reason?: RejectReason };

/** What a kind reads a form part with: the problems' words, the person's words, how typed values read. */
export interface FormContext {
  messages: FormMessages;
  words: Words;
  parse: ParseContext;
}

/** A button a kind offers on a prompt with a single question of its kind (Other and Skip are everyone's). */
export interface KindButton {
  label: string;
  choice: ButtonChoice;
}

/**
 * One answer kind. `Q` is what the kind reads of a question (its own fields), `V` the kind's part of
 * the question's view (what a renderer needs beyond number, id, header and question text).
 */
export interface QuestionKind<Q, V> {
  /** The kind's name: the value of a question's `kind` (absent means `choice`). */
  readonly name: string;
  /** The schema part: the kind's own fields of a request's question, and its rules over the whole question. */
  readonly fields: z.ZodRawShape;
  /** The kind's own fields as stored, read back without the input rules (core/stored-question.ts). */
  readonly stored: z.ZodRawShape;
  refine(question: Q, ctx: z.RefinementCtx): void;
  /** A submitted answer (API, MCP, A2A, the console): the values as kept, or why they are refused (`ctx`: strict forms). */
  normalize(question: Q, values: readonly string[], ctx: ParseContext): ValueCheck;
  /** A typed chat line for this question (after the caller's split of a reply by question). */
  readLine(question: Q, text: string, ctx: LineContext): LineReading;
  /** How to answer this question, appended to every hint. */
  guidance(question: Q, words: Words): string;
  /** Whether a whole message is an answer of this question rather than a skip word ("Pular" as a label). */
  claims(question: Q, text: string): boolean;
  /** A form part (a modal's fields, the console's inputs, a draft): the values, or the problem. */
  readForm(question: Q, part: FormAnswer, ctx: FormContext): FormPartReading;
  /** The question's view in `words`: `base` (what every kind's view has) with the kind's part. */
  view<B extends object>(question: Q, base: B, words: Words): B & V;
  /** The lines the prompt's instructions add for this question, in `words` (each once per prompt). */
  promptNotes(question: Q, words: Words): readonly string[];
  /**
   * How an answer is shown in outcome lines, tallies and the console (free text never echoed);
   * `raw`: what the person wrote, when it differs from the value (a date the person wrote as "tomorrow").
   */
  summary(question: Q, values: readonly string[], words: Words, raw?: string): string;
  /** The result's `values` entry of kept values: a JSON value of the kind's type. */
  value(question: Q, values: readonly string[]): AnswerValue;
  /** `onTimeout.default` for this question (strict forms): the values as kept, or why they are refused. */
  defaultValues(question: Q, values: readonly string[], ctx: ParseContext): ValueCheck;
  /** The agreement key of normalised values: equal keys are the same answer. */
  agreementKey(values: readonly string[]): string[];
  /** The buttons of a prompt whose only question is this one, or null when it is answered with a form. */
  buttons(question: Q): KindButton[] | null;
  /** The values a button of {@link buttons} answers with, or null when the control does not fit this question. */
  buttonValues(question: Q, choice: ButtonChoice): string[] | null;
  /** Whether a decoded button control (`option`, `pick`, `toggle`) fits this question. */
  fits(question: Q, choice: ButtonChoice): boolean;
}
