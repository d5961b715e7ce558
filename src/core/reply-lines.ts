import { labelKey, type Question } from './schemas.js';
import { ENGLISH, skipWords, type Words } from './i18n/index.js';

/** What one line (or a whole single-question reply) says about one question. */
export type LineReading =
  | { kind: 'empty' }
  | { kind: 'skip' }
  /** Declared option labels (option order) or, for free text, the human's trimmed words. */
  | { kind: 'values'; values: string[] }
  /**
   * `problem` is one sentence; the caller adds {@link guidance} and, for several questions, a prefix
   * (then `inline`, the same sentence as it reads after "Question 2: ").
   */
  | { kind: 'invalid'; problem: string; inline: string };

const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;
const SKIP = /^skip[\s\p{P}]*$/iu;
// A number the human typed to pick an option; "2." and "2)" as people copy them from the list.
const NUMBER = /^-?\d+[.)]?$/;
const LIST_SEPARATORS = /[,，、،]/;

/** Trims whitespace and invisible format characters from both ends; the middle stays verbatim. */
export function trimEdges(text: string): string {
  return text.replace(EDGES, '');
}

/** True for text with nothing visible in it. */
export function isBlank(text: string): boolean {
  return trimEdges(text) === '';
}

/** True when the text declines the ask: "skip", any case, optionally followed by punctuation. */
export function isSkip(text: string): boolean {
  return SKIP.test(trimEdges(text).normalize('NFKC'));
}

const TRAILING_PUNCTUATION = /[\s\p{P}]+$/u;

/**
 * True when the text is one of the skip words of `locales` ("pular", "überspringen", "スキップ"),
 * any case and character width, optionally followed by punctuation. English "skip" is {@link isSkip}.
 */
export function isLocalSkip(text: string, locales: readonly string[]): boolean {
  const key = labelKey(trimEdges(text).normalize('NFKC').replace(TRAILING_PUNCTUATION, ''));
  if (key === '') return false;
  return locales.some((locale) => skipWords(locale).some((word) => labelKey(word) === key));
}

/**
 * The key a reply is matched against labels and headers by: {@link labelKey}, the same one the
 * schema compares labels by (NFKC, no zero-width/bidi/format characters, single spaces, case-folded).
 */
export function matchKey(text: string): string {
  return labelKey(text);
}

/** Index of the option whose label matches `text` exactly (after {@link matchKey}), or -1. */
export function optionIndex(question: Pick<Question, 'options'>, text: string): number {
  const key = matchKey(text);
  if (key === '') return -1;
  return question.options.findIndex((o) => matchKey(o.label) === key);
}

/** How to answer one question, appended to every hint. */
export function guidance(question: Pick<Question, 'options' | 'multiSelect'>, words: Words = ENGLISH): string {
  const count = question.options.length;
  return words.t(question.multiSelect ? 'reply.guideMulti' : 'reply.guideOne', { count });
}

/**
 * Reads one question's reply. Order: blank, "skip", exact label (so a label "2" wins over option
 * 2, and a label "Pular" over the skip word), the skip words of `locales`, then a selection
 * (numbers and labels separated by commas, numbers also by spaces), else the human's own words.
 * A selection with any number out of range is rejected as a whole. Problems are in `words`.
 */
export function readLine(
  question: Question,
  raw: string,
  words: Words = ENGLISH,
  locales: readonly string[] = [words.locale],
): LineReading {
  const text = trimEdges(raw);
  if (text === '') return { kind: 'empty' };
  if (isSkip(text)) return { kind: 'skip' };
  const exact = optionIndex(question, text);
  if (exact >= 0) return { kind: 'values', values: [question.options[exact]!.label] };
  if (isLocalSkip(text, locales)) return { kind: 'skip' };

  const selection = readSelection(question, text);
  if (!selection) return { kind: 'values', values: [text] };
  if (selection.outOfRange !== null) {
    const option = shown(selection.outOfRange);
    return {
      kind: 'invalid',
      problem: words.t('reply.noOption', { option }),
      inline: words.t('reply.noOptionInline', { option }),
    };
  }
  if (!question.multiSelect && selection.picks.length > 1) {
    return { kind: 'invalid', problem: words.t('reply.pickOne'), inline: words.t('reply.pickOneInline') };
  }
  return { kind: 'values', values: selection.picks.map((i) => question.options[i]!.label) };
}

interface Selection {
  /** Distinct 0-based option indexes in option order. */
  picks: number[];
  /** The first number that names no option, as typed. */
  outOfRange: string | null;
}

/** The options a selection-shaped reply names, or null when the reply is prose. */
function readSelection(question: Question, text: string): Selection | null {
  const parts = text
    .split(LIST_SEPARATORS)
    .map(trimEdges)
    .filter((p) => p !== '');
  if (parts.length === 0) return null;
  const picks = new Set<number>();
  let outOfRange: string | null = null;
  for (const part of parts) {
    const byLabel = optionIndex(question, part);
    if (byLabel >= 0) {
      picks.add(byLabel);
      continue;
    }
    for (const token of part.split(/[\s\p{Cf}]+/u).filter((t) => t !== '')) {
      const normalized = token.normalize('NFKC');
      if (!NUMBER.test(normalized)) return null;
      const index = optionIndex(question, token);
      if (index >= 0) {
        picks.add(index);
        continue;
      }
      const n = Number.parseInt(normalized, 10);
      if (n >= 1 && n <= question.options.length) picks.add(n - 1);
      else outOfRange ??= normalized.replace(/[.)]$/, '');
    }
  }
  return { picks: [...picks].sort((a, b) => a - b), outOfRange };
}

/** A typed number as echoed in a hint: long digit runs are cut so the hint stays short. */
function shown(token: string): string {
  return token.length > 12 ? `${token.slice(0, 11)}…` : token;
}
