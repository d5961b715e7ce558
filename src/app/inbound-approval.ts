// What a tap or a reply means on an approval: an Approve tap decides at once; Reject…, Request
// changes… and Edit… say how to reply (a reason, the edited arguments as JSON); a reply is read by
// core/approval/approval-reply.ts and an edit is checked against the schema and hashed here.
import type { AskEvent } from '../core/lifecycle.js';
import type { ButtonPressed, InboundOutcome } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import type { ButtonChoice } from '../core/token.js';
import { ENGLISH, type Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { readDecision } from '../core/approval/approval-reply.js';
import { decisionWord } from '../core/approval/decisions.js';
import { isLocalSkip } from '../core/reply-lines.js';
import { checkedEdit } from './approval-edits.js';

/** A decision tap: the event to commit (Approve), or what to tell the person (how to reply). */
export function approvalTap(
  record: AskRecord,
  choice: Extract<ButtonChoice, { kind: 'decide' }>,
  by: ButtonPressed['user'],
  chat: string | undefined,
  words: Words,
): AskEvent | InboundOutcome {
  const { decision } = choice;
  if (!record.approval?.decisions.includes(decision))
    return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
  if (decision === 'approve') return { type: 'decide', decision, by, ...(chat !== undefined ? { chat } : {}) };
  const key = decision === 'edit' ? 'approval.replyEdit' : 'approval.replyReason';
  return spoken(
    { kind: 'need_text', askId: record.id, prompt: words.t(key, { word: decisionWord(decision, words) }) },
    words,
  );
}

/** A reply to an approval: the event to commit, or the hint to show (nothing decided). */
export function approvalReply(
  record: AskRecord,
  text: string,
  by: ButtonPressed['user'],
  chat: string | undefined,
  words: Words,
  locales: readonly string[],
): AskEvent | { kind: 'empty' } | { kind: 'invalid'; hint: string } {
  const approval = record.approval!;
  const at = chat !== undefined ? { chat } : {};
  const reading = readDecision(text, approval.decisions, words, ENGLISH, (t) => isLocalSkip(t, locales));
  switch (reading.kind) {
    case 'empty':
      return reading;
    case 'invalid':
      return reading;
    case 'skip':
      return { type: 'skip', by, ...at };
  }
  const { decision, reason } = reading;
  if (decision !== 'edit') return { type: 'decide', decision, ...(reason ? { reason } : {}), by, ...at };
  const edit = checkedEdit(approval, reading.arguments);
  if (!edit.ok) return { kind: 'invalid', hint: `${edit.problem.message}. ${words.t('approval.editJson')}` };
  return { type: 'decide', decision, arguments: edit.arguments, effectiveHash: edit.effectiveHash, by, ...at };
}

/** Whether a value from {@link approvalTap} or {@link approvalReply} is an event to commit. */
export const isEvent = (value: AskEvent | InboundOutcome | { kind: string }): value is AskEvent => 'type' in value;
