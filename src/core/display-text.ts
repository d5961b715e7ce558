// How headers, people and answers are shown in every view (prompts, outcomes, tallies, the console).
import { labelKey } from './shown-text.js';
import type { Question, Responder } from './schemas.js';
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
 * The chosen option labels (without "(Recommended)"), in the order given; any value that is not
 * an option is shown only as "their own words": free text may hold secrets or mentions.
 */
export function answerSummary(
  question: Pick<Question, 'options'>,
  values: readonly string[],
  words: Words = ENGLISH,
): string {
  const shown = values.map((v) => {
    const option =
      question.options.find((o) => o.label === v) ?? question.options.find((o) => labelKey(o.label) === labelKey(v));
    return option ? option.label.replace(/\s*\(recommended\)\s*$/i, '') : words.t('prompt.ownWords');
  });
  return [...new Set(shown)].join(words.t('list.separator'));
}
