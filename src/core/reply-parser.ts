import type { Answers, Question } from './schemas.js';
import { displayHeader } from './display-text.js';
import {
  guidance,
  isBlank,
  isLocalSkip,
  isSkip,
  matchKey,
  readLine,
  trimEdges,
  type ReadContext,
} from './reply-lines.js';
import { kindOf, type ParseContext, type RejectReason } from './questions/index.js';
import type { RawAnswers } from './answers.js';
import { ownValue } from './own.js';
import { ENGLISH, type Words } from './i18n/index.js';

/** What a text reply means for an ask. */
export type ParsedReply =
  /** The human declined the whole ask. */
  | { kind: 'skip' }
  /** Answers for one or more questions; values are declared labels, the human's own words or typed values (`raw`: what they wrote, where it differs). */
  | { kind: 'answers'; answers: Answers; raw?: RawAnswers }
  /**
   * Selection-shaped but out of range, or otherwise unusable: keep the ask pending and show the
   * hint; a typed value refused names its question and why (`rejected`, for the history).
   */
  | { kind: 'invalid'; hint: string; rejected?: { question: string; reason: RejectReason } }
  /** Empty or whitespace-only: answers nothing. */
  | { kind: 'empty' };

const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/;
// A key ends at a colon followed by white space or the end of the line, so "1:30" stays a value.
const KEY_END = /[:：](?=\s|$)/g;
const MAX_KEY = 80;

/**
 * Parses a text reply against the questions (rules in docs/ARCHITECTURE.md). `answered` holds
 * answers already collected; unkeyed lines fill the questions not yet answered, in order. Hints
 * are in `words` (default English); "skip" and the skip words of `locales` (default: that of
 * `words`) skip, unless the word is one of the options' labels.
 *
 * Choices where the rules are silent:
 * - One question: the whole message is read as one answer (line breaks kept in free text) and
 *   `key: value` is not special.
 * - Several questions: "skip" skips the ask only as the whole message; a "skip" line (keyed or
 *   not) next to other content, or a keyed "2: skip", is invalid: questions are not skipped one
 *   by one. A keyed line may re-answer a question already in `answered`; a question keyed twice
 *   is invalid; `2:` with nothing after it keeps question 2 open. A numeric key of one or two
 *   digits that names no question ("7: x") is invalid; other unknown keys ("Note: x") are values.
 * - Invisible format characters (zero-width, bidi marks) are ignored for matching and trimmed
 *   from the ends of free text; the rest of free text is kept verbatim.
 */
export function parseReply(
  questions: readonly Question[],
  text: string,
  answered: Answers = {},
  words: Words = ENGLISH,
  locales: readonly string[] = [words.locale],
  parse: ParseContext = { locales, timeZone: words.timeZone, now: 0 },
): ParsedReply {
  if (questions.length === 0 || isBlank(text)) return { kind: 'empty' };
  if (isSkip(text)) return { kind: 'skip' };
  const ctx: ReadContext = { words, locales, parse };
  if (questions.length === 1) {
    const q = questions[0]!;
    const reading = readLine(q, text, ctx);
    switch (reading.kind) {
      case 'empty':
      case 'skip':
        return { kind: reading.kind };
      case 'invalid':
        return { kind: 'invalid', hint: `${reading.problem} ${guidance(q, words)}`, ...rejected(q.id, reading.reason) };
      case 'values':
        return answered1(q.id, reading.values, reading.raw);
    }
  }
  // A skip word that is also an option's label is that option, not a skip.
  const isLabel = questions.some((q) => kindOf(q).claims(q, text));
  if (!isLabel && isLocalSkip(text, locales)) return { kind: 'skip' };
  return parseSeveral(questions, text, answered, ctx);
}

const answered1 = (id: string, values: string[], raw: string | undefined): ParsedReply => ({
  kind: 'answers',
  answers: { [id]: values },
  ...(raw !== undefined ? { raw: { [id]: raw } } : {}),
});

const rejected = (question: string, reason: RejectReason | undefined) =>
  reason ? { rejected: { question, reason } } : {};

type Keyed = { kind: 'keyed'; index: number; value: string } | { kind: 'unknown_number'; key: string } | null;

