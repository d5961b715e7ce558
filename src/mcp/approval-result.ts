// How an approval's result reads to the model (`request_approval`, `await_answer`, a completed task):
// the decision and what to do next in words, the decision, reason, arguments and hashes structured.
import { z } from 'zod';
import { DECISIONS } from '../core/approval/decisions.js';
import { shortHash } from '../core/approval/decisions.js';
import type { AskResult } from '../core/schemas.js';

/** What an approval adds to the structured result of the tools (ask_user's output shape is shared). */
export const ApprovalOutputShape = {
  decision: z
    .enum(DECISIONS)
    .optional()
    .describe(
      'An approval: the decision (on no_answer after a timeout, the onTimeout.decision stated: nobody decided)',
    ),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('An approval: the arguments to run (the edited ones after "edit")'),
  actionHash: z.string().optional().describe('An approval: sha256 of the proposed {action, arguments}'),
  effectiveHash: z.string().optional().describe('An approval: sha256 of {action, arguments} as they are to run'),
};

const NEXT: Record<(typeof DECISIONS)[number], string> = {
  approve: 'Approved: run the action with exactly the arguments you proposed.',
  edit: 'Approved with changes: run the action with the arguments below (the person changed them), not the ones you proposed.',
  reject: 'Rejected: do not run the action.',
  request_changes: 'Changes requested: do not run the action; change what the person asks and request approval again.',
};

/** The tool result of an ended approval. */
export function renderApprovalResult(result: AskResult) {
  if (result.status === 'no_answer') {
    const stated = result.decision ? ` The ask stated "${result.decision}" for a timeout, but nobody decided.` : '';
    return {
      content: [
        {
          type: 'text' as const,
          text: `No decision (${result.reason}).${stated} Do not run the action: nobody approved it.`,
        },
      ],
      structuredContent: {
        status: 'no_answer' as const,
        reason: result.reason,
        ...(result.decision ? { decision: result.decision } : {}),
        ...(result.responses ? { responses: result.responses } : {}),
      },
    };
  }
  const { decision = 'reject', reason, arguments: args = {}, actionHash = '', effectiveHash = '' } = result;
  const why = reason ? `\nThe person said: ${JSON.stringify(reason)}` : '';
  const edited = decision === 'edit' ? `\nArguments to run: ${JSON.stringify(args)}` : '';
  return {
    content: [
      {
        type: 'text' as const,
        text: `${NEXT[decision]} (#${shortHash(effectiveHash || actionHash)})${why}${edited}`,
      },
    ],
    structuredContent: {
      status: 'answered' as const,
      answers: result.answers,
      decision,
      ...(reason !== undefined ? { reason } : {}),
      arguments: args,
      actionHash,
      effectiveHash,
      ...(result.responses ? { responses: result.responses } : {}),
    },
  };
}
