import type { Question } from './schemas.js';
import { labelKey } from './shown-text.js';
import { ENGLISH, skipWords, type Words } from './i18n/index.js';
import { kindOf, type LineReading, type ParseContext } from './questions/index.js';
import { trimEdges } from './reply-text.js';

export { isBlank, isSkip, matchKey, trimEdges } from './reply-text.js';
export type { LineReading } from './questions/index.js';

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

/** How to answer one question, appended to every hint (its kind's words). */
export function guidance(question: Question, words: Words = ENGLISH): string {
  return kindOf(question).guidance(question, words);
}

/** How one person's reply is read: hints in `words`, skip words of `locales`, typed values in `parse`. */
export interface ReadContext {
  words: Words;
  locales: readonly string[];
  parse: ParseContext;
}

/** Reading in English, UTC (tests and callers without a person). */
export function englishReading(now = 0): ReadContext {
  return { words: ENGLISH, locales: ['en'], parse: { locales: ['en'], timeZone: 'UTC', now } };
}

/**
 * Reads one question's reply by its kind (core/questions/): a choice reads blank, "skip", an exact
 * label, the skip words of `locales`, a selection, else own words; a typed kind parses its value.
 * Problems are in `ctx.words`.
 */
export function readLine(question: Question, raw: string, ctx: ReadContext = englishReading()): LineReading {
  const { words, locales, parse } = ctx;
  return kindOf(question).readLine(question, raw, { words, isSkipWord: (text) => isLocalSkip(text, locales), parse });
}
