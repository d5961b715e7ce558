// What every typed kind (text, number, date, time, datetime, email, url) shares: one value read
// from a reply, a form field or the API, checked against the question's constraints, refused with
// what was expected and an example, shown in outcomes by the kind (free text never echoed).
import { z } from 'zod';
import type { MessageKey, Words } from '../i18n/index.js';
import { shorten } from '../text.js';
import { trimEdges, isSkip } from '../reply-text.js';
import type {
  AnswerValue,
  FormContext,
  FormPartReading,
  LineContext,
  LineReading,
  ParseContext,
  QuestionKind,
  RejectReason,
  ValueCheck,
} from './kind.js';

/** A typed kind's reading of one value: its canonical text and whether it was written literally, or why not. */
export type TypedReading = { ok: true; value: string; literal: boolean } | { ok: false; reason: RejectReason };

/** " between 1 and 10", " from 1", " up to 10" or nothing: an API message's bounds, in English. */
export function englishBounds(min: string | undefined, max: string | undefined): string {
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  if (min !== undefined) return ` from ${min}`;
  return max !== undefined ? ` up to ${max}` : '';
}

/** A parser's reading as a {@link TypedReading} (a refusal is a format problem unless it says otherwise). */
export function readingOf(
  parsed: { ok: true; value: string; literal: boolean } | { ok: false; reason?: RejectReason },
): TypedReading {
  return parsed.ok ? parsed : { ok: false, reason: parsed.reason ?? 'format' };
}

/** What a typed kind's prompt and hints say is expected: the sentence's parts, each in the reader's words. */
export interface Expected {
  /** "a date", "a whole number in GB": the thing to answer with. */
  what: string;
  min?: string;
  max?: string;
  /** A value that fits, written as people may type it. */
  example: string;
}

/** The view part of every typed question: its constraints as declared, what is expected, the ask's time zone. */
export interface TypedViewPart {
  /** "Please answer with a date between … for example …" in the reader's words. */
  expected: string;
  /** A value that fits (for an input's placeholder). */
  example: string;
  /** The ask's time zone (dates and times without an offset are in it). */
  timeZone: string;
}

/** One typed kind's own parts; {@link typedKind} makes the whole {@link QuestionKind} of it. */
export interface TypedSpec<
  Q extends { readonly kind: string },
  F extends z.ZodRawShape = z.ZodRawShape,
  S extends z.ZodRawShape = z.ZodRawShape,
> {
  readonly name: Q['kind'];
  readonly fields: F;
  /** The kind's fields as stored (its `kind` literal and constraints, no input rules). */
  readonly stored: S;
  refine(question: Q, ctx: z.RefinementCtx): void;
  /** Reads one value (trimmed) in `ctx`, constraints included. */
  read(question: Q, text: string, ctx: ParseContext): TypedReading;
  /** What is expected, in `words`; null: the own-words sentence of a text question. */
  expected(question: Q, words: Words): Expected | null;
  /** The value as shown in outcomes in `words`, or null when it is never echoed (text, email, url). */
  shown(question: Q, value: string, words: Words): string | null;
  /** The value with its JSON type. */
  value(text: string): AnswerValue;
  /**
   * What the API takes, in English, after "must be" ("a date YYYY-MM-DD from 2026-12-01"): answers
   * and defaults through the API are canonical forms, and this file loads no catalogue (the SDK
   * loads the kinds through the request schema).
   */
  apiForm(question: Q): string;
  /** Text a literal reading may hold besides digits and separators (a number's unit). */
  literalWords?(question: Q): readonly string[];
}

/** Every constraint name a question may carry; a kind refuses those it does not take, naming them. */
const CONSTRAINTS = [
  'options',
  'multiSelect',
  'minLength',
  'maxLength',
  'pattern',
  'min',
  'max',
  'integer',
  'unit',
] as const;
type Constraint = (typeof CONSTRAINTS)[number];

/** The schema part refusing every constraint of {@link CONSTRAINTS} but `own`, with a message naming the kind. */
export function notApplicable<Own extends Constraint = never>(
  kind: string,
  own: readonly Own[],
): Record<Exclude<Constraint, Own>, z.ZodOptional<z.ZodNever>> {
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
  return Object.fromEntries(
    CONSTRAINTS.filter((name) => !(own as readonly string[]).includes(name)).map((name) => [
      name,
      z.never({ error: `does not apply to ${article} ${kind} question` }).optional(),
    ]),
  ) as Record<Exclude<Constraint, Own>, z.ZodOptional<z.ZodNever>>;
}

