// How a typed reply is prepared for reading: one normalization every locale-aware parser shares.

/** Longest reply a number, date, time or date-time parser reads; longer text is no such answer. */
export const READ_MAX = 200;

const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;
const FORMAT_CHARS = /\p{Cf}/gu;
const CONTROL = /\p{Cc}/u;
// Superscripts, subscripts, fractions, circled numbers: NFKC would turn "10²" into "102".
const OTHER_NUMBERS = /\p{No}/u;
const APOSTROPHES = /[\u2018\u2019\u02BC\u0060\u00B4]/g;
const SPACES = /\s+/g;

/**
 * The text as the parsers read it, or null when it cannot be a typed value: ends trimmed (spaces and
 * invisible format characters), invisible format characters inside dropped (zero-width spaces,
 * bidi marks copied with a date), NFKC (full-width "４２" is "42"; NBSP and narrow NBSP are spaces),
 * typographic apostrophes as "'", runs of spaces as one. Control characters, superscript/fraction
 * digits and text longer than {@link READ_MAX} are refused rather than read.
 */
export function readable(text: string): string | null {
  const trimmed = text.replace(EDGES, '');
  if (trimmed.length > READ_MAX || CONTROL.test(trimmed) || OTHER_NUMBERS.test(trimmed)) return null;
  return trimmed.replace(FORMAT_CHARS, '').normalize('NFKC').replace(APOSTROPHES, "'").replace(SPACES, ' ');
}

/**
 * The key a word is compared by: lower case without Latin accents ("AMANHÃ" and "amanha" are
 * "amanha", "März" is "marz"). Only the combining diacritical marks U+0300–U+036F are removed, so
 * Japanese voiced kana keep their dakuten.
 */
export function fold(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase();
}
