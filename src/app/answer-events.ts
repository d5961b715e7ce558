// What an API answer becomes before it meets the transition: refusals named where the caller sent
// them, and a decision's edited arguments checked and hashed (core does neither).
import { invalid, type Issue } from '../core/errors.js';
import type { AskEvent } from '../core/lifecycle.js';
import type { AskRecord, Responder } from '../core/schemas.js';
import type { Decision } from '../core/approval/decisions.js';
import { checkedEdit } from './approval-edits.js';

/** An answer's issue at the field the caller sent: `values.<id>` (no index) for a value given in `values`. */
export function asSent(issue: Issue, valueIds: readonly string[] = []): Issue {
  const [field, id] = issue.path;
  if (field !== 'answers' || typeof id !== 'string' || !valueIds.includes(id)) return issue;
  return { ...issue, path: ['values', id] };
}

/**
 * An API decision as the transition takes it: edited arguments checked against the approval's
 * schema (a 400 naming the field) and hashed here, since core does no hashing.
 */
export function decideEvent(
  record: AskRecord,
  decide: { decision: Decision; reason?: string; arguments?: Record<string, unknown> },
  by: Responder,
): AskEvent {
  const approval = record.approval;
  if (approval && decide.decision === 'edit' && decide.arguments) {
    const edit = checkedEdit(approval, decide.arguments);
    if (!edit.ok) throw invalid('invalid_answer', [edit.problem]);
    return { type: 'decide', ...decide, effectiveHash: edit.effectiveHash, by };
  }
  return { type: 'decide', ...decide, by };
}
