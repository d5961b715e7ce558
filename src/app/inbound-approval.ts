// What a tap or a reply means on an approval: an Approve tap decides at once; Reject…, Request
// changes… and Edit… say how to reply (a reason, the edited arguments as JSON); a reply is read by
// core/approval/approval-reply.ts and an edit is checked against the schema and hashed here.
import type { AskEvent } from '../core/lifecycle.js';
import type { ButtonPressed, DecisionMade, InboundOutcome } from '../core/ports.js';
import type { AskRecord } from '../core/schemas.js';
import type { ButtonChoice } from '../core/token.js';
import { ENGLISH, type Words } from '../core/i18n/index.js';
import { spoken } from '../core/notices.js';
import { readDecision } from '../core/approval/approval-reply.js';
import type { Decision } from '../core/approval/decisions.js';
import { isLocalSkip } from '../core/reply-lines.js';
import { actionHash } from './action-hash.js';
import { editProblem } from './approval-edits.js';

/** The first word of a decision in `words` ("rejeitar"), as a reply starts with it. */
const wordOf = (decision: Decision, words: Words) => words.t(`approval.word.${decision}`).split('|')[0]!;

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
    { kind: 'need_text', askId: record.id, prompt: words.t(key, { word: wordOf(decision, words) }) },
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
  const problem = editProblem(approval, reading.arguments);
  if (problem) return { kind: 'invalid', hint: `${problem.message}. ${words.t('approval.editJson')}` };
  const args = reading.arguments as Record<string, unknown>;
  return { type: 'decide', decision, arguments: args, effectiveHash: actionHash(approval.action, args), by, ...at };
}

/** Whether a value from {@link approvalTap} or {@link approvalReply} is an event to commit. */
export const isEvent = (value: AskEvent | InboundOutcome | { kind: string }): value is AskEvent => 'type' in value;

/** A flat argument as typed in a form, read with its original's type: a string stays text, else JSON when it reads. */
function typedAs(original: unknown, text: string): unknown {
  if (typeof original === 'string') return text;
  try {
    const value: unknown = JSON.parse(text);
    return value === null || typeof value !== 'object' ? value : text;
  } catch {
    return text;
  }
}

/** The edited arguments of a form (one text per flat argument, or JSON text), or why they cannot be read. */
function editedArguments(original: Record<string, unknown>, edit: NonNullable<DecisionMade['edit']>): unknown {
  if ('json' in edit) {
    try {
      return JSON.parse(edit.json) as unknown;
    } catch {
      return undefined;
    }
  }
  const entries = Object.entries(original);
  if (edit.fields.length !== entries.length) return undefined;
  return Object.fromEntries(entries.map(([key, value], i) => [key, typedAs(value, edit.fields[i]!)]));
}

/**
 * A decision made in a form (Slack's modal): the event to commit, or the hint (nothing decided). The
 * tap's token names the decision; an edit is read, checked against the schema and hashed like the API's.
 */
export function approvalForm(
  record: AskRecord,
  choice: ButtonChoice,
  event: DecisionMade,
  words: Words,
): AskEvent | InboundOutcome {
  const approval = record.approval;
  if (choice.kind !== 'decide' || !approval?.decisions.includes(choice.decision))
    return spoken({ kind: 'not_found', summary: words.t('notice.invalidButton') }, words);
  const { decision } = choice;
  const at = event.chat !== undefined ? { chat: event.chat } : {};
  const reason = event.reason !== undefined && event.reason.trim() !== '' ? { reason: event.reason.trim() } : {};
  if (decision !== 'edit') return { type: 'decide', decision, ...reason, by: event.user, ...at };
  const args = event.edit ? editedArguments(approval.arguments, event.edit) : undefined;
  const problem = editProblem(approval, args);
  if (problem) return spoken({ kind: 'invalid', askId: record.id, hint: `${problem.message}.` }, words);
  const edited = args as Record<string, unknown>;
  const effectiveHash = actionHash(approval.action, edited);
  return { type: 'decide', decision, ...reason, arguments: edited, effectiveHash, by: event.user, ...at };
}
