// The agent's half of an approval: run only what a person released. `assertApproved` recomputes the
// hash of the action the caller is about to run and compares it with the one askgate bound the
// decision to, so arguments changed after the decision (by the model, a bug or an attacker) never run.
import type { z } from 'zod';
import type { ApprovalRequestSchema } from '../core/approval/approval-schema.js';
import type { Decision } from '../core/approval/decisions.js';
import type { AskResult } from '../core/schemas.js';
import { actionHash } from '../app/action-hash.js';

export { actionHash };

/** The `approval` of `ask()` (instead of `questions`): the exact action a person is asked to authorize. */
export type ApprovalInput = z.input<typeof ApprovalRequestSchema>;
/** One decision on an approval: `approve`, `reject`, `request_changes` or `edit`. */
export type { Decision };

/** An answered approval's result: the decision, the person's reason, the arguments to run and both hashes. */
export type ApprovalResult = Extract<AskResult, { status: 'answered' }> & {
  decision: Decision;
  arguments: Record<string, unknown>;
  actionHash: string;
  effectiveHash: string;
};

/** Why {@link assertApproved} refused: stable codes to branch on. */
export type ApprovalErrorCode = 'rejected' | 'changes_requested' | 'hash_mismatch' | 'no_answer';

/** Thrown by {@link assertApproved}: the action must not run, and `code` says why. */
export class ApprovalError extends Error {
  constructor(
    readonly code: ApprovalErrorCode,
    message: string,
    /** The person's words (rejected, changes_requested), or the no_answer reason (`timeout`, `skipped`, ...). */
    readonly reason?: string,
    /** The result assertApproved was given. */
    readonly result?: AskResult,
  ) {
    super(message);
    this.name = 'ApprovalError';
  }
}

/**
 * Returns the arguments to run when the person approved (or approved with changes, `edit`) AND the
 * hash of `{action, arguments}` the caller is about to run equals the result's `effectiveHash`.
 * Pass what you will actually execute: after `edit` that is `result.arguments`, not the proposal.
 * Otherwise throws an {@link ApprovalError}: `rejected` / `changes_requested` (with the person's
 * reason), `hash_mismatch` (what would run is not what was approved), `no_answer` (timeout,
 * skipped, cancelled, ... — even with an `onTimeout.decision`: nobody approved).
 */
export function assertApproved(
  result: AskResult,
  action: string,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (result.status === 'no_answer')
    throw new ApprovalError('no_answer', `nobody decided on the action (${result.reason})`, result.reason, result);
  const { decision, reason, effectiveHash } = result;
  if (decision === 'reject')
    throw new ApprovalError('rejected', `rejected${reason ? `: ${reason}` : ''}`, reason, result);
  if (decision === 'request_changes')
    throw new ApprovalError('changes_requested', `changes requested${reason ? `: ${reason}` : ''}`, reason, result);
  if ((decision !== 'approve' && decision !== 'edit') || !effectiveHash || !result.arguments)
    throw new ApprovalError(
      'hash_mismatch',
      'the result carries no approval decision bound to an action',
      undefined,
      result,
    );
  const hash = actionHash(action, args);
  if (hash !== effectiveHash)
    throw new ApprovalError(
      'hash_mismatch',
      `the action to run (${hash.slice(7, 15)}) is not the one approved (${effectiveHash.slice(7, 15)})`,
      undefined,
      result,
    );
  return structuredClone(result.arguments);
}
