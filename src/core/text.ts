/**
 * Text rules for every user string askgate shows (labels, headers, questions, descriptions,
 * answers, `by`): stored in NFC, compared after NFKC and case folding, and refused when they
 * hold characters a reader cannot see or that change how text around them reads.
 *
 * Refused: control characters (C0, DEL, C1; multi-line fields keep `\n` and `\t`), lone
 * surrogates, noncharacters, and format or default-ignorable characters (zero-width space,
 * word joiner, soft hyphen, BOM, bidi embeddings/overrides/isolates, Hangul fillers, ...).
 * Allowed where they do their job: ZWJ inside an emoji sequence (👨‍👩‍👧), tag characters in a
 * flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿), variation selectors after a character (❤️), and ZWJ/ZWNJ between two letters
 * of a script that needs them for shaping (Arabic, Persian, Indic scripts, ...).
 *
 * Blank characters that are neither white space nor format characters (the Braille blank U+2800,
 * the musical null notehead U+1D159) are refused like the invisible ones, except U+2800 between
 * Braille patterns (the space of Braille text); for comparison they, and the Hangul fillers (which
 * show as a wide blank), count as a space.
 */

const LONE_SURROGATES = /\p{Cs}/gu;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** Line breaks a multi-line field stores as `\n`. */
const OTHER_LINE_BREAKS = /\r\n|[\r\u0085\u2028\u2029]/g;
const SINGLE_LINE_BREAKS = /[\n\r\u0085\u2028\u2029]/u;
const CONTROL = /\p{Cc}/u;
const NONCHARACTER = /\p{Noncharacter_Code_Point}/u;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const IGNORABLE_ALL = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
/** Shown as a blank but neither white space nor a format character (`\s` and `\p{Cf}` cover the rest). */
const BLANK = /[\u2800\u{1d159}]/u;
/** Blank-looking characters {@link compareKey} reads as a space (Hangul fillers: NFKC maps U+3164 and U+FFA0 to U+1160). */
const BLANK_ALL = /[\u2800\u{1d159}\u115f\u1160\u3164\uffa0]/gu;
const BRAILLE_BLANK = '\u2800';
const BRAILLE_PATTERN = /[\u2801-\u28ff]/u;
const VARIATION_SELECTOR = /\p{Variation_Selector}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const ZWJ = '\u200d';
const ZWNJ = '\u200c';
const BLACK_FLAG = '\u{1f3f4}';
const TAG = /[\u{e0020}-\u{e007f}]/u;
// Scripts in which ZWJ/ZWNJ select letter forms or conjuncts (shaping), between two of their letters.
const JOINING_SCRIPT =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}\p{scx=Khmer}\p{scx=Myanmar}\p{scx=Tibetan}]/u;
// Every code point charProblem may refuse; text without any (nearly all text) skips the grapheme walk.
const SUSPECT_SINGLE =
  /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u0085\u2028\u2029\u2800\u{1d159}]/u;
const SUSPECT_MULTI =
  /[^\P{Cc}\n\t]|[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u0085\u2028\u2029\u2800\u{1d159}]/u;
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}\u2800\u{1d159}]/u;

