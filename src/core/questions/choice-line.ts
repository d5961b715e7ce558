// How the choice kind reads a typed line: an option's label or number(s), else the person's own words.
import type { Words } from '../i18n/index.js';
import { isSkip, matchKey, trimEdges } from '../reply-text.js';
import type { LineContext, LineReading } from './kind.js';

/** What reading a line needs of a choice question. */
interface LineQuestion {
  readonly options: readonly { readonly label: string }[];
  readonly multiSelect: boolean;
}

// A number the human typed to pick an option; "2." and "2)" as people copy them from the list.
const NUMBER = /^-?\d+[.)]?$/;
const LIST_SEPARATORS = /[,，、،]/;

/** Index of the option whose label matches `text` exactly (after {@link matchKey}), or -1. */
function optionIndex(question: Pick<LineQuestion, 'options'>, text: string): number {
  const key = matchKey(text);
  if (key === '') return -1;
  return question.options.findIndex((o) => matchKey(o.label) === key);
}

/** How to answer one question, appended to every hint. */
export function choiceGuidance(question: LineQuestion, words: Words): string {
  const count = question.options.length;
  return words.t(question.multiSelect ? 'reply.guideMulti' : 'reply.guideOne', { count });
}

/**
 * Reads one question's reply. Order: blank, "skip", exact label (so a label "2" wins over option
 * 2, and a label "Pular" over the skip word), the skip words of the ask's locales, then a selection
 * (numbers and labels separated by commas, numbers also by spaces), else the human's own words.
 * A selection with any number out of range is rejected as a whole. Problems are in `ctx.words`.
 */
export function readChoiceLine(question: LineQuestion, raw: string, ctx: LineContext): LineReading {
  const words = ctx.words;
  const text = trimEdges(raw);
  if (text === '') return { kind: 'empty' };
  if (isSkip(text)) return { kind: 'skip' };
  const exact = optionIndex(question, text);
  if (exact >= 0) return { kind: 'values', values: [question.options[exact]!.label] };
  if (ctx.isSkipWord(text)) return { kind: 'skip' };

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
function readSelection(question: LineQuestion, text: string): Selection | null {
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
