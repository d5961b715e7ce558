// How headers, people and answers are shown in every view (prompts, outcomes, tallies, the console).
import type { Responder } from './schemas.js';
import { kindOf, type KindQuestion } from './questions/index.js';
import { shorten, stripInvisible } from './text.js';
import { ENGLISH, type Words } from './i18n/index.js';

/** Longest header shown on a platform; longer headers are accepted and shortened for display. */
export const HEADER_DISPLAY_MAX = 12;

/** A header as displayed: at most {@link HEADER_DISPLAY_MAX} characters. */
export function displayHeader(header: string): string {
  return shorten(header, HEADER_DISPLAY_MAX);
}

/**
 * How a responder is named in summaries: "@username", else their name, else their user id.
 * Platform names are not validated by askgate: bidi overrides and other invisible characters are dropped.
 */
export function responderName(by: Responder): string {
  if (by.username) return `@${stripInvisible(by.username).replace(/^@/, '')}`;
  return stripInvisible(by.name ?? '') || stripInvisible(by.userId);
}

/**
 * How an answer is shown, by its question's kind (a choice: the chosen option labels without
 * "(Recommended)", in the order given; a value that is not an option only as "their own words":
 * free text may hold secrets or mentions).
 */
export function answerSummary(
  question: KindQuestion,
  values: readonly string[],
  words: Words = ENGLISH,
  raw?: string,
): string {
  return kindOf(question).summary(question, values, words, raw);
}
