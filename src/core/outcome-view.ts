// The outcome line of a finalized message and the notices shown after a tap or a reply.
import { ownValue } from './own.js';
import { decisionLine } from './approval/approval-view.js';
import { agreeOf, answersKey } from './policy.js';
import { bestAgreement, channelDisplayName, isFanOut, nameList } from './policy-view.js';
import { LINK_CHANNEL, usersOf } from './record-state.js';
import type { Answers, AskRecord, Responder } from './schemas.js';
import { answerSummary, displayHeader, responderName } from './display-text.js';
import { shorten } from './text.js';
import { ENGLISH, wordsOf, type Words } from './i18n/index.js';

/** The outcome line a finalized message shows. */
export interface OutcomeView {
  status: 'answered' | 'no_answer';
  /** e.g. "Answered: Staging — by @alice", "Answered in Slack by @bob: Production", "Expired — no answer", "Cancelled". */
  text: string;
}

// An answer through an answer page link for anyone (channel and user id `link`) names no person:
// its lines name the place instead ("on the answer page"), as an API answer's say "via API".

/** " — by @alice", " — via API" for answers through the API, " — on the answer page" for a link for anyone. */
function byline(by: Responder, w: Words): string {
  if (by.channel === 'api') return w.t('outcome.byApi');
  if (by.channel === LINK_CHANNEL) return w.t('outcome.byPage');
  return w.t('outcome.by', { name: responderName(by) });
}

/** "in Slack by @bob", "via the API", "on the answer page" (for an ask delivered to several conversations). */
function where(by: Responder, w: Words): string {
  if (by.channel === 'api') return w.t('outcome.whereApi');
  if (by.channel === LINK_CHANNEL) return w.t('outcome.wherePage');
  return w.t('outcome.where', { channel: channelDisplayName(by.channel, w), name: responderName(by) });
}

