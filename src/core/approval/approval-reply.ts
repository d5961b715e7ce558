// A typed reply to an approval: a decision word of the person's language or English, then, after a
// colon or a space, the reason (reject, request changes) or the edited arguments as JSON (edit).
import type { Words } from '../i18n/index.js';
import { trimEdges } from '../reply-text.js';
import type { Decision } from './decisions.js';

/** What a reply to an approval says. */
export type DecisionReading =
  | { kind: 'empty' }
  | { kind: 'skip' }
  | { kind: 'decision'; decision: Decision; reason?: string; arguments?: unknown }
  | { kind: 'invalid'; hint: string };

/** The words of a decision in the languages of `words` ("reject", "rejeitar"), lower case. */
function wordsOf(decision: Decision, words: readonly Words[]): string[] {
  const key = `approval.word.${decision}` as const;
  return [...new Set(words.flatMap((w) => w.t(key).split('|')).map((word) => word.normalize('NFKC').toLowerCase()))];
}

/** The decision `text` starts with (a word, then the end, a colon or white space), and what follows. */
function leading(text: string, offered: readonly Decision[], words: readonly Words[]) {
  const lower = text.normalize('NFKC').toLowerCase();
  const found = offered
    .flatMap((decision) => wordsOf(decision, words).map((word) => ({ decision, word })))
    .sort((a, b) => b.word.length - a.word.length)
    .find(({ word }) => lower.startsWith(word) && /^(?:$|[:：\s])/u.test(lower.slice(word.length)));
  if (!found) return null;
  const rest = trimEdges(
    text
      .normalize('NFKC')
      .slice(found.word.length)
      // A colon may follow after a space (French: « refuser : … »).
      .replace(/^\s*[:：]/u, ''),
  );
  return { decision: found.decision, rest };
}

/**
 * Reads a reply: `approve`, `reject: <why>`, `request changes: <what>`, `edit: {json}` (each in the
 * person's language too), or a skip word. Anything else is invalid, with how to answer.
 */
export function readDecision(
  text: string,
  offered: readonly Decision[],
  words: Words,
  english: Words,
  isSkip: (text: string) => boolean,
): DecisionReading {
  const trimmed = trimEdges(text);
  if (trimmed === '') return { kind: 'empty' };
  if (isSkip(trimmed)) return { kind: 'skip' };
  const found = leading(trimmed, offered, [words, english]);
  if (!found) return { kind: 'invalid', hint: words.t('approval.howToReply') };
  const { decision, rest } = found;
  if (decision === 'edit') {
    try {
      return { kind: 'decision', decision, arguments: JSON.parse(rest) as unknown };
    } catch {
      return { kind: 'invalid', hint: words.t('approval.editJson') };
    }
  }
  return { kind: 'decision', decision, ...(rest !== '' ? { reason: rest } : {}) };
}
