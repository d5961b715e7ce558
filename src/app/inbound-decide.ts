// A decision submitted from a channel's form (issue 36: Discord's and Slack's modals): the token
// must be the decision button's own, the decision the one it offers; an edit is checked against the
// schema like the API's and hashed here; the transition checks the rest (a reason, self-approval).
import type { AskEvent } from '../core/lifecycle.js';
import type { DecisionSubmitted, InboundOutcome } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import type { ButtonChoice } from '../core/token.js';
import type { Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { checkedEdit } from './approval-edits.js';

/** The event to commit, or what to tell the person (nothing decided). */
export function submittedDecision(
  record: AskRecord,
  choice: ButtonChoice,
  event: DecisionSubmitted,
  words: Words,
): AskEvent | InboundOutcome {
  const approval = record.approval;
  if (!approval || choice.kind !== 'decide' || choice.decision !== event.decision)
    return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
  const at = event.chat !== undefined ? { chat: event.chat } : {};
  const reason = typeof event.reason === 'string' && event.reason.trim() !== '' ? { reason: event.reason } : {};
  if (event.decision !== 'edit') return { type: 'decide', decision: event.decision, ...reason, by: event.user, ...at };
  const edit = checkedEdit(approval, event.arguments);
  if (!edit.ok) return spoken({ kind: 'invalid', askId: record.id, hint: capitalized(edit.problem.message) }, words);
  const { arguments: args, effectiveHash } = edit;
  return { type: 'decide', decision: 'edit', ...reason, arguments: args, effectiveHash, by: event.user, ...at };
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