/** Per question "1. Env: Production"; with `onlyGiven`, only the questions `answers` has values for (defaults). */
function answerLines(
  record: AskRecord,
  answers: Answers,
  w: Words,
  onlyGiven = false,
  raw: Readonly<Record<string, string>> = {},
): string[] {
  return record.questions.flatMap((q, i) => {
    const values = ownValue(answers, q.id);
    if (!values && onlyGiven) return [];
    const title = q.header !== undefined ? displayHeader(q.header) : shorten(q.question, 40);
    return [`${i + 1}. ${title}: ${answerSummary(q, values ?? [], w, ownValue(raw, q.id))}`];
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
function answeredView(
  record: AskRecord,
  answers: Answers,
  by: Responder,
  w: Words,
  raw: Readonly<Record<string, string>> = {},
): OutcomeView {
  const t = w.t;
  const fanOut = isFanOut(record);
  const agreed = agreeOf(record) > 1 ? agreeing(record, answers) : [];
  const single = record.questions.length === 1 ? record.questions[0]! : null;
  const summary = single ? answerSummary(single, ownValue(answers, single.id) ?? [], w, ownValue(raw, single.id)) : '';
  const lines: string[] = [];
  if (fanOut) {
    const place = where(by, w);
    lines.push(
      single
        ? t('outcome.answeredWhereValue', { where: place, summary })
        : t('outcome.answeredWhere', { where: place }),
    );
    if (agreed.length > 0) lines.push(t('outcome.agreedBy', { names: nameList(agreed, true, w) }));
  } else {
    const tail = agreed.length > 0 ? t('outcome.agreedTail', { names: nameList(agreed, false, w) }) : byline(by, w);
    lines.push(single ? t('outcome.answeredValue', { summary, tail }) : t('outcome.answered', { tail }));
  }
  if (!single) lines.push(...answerLines(record, answers, w, false, raw));
  return { status: 'answered', text: lines.join('\n') };
}

/** A timeout: the default taken, or "not enough matching answers", or no answer. */
function timeoutView(record: AskRecord, defaults: Answers | undefined, w: Words): OutcomeView {
  if (defaults && Object.keys(defaults).length > 0) {
    if (record.questions.length === 1) {
      const q = record.questions[0]!;
      return {
        status: 'no_answer',
        text: w.t('outcome.defaultTaken', { summary: answerSummary(q, ownValue(defaults, q.id) ?? [], w) }),
      };
    }
    return {
      status: 'no_answer',
      text: [w.t('outcome.defaultsTaken'), ...answerLines(record, defaults, w, true)].join('\n'),
    };
  }
  const agree = agreeOf(record);
  if (agree > 1 && (record.responses?.length ?? 0) > 0)
    return { status: 'no_answer', text: w.t('outcome.notEnough', { count: agree }) };
  return { status: 'no_answer', text: w.t('outcome.expired') };
}

/**
 * The outcome of a terminal record, as shown in the edited message; an ask delivered to several
 * conversations names where it was decided ("Answered in Slack by @bob: Production"). Throws for a pending record.
 */
export function outcomeView(record: AskRecord, words: Words = wordsOf(record)): OutcomeView {
  const t = words.t;
  const result = record.result;
  if (record.status === 'pending' || !result) throw new Error(`ask ${record.id} has no outcome yet`);
  if (result.status === 'answered' && result.decision && record.approval) {
    const hash = result.effectiveHash ?? record.approval.actionHash;
    return { status: 'answered', text: decisionLine(record, result.decision, result.answeredBy, hash, words) };
  }
  if (result.status === 'answered') return answeredView(record, result.answers, result.answeredBy, words, result.raw);
  switch (result.reason) {
    case 'timeout':
      if (result.decision)
        return {
          status: 'no_answer',
          text: t(result.decision === 'approve' ? 'approval.timeoutApproved' : 'approval.timeoutRejected'),
        };
      return timeoutView(record, result.defaults, words);
    case 'skipped': {
      const by = result.by;
      if (!by) return { status: 'no_answer', text: t('outcome.skipped') };
      if (by.channel === 'api') return { status: 'no_answer', text: t('outcome.skippedApi') };
      if (by.channel === LINK_CHANNEL) return { status: 'no_answer', text: t('outcome.skippedPage') };
      return {
        status: 'no_answer',
        text: isFanOut(record)
          ? t('outcome.skippedWhere', { where: where(by, words) })
          : t('outcome.skippedBy', { name: responderName(by) }),
      };
    }
    case 'cancelled':
      return { status: 'no_answer', text: t('outcome.cancelled') };
    case 'superseded':
      return { status: 'no_answer', text: t('outcome.superseded') };
    case 'undelivered':
      return { status: 'no_answer', text: t('outcome.undelivered') };
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

/**
 * The allowed users of the deliveries where a refused person tried; the first target's when it is
 * not known where, or the ask has no delivery (see `mayAnswer`).
 */
function allowedUsers(record: AskRecord, options: NoticeOptions): string[] {
  if (options.channel === undefined || record.deliveries.length === 0) return record.to?.users ?? [];
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
export function noticeFor(
  record: AskRecord | null,
  code: NoticeCode,
  options: NoticeOptions = {},
  words: Words = record ? wordsOf(record) : ENGLISH,
): string {
  const t = words.t;
  if (!record) return t('notice.gone');
  const result = record.result;
  switch (code) {
    case 'recorded':
      return recordedNotice(record, words);
    case 'expired':
      return expiredNotice(record, words);
    case 'cancelled':
      return t('notice.cancelled');
    case 'forbidden': {
      const users = allowedUsers(record, options);
      if (users.length === 0) return t('notice.notForYou');
      const mention = options.mention ?? ((id: string) => id);
      const named = users.slice(0, 5).map(mention);
      const more = users.length > 5 ? t('list.more', { count: users.length - 5 }) : '';
      return t('notice.forUsers', { names: named.join(t('list.separator')), more });
    }
    case 'not_found':
      return t('notice.gone');
    case 'already_resolved':
      break;
  }
  if (!result) return t('notice.gone');
  const place = (by: Responder) =>
    isFanOut(record) ? t('notice.place', { channel: channelDisplayName(by.channel, words) }) : '';
  if (result.status === 'answered') {
    const by = result.answeredBy;
    if (by.channel === 'api') return t('notice.answeredApi');
    if (by.channel === LINK_CHANNEL) return t('notice.answeredPage');
    return t('notice.answeredBy', { name: responderName(by), place: place(by) });
  }
  switch (result.reason) {
    case 'timeout':
      return expiredNotice(record, words);
    case 'skipped':
      if (!result.by) return t('notice.skipped');
      if (result.by.channel === 'api') return t('notice.skippedApi');
      if (result.by.channel === LINK_CHANNEL) return t('notice.skippedPage');
      return t('notice.skippedBy', { name: responderName(result.by), place: place(result.by) });
    case 'cancelled':
      return t('notice.cancelled');
    case 'superseded':
      return t('notice.superseded');
    case 'undelivered':
      return t('notice.gone');
  }
}

/** "Answer recorded"; while an ask that needs several matching answers stays open, how far it got. */
function recordedNotice(record: AskRecord, words: Words): string {
  const result = record.result;
  if (result?.status === 'no_answer' && result.reason === 'skipped') return words.t('notice.skipRecorded');
  const agree = agreeOf(record);
  if (record.status === 'pending' && agree > 1)
    return words.t('notice.recordedSoFar', { count: Math.min(bestAgreement(record), agree), needed: agree });
  return words.t('notice.recorded');
}

function expiredNotice(record: AskRecord, words: Words): string {
  const time = words.time(record.expiresAt);
  const base = time ? words.t('notice.expiredAt', { time }) : words.t('notice.expired');
  const result = record.result;
  const defaults = result?.status === 'no_answer' ? result.defaults : undefined;
  if (!defaults || Object.keys(defaults).length === 0) return base;
  return words.t('notice.defaultsTaken', { base, count: Object.keys(defaults).length });
}
