import type { Answers, Question } from './schemas.js';

/** What a text reply means for an ask. */
export type ParsedReply =
  /** The human declined the whole ask. */
  | { kind: 'skip' }
  /** Answers for one or more questions; values are declared labels or the human's own words. */
  | { kind: 'answers'; answers: Answers }
  /** Selection-shaped but out of range, or otherwise unusable: keep the ask pending and show the hint. */
  | { kind: 'invalid'; hint: string }
  /** Empty or whitespace-only: answers nothing. */
  | { kind: 'empty' };

/**
 * Parses a text reply against the questions (rules in docs/ARCHITECTURE.md). `answered` holds
 * answers already collected; unkeyed lines fill the questions not yet answered, in order.
 */
export function parseReply(questions: readonly Question[], text: string, answered: Answers = {}): ParsedReply {
  throw new Error(`reply parser pending ${questions.length} ${text.length} ${Object.keys(answered).length}`);
}
