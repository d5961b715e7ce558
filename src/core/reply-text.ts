// The text rules of a typed reply every answer kind reads by (no catalogue: the kinds load this file).
import { labelKey } from './shown-text.js';

const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;
const SKIP = /^skip[\s\p{P}]*$/iu;

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

/**
 * The key a reply is matched against labels and headers by: {@link labelKey}, the same one the
 * schema compares labels by (NFKC, no zero-width/bidi/format characters, single spaces, case-folded).
 */
export function matchKey(text: string): string {
  return labelKey(text);
}
