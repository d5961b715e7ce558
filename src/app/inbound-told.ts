import type { AskEvent } from '../core/lifecycle.js';
import type { InboundOutcome } from '../core/ports.js';
import { partialPrompt } from '../core/prompt-view.js';
import { noticeFor, type NoticeOptions } from '../core/outcome-view.js';
import { ENGLISH, type Words } from '../core/i18n/index.js';
import { invalidNotice, spoken } from '../core/notices.js';
import type { AskRecord, HistoryEntry } from '../core/schemas.js';
import type { Gateway } from './gateway.js';

/** What the person is told after committing `event` (`applied`: the gateway's answer). */
export function toldAfter(
  askId: string,
  event: AskEvent,
  applied: Awaited<ReturnType<Gateway['apply']>>,
  words: Words,
  options: NoticeOptions,
): InboundOutcome {
  const record = applied.record;
  const notice = (code: 'recorded' | 'forbidden' | 'expired') => noticeFor(record, code, options, words);
  switch (applied.outcome.code) {
    case 'resolved':
      return spoken({ kind: 'recorded', summary: notice('recorded') }, words);
    case 'partial': {
      const prompt = partialPrompt(record!.questions, applied.outcome.missing, words);
      return spoken({ kind: 'partial', askId, prompt }, words);
    }
    case 'counted': {
      const summary = countedNotice(applied.outcome.matching, applied.outcome.needed, words);
      return spoken({ kind: 'recorded', summary }, words);
    }
    case 'forbidden':
      return spoken({ kind: 'forbidden', summary: notice('forbidden') }, words);
    case 'expired':
      return spoken({ kind: 'expired', summary: notice('expired') }, words);
    case 'invalid':
      return spoken({ kind: 'invalid', askId, hint: invalidNotice(record!, event, words) }, words);
    case 'not_found':
      return spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words);
    default:
      return record
        ? resolvedOutcome(record, words, options)
        : spoken({ kind: 'not_found', summary: noticeFor(null, 'not_found', {}, words) }, words);
  }
}

/** What a person is told about an ask that already ended: expired, or answered by someone. */
export function resolvedOutcome(record: AskRecord, words: Words, notice: NoticeOptions): InboundOutcome {
  const expired = record.result?.status === 'no_answer' && record.result.reason === 'timeout';
  return spoken(
    expired
      ? { kind: 'expired', summary: noticeFor(record, 'expired', notice, words) }
      : { kind: 'already_resolved', summary: noticeFor(record, 'already_resolved', notice, words) },
    words,
  );
}

/** What a person hears when their answer counts towards an ask that needs several matching answers (in `words`, default English). */
export function countedNotice(matching: number, needed: number, words: Words = ENGLISH): string {
  return words.t('counted.notice', { count: matching, needed });
}

/**
 * The history entry of a refusal or a hint (never the reply text): a typed value refused is
 * `reply_rejected` with its question and why; another invalid reply a `hint_sent`.
 */
export function refusalEntry(
  outcome: InboundOutcome,
  user: { channel: string; userId: string },
  rejected?: { question: string; reason: string },
): Omit<HistoryEntry, 'at'> {
  const by = { channel: user.channel, userId: user.userId };
  if (rejected) return { type: 'reply_rejected', ...by, reason: rejected.reason, questions: [rejected.question] };
  return outcome.kind === 'invalid'
    ? { type: 'hint_sent', ...by, reason: 'invalid_selection' }
    : { type: 'reply_rejected', ...by, reason: outcome.kind };
}