/** `U+200B` for a character. */
function codeOf(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

interface Place {
  cps: readonly string[];
  i: number;
  /** First code point of the grapheme cluster holding `cps[i]`. */
  base: string;
  first: boolean;
  last: boolean;
}

/** Why the code point at `p.i` is refused, or null. */
function charProblem(p: Place, multiline: boolean): string | null {
  const ch = p.cps[p.i]!;
  if (multiline && (ch === '\n' || ch === '\t')) return null;
  if (SINGLE_LINE_BREAKS.test(ch)) return 'must be a single line';
  if (CONTROL.test(ch)) return `contains a control character (${codeOf(ch)})`;
  if (NONCHARACTER.test(ch)) return `contains a noncharacter (${codeOf(ch)})`;
  if (BLANK.test(ch)) {
    if (ch === BRAILLE_BLANK && betweenBraille(p.cps, p.i)) return null;
    return `contains a blank character (${codeOf(ch)}) that looks like a space: use a plain space`;
  }
  if (!INVISIBLE.test(ch)) return null;
  if (VARIATION_SELECTOR.test(ch) && !p.first && !/\s/u.test(p.base)) return null;
  if (ch === ZWJ && PICTOGRAPHIC.test(p.base) && !p.first && !p.last) return null;
  if (TAG.test(ch) && p.base === BLACK_FLAG) return null;
  if (
    (ch === ZWJ || ch === ZWNJ) &&
    JOINING_SCRIPT.test(p.cps[p.i - 1] ?? '') &&
    JOINING_SCRIPT.test(p.cps[p.i + 1] ?? '')
  )
    return null;
  return `contains an invisible character (${codeOf(ch)}): zero-width, bidirectional and other format characters are not allowed`;
}

/** True when the Braille blanks around `cps[i]` sit between two Braille patterns (a word space of Braille text). */
function betweenBraille(cps: readonly string[], i: number): boolean {
  let before = i - 1;
  while (cps[before] === BRAILLE_BLANK) before--;
  let after = i + 1;
  while (cps[after] === BRAILLE_BLANK) after++;
  return BRAILLE_PATTERN.test(cps[before] ?? '') && BRAILLE_PATTERN.test(cps[after] ?? '');
}

/** Calls `visit` for every code point with its place in its grapheme cluster; stops when it returns true. */
function walk(text: string, visit: (p: Place) => boolean | void): void {
  const cps = [...text];
  let i = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    const n = [...segment].length;
    for (let k = 0; k < n; k++, i++) {
      if (visit({ cps, i, base: cps[i - k]!, first: k === 0, last: k === n - 1 })) return;
    }
  }
}

/**
 * Why `text` may not be shown, as a sentence naming the first offending character, or null.
 * Run it on text after {@link cleanText}.
 */
export function textProblem(text: string, multiline: boolean): string | null {
  const surrogate = /\p{Cs}/u.exec(text);
  if (surrogate) return `contains a lone surrogate (${codeOf(surrogate[0])}): not valid Unicode text`;
  if (!(multiline ? SUSPECT_MULTI : SUSPECT_SINGLE).test(text)) return null;
  let problem: string | null = null;
  walk(text, (p) => (problem = charProblem(p, multiline)) !== null);
  return problem;
}

/** NFC, and for multi-line fields every line break (CRLF, CR, NEL, U+2028, U+2029) as `\n`. */
export function cleanText(text: string, multiline: boolean): string {
  const nfc = /\p{Cs}/u.test(text) ? text : text.normalize('NFC');
  return multiline ? nfc.replace(OTHER_LINE_BREAKS, '\n') : nfc;
}

/** True when the text has at least one character a reader can see. */
export function hasVisible(text: string): boolean {
  return VISIBLE.test(text);
}

/** The text without the characters {@link textProblem} refuses (single line): for names that come from platforms. */
export function stripInvisible(text: string): string {
  const safe = text.replace(LONE_SURROGATES, '\ufffd');
  if (!SUSPECT_SINGLE.test(safe)) return safe;
  let out = '';
  walk(safe, (p) => {
    if (charProblem(p, false) === null) out += p.cps[p.i];
  });
  return out;
}

/**
 * The form two strings are compared by: NFKC (full-width, ligatures), blank-looking characters
 * as spaces, no other format or ignorable characters, runs of white space as one space, trimmed,
 * case-folded (`ß` = `ss`).
 */
export function compareKey(text: string): string {
  const nfkc = text.replace(LONE_SURROGATES, '\ufffd').normalize('NFKC').replace(BLANK_ALL, ' ');
  return nfkc.replace(IGNORABLE_ALL, '').replace(/\s+/gu, ' ').trim().toUpperCase().toLowerCase().normalize('NFKC');
}

/** What a length limit counts: grapheme clusters (what a reader sees) or UTF-16 code units (what most platform limits count). */
export type TextUnit = 'graphemes' | 'utf16';

/**
 * The one truncation of askgate, for core and every channel: cuts text to at most `max` units
 * (see {@link TextUnit}) on a grapheme boundary, so no emoji, ZWJ sequence or combining mark is
 * split, ending in "…" when cut (the "…" counts as one unit).
 */
export function shorten(text: string, max: number, unit: TextUnit = 'graphemes'): string {
  if (text.length <= max) return text; // never more graphemes than UTF-16 units: no need to segment
  if (max <= 0) return '';
  let head = '';
  let used = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    used += unit === 'utf16' ? segment.length : 1;
    if (used > max) return `${head.trimEnd()}…`;
    if (used < max) head += segment;
  }
  return text; // at most `max` graphemes
}
