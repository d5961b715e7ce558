// The outcome line of a finalized message and the notices shown after a tap or a reply.
import { ownValue } from './own.js';
import { agreeOf, answersKey } from './policy.js';
import { bestAgreement, channelDisplayName, isFanOut, nameList } from './policy-view.js';
import { usersOf } from './record-state.js';
import type { Answers, AskRecord, Responder } from './schemas.js';
import { answerSummary, displayHeader, responderName, shorten, utcTime } from './prompt-view.js';

/** The outcome line a finalized message shows. */
export interface OutcomeView {
  status: 'answered' | 'no_answer';
  /** e.g. "Answered: Staging — by @alice", "Answered in Slack by @bob: Production", "Expired — no answer", "Cancelled". */
  text: string;
}

/** " — by @alice", or " — via API" for answers through the API. */
function byline(by: Responder): string {
  return by.channel === 'api' ? ' — via API' : ` — by ${responderName(by)}`;
}

/** "in Slack by @bob", "via the API" (for an ask delivered to several conversations). */
function where(by: Responder): string {
  return by.channel === 'api' ? 'via the API' : `in ${channelDisplayName(by.channel)} by ${responderName(by)}`;
}

/** Per question "1. Env: Production"; with `onlyGiven`, only the questions `answers` has values for (defaults). */
function answerLines(record: AskRecord, answers: Answers, onlyGiven = false): string[] {
  return record.questions.flatMap((q, i) => {
    const values = ownValue(answers, q.id);
    if (!values && onlyGiven) return [];
    const title = q.header !== undefined ? displayHeader(q.header) : shorten(q.question, 40);
    return [`${i + 1}. ${title}: ${answerSummary(q, values ?? [])}`];
  });
}

/** The people whose responses match the winning answers (an ask that needed several). */
function agreeing(record: AskRecord, answers: Answers): Responder[] {
  const key = answersKey(record.questions, answers);
  return (record.responses ?? [])
    .filter((r) => answersKey(record.questions, r.answers) === key)
    .map((r) => r.answeredBy);
}

/** The outcome of an answered record (see {@link outcomeView}). */
function answeredView(record: AskRecord, answers: Answers, by: Responder): OutcomeView {
  const fanOut = isFanOut(record);
  const agreed = agreeOf(record) > 1 ? agreeing(record, answers) : [];
  const single = record.questions.length === 1 ? record.questions[0]! : null;
  const summary = single ? answerSummary(single, ownValue(answers, single.id) ?? []) : '';
  const lines: string[] = [];
  if (fanOut) {
    lines.push(single ? `Answered ${where(by)}: ${summary}` : `Answered ${where(by)}`);
    if (agreed.length > 0) lines.push(`Agreed by ${nameList(agreed, true)}`);
  } else {
    const tail = agreed.length > 0 ? ` — agreed by ${nameList(agreed)}` : byline(by);
    lines.push(single ? `Answered: ${summary}${tail}` : `Answered${tail}`);
  }
  if (!single) lines.push(...answerLines(record, answers));
  return { status: 'answered', text: lines.join('\n') };
}

/** A timeout: the default taken, or "not enough matching answers", or no answer. */
function timeoutView(record: AskRecord, defaults: Answers | undefined): OutcomeView {
  if (defaults && Object.keys(defaults).length > 0) {
    if (record.questions.length === 1) {
      const q = record.questions[0]!;
      return {
        status: 'no_answer',
        text: `No answer in time: the default was taken (${answerSummary(q, ownValue(defaults, q.id) ?? [])})`,
      };
    }
    return {
      status: 'no_answer',
      text: ['No answer in time: the defaults were taken', ...answerLines(record, defaults, true)].join('\n'),
    };
  }
  const agree = agreeOf(record);
  if (agree > 1 && (record.responses?.length ?? 0) > 0)
    return { status: 'no_answer', text: `Expired — not enough matching answers (${agree} needed)` };
  return { status: 'no_answer', text: 'Expired — no answer' };
}

/**
 * The outcome of a terminal record, as shown in the edited message; an ask delivered to several
 * conversations names where it was decided ("Answered in Slack by @bob: Production"). Throws for a pending record.
 */