/** The sentence of `expected` in `words` ("Please answer with a date between … for example …"). */
export function expectedSentence(expected: Expected, words: Words): string {
  const { what, min, max, example } = expected;
  const key: MessageKey =
    min !== undefined && max !== undefined
      ? 'typed.expectRange'
      : min !== undefined
        ? 'typed.expectFrom'
        : max !== undefined
          ? 'typed.expectUpTo'
          : 'typed.expect';
  return words.t(key, { what, example, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
}

const PROBLEM: Record<RejectReason, MessageKey> = {
  format: 'typed.notRead',
  range: 'typed.outOfRange',
  length: 'typed.length',
  pattern: 'typed.pattern',
  integer: 'typed.notWhole',
  nonexistent: 'typed.nonexistent',
};

/** Builds a typed kind: every {@link QuestionKind} part from the spec's reading and expectations. */
export function typedKind<Q extends { readonly kind: string }, F extends z.ZodRawShape, S extends z.ZodRawShape>(
  spec: TypedSpec<Q, F, S>,
): Omit<QuestionKind<Q, TypedViewPart>, 'fields' | 'stored' | 'name'> & {
  readonly name: Q['kind'];
  readonly fields: F;
  readonly stored: S;
} {
  const sentence = (q: Q, words: Words): string => {
    const expected = spec.expected(q, words);
    return expected ? expectedSentence(expected, words) : ownWordsSentence(q as LengthBounds, words);
  };
  const problem = (q: Q, reason: RejectReason, words: Words): string =>
    words.t(PROBLEM[reason], {
      what: spec.expected(q, words)?.what ?? words.t('typed.what.text'),
      zone: words.timeZone,
    });
  const check = (q: Q, values: readonly string[], ctx: ParseContext): ValueCheck => {
    if (values.length !== 1) return { ok: false, message: 'give exactly one value' };
    const text = trimEdges(values[0]!);
    const reading = spec.read(q, text, ctx);
    if (!reading.ok) return { ok: false, at: 0, message: `must be ${spec.apiForm(q)}` };
    return { ok: true, values: [reading.value], ...(text !== reading.value ? { raw: text } : {}) };
  };
  const literal = (q: Q, raw: string): boolean => {
    let rest = raw;
    for (const word of spec.literalWords?.(q) ?? []) rest = rest.split(word).join('');
    // ISO's "T" and "Z" are literal; any other letter is a word (a month name, "tomorrow", "pm").
    return !/\p{L}/u.test(rest.replace(/(?<=\d)[TZ](?=\d|$)/g, ''));
  };
  return {
    name: spec.name,
    fields: spec.fields,
    stored: spec.stored,
    refine: spec.refine,
    normalize: check,
    defaultValues: check,
    readLine(q: Q, raw: string, ctx: LineContext): LineReading {
      const text = trimEdges(raw);
      if (text === '') return { kind: 'empty' };
      if (isSkip(text) || ctx.isSkipWord(text)) return { kind: 'skip' };
      const reading = spec.read(q, text, ctx.parse);
      if (!reading.ok) {
        const said = problem(q, reading.reason, ctx.words);
        return { kind: 'invalid', problem: said, inline: said, reason: reading.reason };
      }
      return { kind: 'values', values: [reading.value], ...(text !== reading.value ? { raw: text } : {}) };
    },
    guidance: (q, words) => `${sentence(q, words)} ${words.t('typed.nothingDone')}`,
    claims: () => false,
    readForm(q: Q, part, ctx: FormContext): FormPartReading {
      if (part.choices.length > 0) return { ok: false, message: ctx.messages.unknown };
      const text = trimEdges(part.own ?? '');
      if (text === '') return { ok: false, message: sentence(q, ctx.words) };
      const reading = spec.read(q, text, part.canonical ? { ...ctx.parse, strict: true } : ctx.parse);
      if (!reading.ok) {
        const message = `${problem(q, reading.reason, ctx.words)} ${sentence(q, ctx.words)}`;
        return { ok: false, message, reason: reading.reason };
      }
      return { ok: true, values: [reading.value], ...(text !== reading.value ? { raw: text } : {}) };
    },
    view: (q, base, words) => ({
      ...base,
      ...ownFields(q),
      expected: sentence(q, words),
      example: spec.expected(q, words)?.example ?? '',
      timeZone: words.timeZone,
    }),
    promptNotes: (q, words) => [sentence(q, words)],
    summary(q, values, words, raw) {
      const value = values[0];
      if (value === undefined) return '';
      const shown = spec.shown(q, value, words);
      if (shown === null) return words.t('prompt.ownWords');
      if (raw === undefined || literal(q, raw)) return shown;
      return words.t('typed.understood', { value: shown, raw: shorten(raw, 40) });
    },
    value: (_q, values) => spec.value(values[0] ?? ''),
    agreementKey: (values) => [...values],
    buttons: () => null,
    buttonValues: () => null,
    fits: () => false,
  };
}

/** The kind and constraints of a question (the view must not take its header, which the base shortens). */
function ownFields<Q extends object>(q: Q): Q {
  const record = q as Record<string, unknown>;
  const keys = ['kind', ...CONSTRAINTS].filter((k) => record[k] !== undefined);
  return Object.fromEntries(keys.map((k) => [k, record[k]])) as Q;
}

/** What a question without an {@link Expected} (text) asks for: own words within its lengths. */
interface LengthBounds {
  readonly minLength?: number;
  readonly maxLength?: number;
}

function ownWordsSentence(q: LengthBounds, words: Words): string {
  const max = q.maxLength ?? TEXT_MAX_DEFAULT;
  return q.minLength ? words.t('typed.ownWordsRange', { min: q.minLength, max }) : words.t('typed.ownWords', { max });
}

/** A text question's `maxLength` when it sets none. */
export const TEXT_MAX_DEFAULT = 1000;
