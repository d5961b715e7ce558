import type { AskRecord, NoAnswerReason, Responder } from './schemas.js';
import { answerValues } from './answers.js';
import type { Effect } from './effects.js';
import type { TransitionResult } from './ask-events.js';
import { unfiredSteps } from './policy.js';
import { withHistory, who } from './record-history.js';
import { askKind, channelOf, outcomeOf } from './insights.js';

/**
 * The effects of reaching a terminal state: wake the waiters, drop the timeout and the policy's
 * steps that did not fire, stop routing the
 * conversations' replies here, count the outcome. The outbox jobs it needs come from work.ts.
 */
export function terminalEffects(record: AskRecord): Effect[] {
  const result = record.result!;
  const closed = Date.parse(result.status === 'answered' ? result.answeredAt : result.at);
  return [
    { type: 'publish' },
    { type: 'unschedule', step: 'timeout' },
    ...unfiredSteps(record).map((s): Effect => ({ type: 'unschedule', step: s.step })),
    ...record.deliveries.map((d): Effect => ({ type: 'leave', conversation: { channel: d.channel, chat: d.chat } })),
    {
      type: 'metric',
      metric: {
        name: 'ask_resolved',
        status: result.status,
        reason: result.status === 'no_answer' ? result.reason : null,
        secondsOpen: (closed - Date.parse(record.createdAt)) / 1000,
        labels: { channel: channelOf(record), kind: askKind(record), outcome: outcomeOf(record) ?? 'none' },
      },
    },
  ];
}

/** An answer or skip after the deadline: the ask ends as a timeout and the caller hears `expired`. */
export function expired(record: AskRecord, now: number): TransitionResult {
  const ended = end(record, 'timeout', now);
  return { ...ended, outcome: { code: 'expired' } } as TransitionResult;
}

/**
 * Ends the ask without an answer for `reason`. A timeout carries the policy's `onTimeout.default`
 * as `defaults` (never as answers: nobody gave them); the responses so far ride along.
 */
export function end(record: AskRecord, reason: NoAnswerReason, now: number, by?: Responder): TransitionResult {
  const defaults = reason === 'timeout' ? record.policy?.onTimeout?.default : undefined;
  const decision = reason === 'timeout' ? record.policy?.onTimeout?.decision : undefined;
  const responses = record.responses?.length ? record.responses : undefined;
  const next = withHistory(
    {
      ...withoutPartialRaw(record),
      rev: record.rev + 1,
      status: 'no_answer',
      result: {
        status: 'no_answer',
        reason,
        at: new Date(now).toISOString(),
        ...(by ? { by } : {}),
        ...(defaults ? { defaults, values: answerValues(record.questions, defaults) } : {}),
        ...(decision ? { decision } : {}),
        ...(responses ? { responses } : {}),
      },
    },
    [{ type: 'no_answer', reason, ...(by ? who(by) : {}) }],
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}

/** The record without the raw text of partial answers: an ask that ends unanswered keeps no typed text. */
function withoutPartialRaw(record: AskRecord): AskRecord {
  const { partialRaw: _dropped, ...rest } = record;
  return rest;
}
