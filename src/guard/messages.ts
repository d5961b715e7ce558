import type { AskResult } from '../client/index.js';

/*
 * The model-readable results of blocked calls. Deterministic (the same tool, reason and ask give
 * the same text) and plain: each says that nothing was executed, why, and what to do next.
 */

/** The call did not run because the run waits for `askId`. */
export const pendingMessage = (tool: string, askId: string): string =>
  `Not executed: ${tool} is blocked while the run waits for a person's answer (ask ${askId}). ` +
  'Nothing was done. Try again after the answer.';

/** The call did not run because askgate could not be reached (the guard fails closed). */
export const unknownMessage = (tool: string): string =>
  `Not executed: ${tool} is blocked because askgate cannot be reached, so it is unknown whether the run ` +
  "waits for a person's answer. Nothing was done. Try again later.";

/** Why a held call's ask did not release it, from the ask's result (null: it released it). */
export function endedWhy(result: AskResult | null | undefined): string | null {
  if (!result) return 'it ended without a result';
  if (result.status === 'no_answer') return NO_ANSWER[result.reason] ?? `it ended (${result.reason})`;
  if (result.decision === undefined || result.decision === 'approve') return null;
  return DECIDED[result.decision];
}

const NO_ANSWER: Record<string, string> = {
  timeout: 'nobody answered in time',
  skipped: 'the person skipped it',
  cancelled: 'it was cancelled',
  superseded: 'a newer ask replaced it',
  undelivered: 'it could not be delivered',
};

const DECIDED: Record<string, string> = {
  reject: 'the person rejected it',
  request_changes: 'the person asked for changes',
  edit: 'the person edited the arguments, and a guard cannot apply edited arguments: ' + 'read the ask result for them',
};

/** A call held for `askId`, which ended without releasing it (`why`: from {@link endedWhy}). */
export const endedMessage = (tool: string, askId: string, why: string): string =>
  `Not executed: ${tool} was held for ask ${askId}, which did not approve it (${why}). Nothing was done.`;
