// An approval as the console draws it: the whole action (no truncation: the console is where the
// chats' shortened text points to), the hashes, and what a finished one decided. Never the reason:
// the console is shared between operators, and a reason is the person's own words (like free text).
import { shortHash, type Decision } from '../core/approval/decisions.js';
import type { AskRecord } from '../core/schemas.js';

/** A pending or finished approval, as every signed-in console sees it. */
export interface ConsoleApproval {
  action: string;
  summary?: string;
  /** The proposed arguments, whole (the page lists flat ones and shows nested ones as JSON). */
  arguments: Record<string, unknown>;
  preview?: string;
  /** `sha256:<hex>` of `{action, arguments}`, and its first 8 hex digits (what every surface shows). */
  actionHash: string;
  hash: string;
  decisions: readonly Decision[];
  /** `onTimeout.decision`: what a timeout states beside its no_answer (never an answer). */
  onTimeout?: 'approve' | 'reject';
}

/** What a finished approval decided: the decision and the hash of what runs (never the reason or an edit's arguments). */
export interface ConsoleDecision {
  decision: string;
  /** `sha256:<hex>` of what runs (the edited arguments after `edit`), and its short form. */
  effectiveHash: string;
  hash: string;
}

/** The console view of a record's approval, or undefined for an ask with questions. */
export function approvalOf(record: AskRecord): ConsoleApproval | undefined {
  const a = record.approval;
  if (!a) return undefined;
  return {
    action: a.action,
    ...(a.summary !== undefined ? { summary: a.summary } : {}),
    arguments: a.arguments,
    ...(a.preview !== undefined ? { preview: a.preview } : {}),
    actionHash: a.actionHash,
    hash: shortHash(a.actionHash),
    decisions: a.decisions,
    ...(record.policy?.onTimeout?.decision ? { onTimeout: record.policy.onTimeout.decision } : {}),
  };
}

/** The decision of an answered approval, or undefined (a timeout's stated decision is `ConsoleApproval.onTimeout`). */
export function decisionOf(record: AskRecord): ConsoleDecision | undefined {
  const result = record.result;
  if (!record.approval || result?.status !== 'answered' || result.decision === undefined) return undefined;
  const effective = result.effectiveHash ?? record.approval.actionHash;
  return { decision: result.decision, effectiveHash: effective, hash: shortHash(effective) };
}
