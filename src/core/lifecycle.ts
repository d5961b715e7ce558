import type { AskRecord, Answers } from './schemas.js';
import { answerValues, mergeRaw, missingQuestions, normalizeAnswers, type RawAnswers } from './answers.js';
import { strictContext } from './questions/index.js';
import type { Issue } from './errors.js';
import { ownValue } from './own.js';
import { end, expired, terminalEffects } from './ask-ending.js';
import { bookkeeping } from './delivery-bookkeeping.js';
import { deliveryStatus } from './delivery-status.js';
import { agreeAnswer } from './agreement.js';
import { agreeOf } from './policy.js';
import { policyTransition } from './policy-events.js';
import { withHistory, who } from './record-history.js';
import { deadlineOf, isTerminal, mayAnswer } from './record-state.js';
import type { AskEvent, TransitionResult } from './ask-events.js';
import { isDue } from './step-due.js';
import { decide } from './approval/decide.js';
import { guardBlocked } from './guard-blocked.js';
import { extend } from './extend.js';

export { HISTORY_LIMIT } from './record-history.js';
export {
  deadlineOf,
  deliveriesToFinalize,
  isDone,
  isSettled,
  isTerminal,
  mayAnswer,
  namesUsers,
  targetOf,
  usersOf,
  webhookSettled,
} from './record-state.js';
export { createAsk, deliveryTo, newAskRecord } from './new-ask.js';
export type { AskEvent, TransitionOutcome, TransitionResult } from './ask-events.js';

/**
 * The pure state machine: applies one event at time `now` (epoch ms). The first terminal
 * transition wins; later ones are `already_resolved` and change nothing. An answer after the
 * deadline ends the ask as a timeout (the deadline owns it) and reports `expired`.
 */
export function transition(record: AskRecord, event: AskEvent, now: number): TransitionResult {
  switch (event.type) {
    case 'delivered':
    case 'delivery_failed':
    case 'finalized':
      return bookkeeping(record, event, now);
    case 'delivery_status':
      return deliveryStatus(record, event, now);
    case 'remind':
    case 'escalate':
    case 'reminder_posted':
      return policyTransition(record, event, now);
    case 'note':
      return {
        kind: 'changed',
        record: withHistory({ ...record, rev: record.rev + 1 }, [event.entry], now),
        effects: [],
        outcome: { code: 'updated' },
      };
  }
  if (isTerminal(record)) return { kind: 'unchanged', outcome: { code: 'already_resolved' } };

  switch (event.type) {
    case 'timeout':
      if (!isDue(record, 'timeout', now)) return { kind: 'unchanged', outcome: { code: 'updated' } };
      return end(record, 'timeout', now);
    case 'cancel':
      return end(record, 'cancelled', now);
    case 'supersede':
      return end(record, 'superseded', now);
    case 'guard_blocked':
      return guardBlocked(record, event.tool, now);
    case 'extend':
      return extend(record, event, now);
    case 'skip':
      if (!mayAnswer(record, event.by, event.chat)) return { kind: 'unchanged', outcome: { code: 'forbidden' } };
      if (now > deadlineOf(record)) return expired(record, now);
      if (agreeOf(record) > 1)
        return { kind: 'unchanged', outcome: { code: 'invalid', issues: [skipRefused(record)] } };
      return end(record, 'skipped', now, event.by);
    case 'answer':
      return answer(record, event, now);
    case 'decide':
      if (!mayAnswer(record, event.by, event.chat)) return { kind: 'unchanged', outcome: { code: 'forbidden' } };
      if (now > deadlineOf(record)) return expired(record, now);
      return decide(record, event, now);
  }
}

/** The hint for a skip of an ask that needs several matching answers (refused: a skip is nobody's answer). */
export function skipRefused(record: AskRecord): Issue {
  return { path: ['skip'], message: `This question needs ${agreeOf(record)} matching answers: tap an option.` };
}

/**
 * An answer (a whole set or part of it). Values are checked again by their kinds (canonical forms:
 * what a reply or form read is canonical already); what the person wrote for a typed question
 * (`raw`) is kept beside the partial answers and moves to the result with them.
 */
function answer(record: AskRecord, event: Extract<AskEvent, { type: 'answer' }>, now: number): TransitionResult {
  const { by, chat } = event;
  if (!mayAnswer(record, by, chat)) return { kind: 'unchanged', outcome: { code: 'forbidden' } };
  if (now > deadlineOf(record)) return expired(record, now);
  const checked = normalizeAnswers(record.questions, event.answers, false, strictContext(record.timeZone, now));
  if (!checked.ok) return { kind: 'unchanged', outcome: { code: 'invalid', issues: checked.issues } };
  const raw: RawAnswers = { ...checked.raw, ...event.raw };
  if (agreeOf(record) > 1)
    return agreeAnswer(record, checked.answers, by, now, mergeRaw(undefined, checked.answers, raw));
  const merged: Answers = { ...record.partial, ...checked.answers };
  const mergedRaw = mergeRaw(record.partialRaw, checked.answers, raw);
  const { partialRaw: _kept, ...rest } = record;
  const missing = missingQuestions(record.questions, merged);
  if (missing.length > 0) {
    const next = withHistory(
      { ...rest, rev: record.rev + 1, partial: merged, ...(mergedRaw ? { partialRaw: mergedRaw } : {}) },
      [{ type: 'partial', ...who(by), questions: Object.keys(checked.answers) }],
      now,
    );
    return { kind: 'changed', record: next, effects: [], outcome: { code: 'partial', missing } };
  }
  const ordered: Answers = Object.fromEntries(record.questions.map((q) => [q.id, ownValue(merged, q.id)!]));
  const next = withHistory(
    {
      ...rest,
      rev: record.rev + 1,
      status: 'answered',
      partial: {},
      result: {
        status: 'answered',
        answers: ordered,
        values: answerValues(record.questions, ordered),
        ...(mergedRaw ? { raw: mergedRaw } : {}),
        answeredBy: by,
        answeredAt: new Date(now).toISOString(),
      },
    },
    [{ type: 'answered', ...who(by) }],
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}
