// The request rules of an approval beside the questions' (run by the request schema): `onTimeout`
// fits what is asked, and `edit` is not offered where several people must agree.
import type { Issue } from '../errors.js';
import type { ApprovalRequest } from './approval-schema.js';

/** What the rules read of a request. */
interface ApprovalFields {
  approval?: Pick<ApprovalRequest, 'decisions'>;
  questions?: readonly unknown[];
  onTimeout?: { default?: unknown; decision?: unknown };
  agree?: number;
}

/** Why a request's approval and policy do not fit together (none when they do). */
export function approvalPolicyIssues(req: ApprovalFields): Issue[] {
  const issues: Issue[] = [];
  const approval = req.approval;
  if (approval && req.onTimeout?.default !== undefined)
    issues.push({ path: ['onTimeout', 'default'], message: 'an approval takes onTimeout.decision, not default' });
  if (!approval && req.onTimeout?.decision !== undefined)
    issues.push({ path: ['onTimeout', 'decision'], message: 'questions take onTimeout.default, not decision' });
  if (approval?.decisions?.includes('edit') && (req.agree ?? 1) > 1)
    issues.push({
      path: ['approval', 'decisions'],
      message: 'edit cannot be offered when several people must agree: they would approve different arguments',
    });
  return issues;
}
