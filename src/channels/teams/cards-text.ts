// Text on an Adaptive Card: TextBlocks and facts render a subset of Markdown (bold, italic, lists,
// links) and Teams reads a few HTML entities, so every string askgate puts there is escaped to read
// literally; action titles, input labels and choice titles are plain text and are never escaped.
import type { IFact, IFactSet, ITextBlock } from '@microsoft/teams.cards';
import { shorten } from '../../core/text.js';

/** ASCII punctuation Markdown (and Teams' HTML handling) gives a meaning anywhere in a line. */
const INLINE_SPECIAL = /[\\`*_[\]()<>#~|&!{}]/g;
/** What starts a list, a heading or a rule at the beginning of a line: its marker is escaped. */
const LINE_START = /^(\s*)([-+=]|\d+(?=[.)]))/gm;

/**
 * `text` as it must be written in a TextBlock or a fact to read literally: every Markdown special
 * escaped with a backslash (CommonMark: any ASCII punctuation may be), list, heading and rule
 * markers at a line's start too ("1." stays "1.", "- x" stays "- x").
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(INLINE_SPECIAL, (c) => `\\${c}`)
    .replace(LINE_START, (_m, space: string, marker: string) =>
      /\d/.test(marker) ? `${space}${marker}\\` : `${space}\\${marker}`,
    );
}

/** Reverses {@link escapeMarkdown} (what a Markdown renderer shows): for tests and size checks. */
export function unescapeMarkdown(text: string): string {
  return text.replace(/\\([\\`*_[\]()<>#~|&!{}\-+=.)])/g, '$1');
}

/** How a text block looks beyond its text. */
export type TextLook = Partial<
  Pick<ITextBlock, 'size' | 'weight' | 'isSubtle' | 'fontType' | 'color' | 'spacing' | 'separator' | 'id'>
>;

/** A wrapping TextBlock showing `text` literally (escaped). */
export function textBlock(text: string, look: TextLook = {}): ITextBlock {
  return { type: 'TextBlock', text: escapeMarkdown(text), wrap: true, ...look };
}

/**
 * The deadline line of an open prompt as a small TextBlock: the time is Adaptive Cards' `DATE()` and
 * `TIME()` (RFC 3339 in UTC), which Teams shows in each reader's own zone and locale; the catalogue's
 * words around them are escaped like any text.
 */
export function deadlineBlock(deadline: { before: string; after: string; expiresAt: string }): ITextBlock {
  const at = `{{DATE(${deadline.expiresAt}, SHORT)}} {{TIME(${deadline.expiresAt})}}`;
  const text = `${escapeMarkdown(deadline.before)}${at}${escapeMarkdown(deadline.after)}`;
  return { type: 'TextBlock', text, wrap: true, isSubtle: true, size: 'Small' };
}

/** A monospace TextBlock (code: an approval's JSON, its preview), literal. */
export function codeBlock(text: string): ITextBlock {
  return textBlock(text === '' ? ' ' : text, { fontType: 'Monospace' });
}

/** A FactSet of literal `title: value` pairs. */
export function factSet(facts: readonly (readonly [string, string])[]): IFactSet {
  const fact = ([title, value]: readonly [string, string]): IFact => ({
    title: escapeMarkdown(title),
    value: escapeMarkdown(value === '' ? ' ' : value),
  });
  return { type: 'FactSet', facts: facts.map(fact) };
}

/** A plain-text label cut to `max` UTF-16 units (an action title, an input label, a choice title). */
export const plain = (text: string, max: number): string => shorten(text.replace(/\s+/g, ' ').trim(), max, 'utf16');

/** The size of a card as Teams receives it: its JSON in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