export function outcomeView(record: AskRecord): OutcomeView {
  const result = record.result;
  if (record.status === 'pending' || !result) throw new Error(`ask ${record.id} has no outcome yet`);
  if (result.status === 'answered') return answeredView(record, result.answers, result.answeredBy);
  switch (result.reason) {
    case 'timeout':
      return timeoutView(record, result.defaults);
    case 'skipped': {
      const by = result.by;
      if (!by) return { status: 'no_answer', text: 'Skipped' };
      if (by.channel === 'api') return { status: 'no_answer', text: 'Skipped via API' };
      return {
        status: 'no_answer',
        text: isFanOut(record) ? `Skipped ${where(by)}` : `Skipped by ${responderName(by)}`,
      };
    }
    case 'cancelled':
      return { status: 'no_answer', text: 'Cancelled' };
    case 'superseded':
      return { status: 'no_answer', text: 'Replaced by a newer question' };
    case 'undelivered':
      return { status: 'no_answer', text: 'Not delivered' };
  }
}

/** Situations a channel tells the human about after a tap or a reply. */
export type NoticeCode = 'recorded' | 'already_resolved' | 'expired' | 'cancelled' | 'forbidden' | 'not_found';

/** Options of {@link noticeFor}. */
export interface NoticeOptions {
  /** Renders a platform user id as the channel shows it (e.g. `<@U123>`); default: the id itself. */
  mention?: (userId: string) => string;
  /** The channel the tap or reply came from: the "for …" notice lists the users of the deliveries there. */
  channel?: string;
  /** The conversation it came from (with `channel`), when known. */
  chat?: string;
}

/** The allowed users of the deliveries where a refused person tried (every initial target's for old records). */
function allowedUsers(record: AskRecord, options: NoticeOptions): string[] {
  if (!record.targets || options.channel === undefined) return record.to?.users ?? [];
  const users = new Set<string>();
  record.deliveries.forEach((d, i) => {
    if (d.channel !== options.channel || (options.chat !== undefined && d.chat !== options.chat)) return;
    for (const user of usersOf(record, i) ?? []) users.add(user);
  });
  return [...users];
}

/**
 * The short notice shown after a tap or reply ("Answer recorded", "This question was already
 * answered by @x in Slack", "This question expired at 14:02 UTC", ...). `record` is null when it is gone.
 */
export function noticeFor(record: AskRecord | null, code: NoticeCode, options: NoticeOptions = {}): string {
  if (!record) return 'This question is no longer open';
  const result = record.result;
  switch (code) {
    case 'recorded':
      return recordedNotice(record);
    case 'expired':
      return expiredNotice(record);
    case 'cancelled':
      return 'This question was cancelled';
    case 'forbidden': {
      const users = allowedUsers(record, options);
      if (users.length === 0) return 'This question is not for you';
      const mention = options.mention ?? ((id: string) => id);
      const named = users.slice(0, 5).map(mention);
      const more = users.length > 5 ? ` and ${users.length - 5} more` : '';
      return `This question is for ${named.join(', ')}${more}`;
    }
    case 'not_found':
      return 'This question is no longer open';
    case 'already_resolved':
      break;
  }
  if (!result) return 'This question is no longer open';
  const place = (by: Responder) => (isFanOut(record) ? ` in ${channelDisplayName(by.channel)}` : '');
  if (result.status === 'answered') {
    return result.answeredBy.channel === 'api'
      ? 'This question was already answered via API'
      : `This question was already answered by ${responderName(result.answeredBy)}${place(result.answeredBy)}`;
  }
  switch (result.reason) {
    case 'timeout':
      return expiredNotice(record);
    case 'skipped':
      if (!result.by) return 'This question was already skipped';
      return result.by.channel === 'api'
        ? 'This question was already skipped via API'
        : `This question was already skipped by ${responderName(result.by)}${place(result.by)}`;
    case 'cancelled':
      return 'This question was cancelled';
    case 'superseded':
      return 'This question was replaced by a newer one';
    case 'undelivered':
      return 'This question is no longer open';
  }
}

/** "Answer recorded"; while an ask that needs several matching answers stays open, how far it got. */
function recordedNotice(record: AskRecord): string {
  const result = record.result;
  if (result?.status === 'no_answer' && result.reason === 'skipped') return 'Skip recorded';
  const agree = agreeOf(record);
  if (record.status === 'pending' && agree > 1)
    return `Answer recorded: ${Math.min(bestAgreement(record), agree)} of ${agree} matching answers so far`;
  return 'Answer recorded';
}

function expiredNotice(record: AskRecord): string {
  const time = utcTime(record.expiresAt);
  const base = time ? `This question expired at ${time}` : 'This question expired';
  const result = record.result;
  const defaults = result?.status === 'no_answer' ? result.defaults : undefined;
  if (!defaults || Object.keys(defaults).length === 0) return base;
  return `${base}; the default${Object.keys(defaults).length > 1 ? 's were' : ' was'} taken`;
}
