// The decisions a person can make on an approval, and what each needs.
import type { MessageKey, Words } from '../i18n/index.js';

/** Every decision, in the order they are offered. */
export const DECISIONS = ['approve', 'reject', 'request_changes', 'edit'] as const;

/** One decision on an approval. */
export type Decision = (typeof DECISIONS)[number];

/** What an approval offers when the request names no decisions (`edit` only when offered). */
export const DEFAULT_DECISIONS: readonly Decision[] = ['approve', 'reject', 'request_changes'];

/** Decisions that need the person's reason (their words; never echoed in a group). */
export const NEEDS_REASON: ReadonlySet<Decision> = new Set(['reject', 'request_changes']);

/** Decisions that end an ask needing several approvals at once (one person's no is enough). */
export const ENDS_AT_ONCE: ReadonlySet<Decision> = new Set(['reject', 'request_changes']);

/** Decisions that release the action (with the original or the edited arguments). */
export const RELEASES: ReadonlySet<Decision> = new Set(['approve', 'edit']);

/** The short code of a decision in a button token. */
export const DECISION_CODES: Readonly<Record<Decision, string>> = {
  approve: 'a',
  reject: 'r',
  request_changes: 'q',
  edit: 'e',
};

/** A decision by its token code, or undefined. */
export function decisionOfCode(code: string): Decision | undefined {
  return DECISIONS.find((d) => DECISION_CODES[d] === code);
}

/** The first 8 hex digits of an `sha256:<hex>` hash: what every surface shows. */
export const shortHash = (hash: string): string => hash.replace(/^sha256:/, '').slice(0, 8);

/** How each decision is named on its button and in a tally. */
export const DECISION_LABELS: Readonly<Record<Decision, MessageKey>> = {
  approve: 'control.approve',
  reject: 'control.reject',
  request_changes: 'control.requestChanges',
  edit: 'control.edit',
};

/** The word a reply starts with to make `decision`, in `words` ("rejeitar"): the first of its words. */
export const decisionWord = (decision: Decision, words: Words): string =>
  words.t(`approval.word.${decision}`).split('|')[0]!;