function parseSeveral(questions: readonly Question[], text: string, answered: Answers, ctx: ReadContext): ParsedReply {
  const words = ctx.words;
  const t = words.t;
  const hint = t('reply.keyedHint');
  const lines = text.split(LINE_BREAK);
  while (lines.length > 0 && isBlank(lines[0]!)) lines.shift();
  while (lines.length > 0 && isBlank(lines[lines.length - 1]!)) lines.pop();

  const assigned = new Map<number, string>();
  const unkeyed: string[] = [];
  for (const line of lines) {
    const keyed = splitKey(questions, line);
    if (keyed === null) unkeyed.push(line);
    else if (keyed.kind === 'unknown_number') {
      return invalid(t('reply.noQuestion', { key: keyed.key, count: questions.length, hint }));
    } else if (assigned.has(keyed.index)) {
      return invalid(t('reply.twice', { n: keyed.index + 1, hint }));
    } else assigned.set(keyed.index, keyed.value);
  }

  const open = questions.flatMap((q, i) => (assigned.has(i) || ownValue(answered, q.id)?.length ? [] : [i]));
  while (unkeyed.length > 0 && isBlank(unkeyed[unkeyed.length - 1]!)) unkeyed.pop();
  if (unkeyed.length > open.length) return invalid(overflow(unkeyed, open, words));
  unkeyed.forEach((line, position) => assigned.set(open[position]!, line));

  const answers: [string, string[]][] = [];
  const raw: [string, string][] = [];
  for (const [index, value] of [...assigned].sort(([a], [b]) => a - b)) {
    const q = questions[index]!;
    const reading = readLine(q, value, ctx);
    if (reading.kind === 'skip') return invalid(t('reply.skipOne', { n: index + 1 }));
    if (reading.kind === 'invalid') {
      const hint = t('reply.problem', { n: index + 1, problem: reading.inline, guidance: guidance(q, words) });
      return { ...invalid(hint), ...rejected(q.id, reading.reason) };
    }
    if (reading.kind === 'values') {
      answers.push([q.id, reading.values]);
      if (reading.raw !== undefined) raw.push([q.id, reading.raw]);
    }
  }
  if (answers.length === 0) return { kind: 'empty' };
  const withRaw = raw.length > 0 ? { raw: Object.fromEntries(raw) } : {};
  return { kind: 'answers', answers: Object.fromEntries(answers), ...withRaw };
}

/** The question a `key: value` line names, trying each colon from the left; null for an unkeyed line. */
function splitKey(questions: readonly Question[], line: string): Keyed {
  for (const m of line.matchAll(KEY_END)) {
    if (m.index > MAX_KEY) break;
    const key = matchKey(line.slice(0, m.index));
    if (key === '') continue;
    const value = line.slice(m.index + 1);
    if (/^\d{1,2}$/.test(key)) {
      const n = Number(key);
      if (n >= 1 && n <= questions.length) return { kind: 'keyed', index: n - 1, value };
      return { kind: 'unknown_number', key };
    }
    const index = questions.findIndex(
      (q) =>
        q.id.toLowerCase() === key ||
        (q.header !== undefined && [q.header, displayHeader(q.header)].some((h) => matchKey(h) === key)),
    );
    if (index >= 0) return { kind: 'keyed', index, value };
  }
  return null;
}

/** The hint for more unkeyed lines than open questions. */
function overflow(unkeyed: readonly string[], open: readonly number[], words: Words): string {
  const t = words.t;
  const filled = unkeyed.filter((l) => !isBlank(l)).length;
  const openText =
    open.length === 0
      ? t('reply.noneOpen')
      : t('reply.someOpen', { count: open.length, numbers: words.list(open.map((i) => String(i + 1))) });
  const said =
    filled > open.length
      ? t('reply.answeredLines', { count: filled })
      : t('reply.replyLines', { count: unkeyed.length });
  return t('reply.overflow', { said, open: openText, hint: t('reply.keyedHint') });
}

function invalid(hint: string): ParsedReply {
  return { kind: 'invalid', hint: trimEdges(hint) };
}
