import type { AskRecord, AskRequest, Answers, HistoryEntry, MessageRef, NoAnswerReason, Responder } from './schemas.js';
import { missingQuestions, normalizeAnswers } from './answers.js';
import type { Effect } from './effects.js';
import type { Issue } from './errors.js';
import { ownValue } from './own.js';

/** Everything that can happen to an ask. */
export type AskEvent =
  /** Answers to some or all questions; the ask resolves once every question has one. */
  | { type: 'answer'; answers: Answers; by: Responder }
  | { type: 'skip'; by: Responder }
  | { type: 'timeout' }
  | { type: 'cancel' }
  | { type: 'supersede' }
  | { type: 'delivered'; index: number; message: MessageRef }
  | { type: 'delivery_failed'; index: number; error: string }
  | { type: 'finalized'; index: number; ok: boolean }
  /** A history note that changes nothing else (a rejected reply, a hint sent, a webhook result). */
  | { type: 'note'; entry: Omit<HistoryEntry, 'at'> };

/** Most history entries kept on a record; the oldest after `created` are dropped first. */
export const HISTORY_LIMIT = 100;

/** Appends entries to a record's history, keeping the first entry and the newest ones. */
function withHistory(record: AskRecord, entries: Omit<HistoryEntry, 'at'>[], now: number): AskRecord {
  const at = new Date(now).toISOString();
  const history = [...record.history, ...entries.map((e) => ({ ...e, at }))];
  const trimmed = history.length > HISTORY_LIMIT ? [history[0]!, ...history.slice(history.length - HISTORY_LIMIT + 1)] : history;
  return { ...record, history: trimmed };
}

const who = (by: Responder) => ({ channel: by.channel, userId: by.userId });

/** What a transition meant for whoever caused it. */
export type TransitionOutcome =
  | { code: 'resolved' }
  | { code: 'partial'; missing: string[] }
  | { code: 'updated' }
  | { code: 'already_resolved' }
  | { code: 'forbidden' }
  | { code: 'expired' }
  | { code: 'invalid'; issues: Issue[] };

/** A committed change (`changed`) or a refusal that leaves the record as it was. */
export type TransitionResult =
  | { kind: 'changed'; record: AskRecord; effects: Effect[]; outcome: TransitionOutcome }
  | { kind: 'unchanged'; outcome: TransitionOutcome };

/**
 * The effects of reaching a terminal state: wake the waiters, drop the timeout, stop routing the
 * conversations' replies here, count the outcome. The outbox jobs it needs come from work.ts.
 */
function terminalEffects(record: AskRecord): Effect[] {
  const result = record.result!;
  const closed = Date.parse(result.status === 'answered' ? result.answeredAt : result.at);
  return [
    { type: 'publish' },
    { type: 'unschedule', step: 'timeout' },
    ...record.deliveries.map((d): Effect => ({ type: 'leave', conversation: { channel: d.channel, chat: d.chat } })),
    {
      type: 'metric',
      metric: { name: 'ask_resolved', status: result.status, reason: result.status === 'no_answer' ? result.reason : null, secondsOpen: (closed - Date.parse(record.createdAt)) / 1000 },
    },
  ];
}

/** True once an ask is answered or ended without an answer; terminal records never change status. */
export function isTerminal(record: AskRecord): boolean {
  return record.status !== 'pending';
}

/** The ask's deadline in epoch ms. */
export function deadlineOf(record: AskRecord): number {
  return Date.parse(record.expiresAt);
}

/** True when `userId` may answer (no `users` list means anyone in the conversation). */
export function mayAnswer(record: AskRecord, by: Responder): boolean {
  if (by.channel === 'api' || by.channel === 'web') return true;
  const users = record.to?.users;
  return !users || users.includes(by.userId);
}

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
    case 'note':
      return { kind: 'changed', record: withHistory({ ...record, rev: record.rev + 1 }, [event.entry], now), effects: [], outcome: { code: 'updated' } };
  }
  if (isTerminal(record)) return { kind: 'unchanged', outcome: { code: 'already_resolved' } };

  switch (event.type) {
    case 'timeout':
      if (now < deadlineOf(record)) return { kind: 'unchanged', outcome: { code: 'updated' } };
      return end(record, 'timeout', now);
    case 'cancel':
      return end(record, 'cancelled', now);
    case 'supersede':
      return end(record, 'superseded', now);
    case 'skip':
      if (!mayAnswer(record, event.by)) return { kind: 'unchanged', outcome: { code: 'forbidden' } };
      if (now > deadlineOf(record)) return expired(record, now);
      return end(record, 'skipped', now, event.by);
    case 'answer':
      return answer(record, event.answers, event.by, now);
  }
}

function answer(record: AskRecord, answers: Answers, by: Responder, now: number): TransitionResult {
  if (!mayAnswer(record, by)) return { kind: 'unchanged', outcome: { code: 'forbidden' } };
  if (now > deadlineOf(record)) return expired(record, now);
  const checked = normalizeAnswers(record.questions, answers, false);
  if (!checked.ok) return { kind: 'unchanged', outcome: { code: 'invalid', issues: checked.issues } };
  const merged: Answers = { ...record.partial, ...checked.answers };
  const missing = missingQuestions(record.questions, merged);
  if (missing.length > 0) {
    const next = withHistory({ ...record, rev: record.rev + 1, partial: merged }, [{ type: 'partial', ...who(by), questions: Object.keys(checked.answers) }], now);
    return { kind: 'changed', record: next, effects: [], outcome: { code: 'partial', missing } };
  }
  const ordered: Answers = Object.fromEntries(record.questions.map((q) => [q.id, ownValue(merged, q.id)!]));
  const next = withHistory(
    {
      ...record,
      rev: record.rev + 1,
      status: 'answered',
      partial: {},
      result: { status: 'answered', answers: ordered, answeredBy: by, answeredAt: new Date(now).toISOString() },
    },
    [{ type: 'answered', ...who(by) }],
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}

function expired(record: AskRecord, now: number): TransitionResult {
  const ended = end(record, 'timeout', now);
  return { ...ended, outcome: { code: 'expired' } } as TransitionResult;
}

function end(record: AskRecord, reason: NoAnswerReason, now: number, by?: Responder): TransitionResult {
  const next = withHistory(
    {
      ...record,
      rev: record.rev + 1,
      status: 'no_answer',
      result: { status: 'no_answer', reason, at: new Date(now).toISOString(), ...(by ? { by } : {}) },
    },
    [{ type: 'no_answer', reason, ...(by ? who(by) : {}) }],
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}

type Bookkeeping = Extract<AskEvent, { type: 'delivered' | 'delivery_failed' | 'finalized' }>;

/** Delivery and finalization bookkeeping; the only changes a terminal record still takes. */
function bookkeeping(record: AskRecord, event: Bookkeeping, now: number): TransitionResult {
  const current = record.deliveries[event.index];
  if (!current) return { kind: 'unchanged', outcome: { code: 'invalid', issues: [{ path: ['index'], message: 'no such delivery' }] } };
  const deliveries = [...record.deliveries];
  let entry: Omit<HistoryEntry, 'at'>;
  if (event.type === 'delivered') {
    if (current.status === 'sent') return { kind: 'unchanged', outcome: { code: 'updated' } };
    deliveries[event.index] = { ...current, status: 'sent', message: event.message, error: undefined };
    entry = { type: 'delivered', channel: current.channel, messageId: event.message.messageId };
  } else if (event.type === 'delivery_failed') {
    if (current.status !== 'pending') return { kind: 'unchanged', outcome: { code: 'updated' } };
    deliveries[event.index] = { ...current, status: 'failed', error: event.error };
    entry = { type: 'delivery_failed', channel: current.channel, detail: event.error };
  } else {
    if (current.finalized !== 'no') return { kind: 'unchanged', outcome: { code: 'updated' } };
    deliveries[event.index] = { ...current, finalized: event.ok ? 'done' : 'failed' };
    entry = { type: event.ok ? 'finalized' : 'finalize_failed', channel: current.channel };
  }
  const next = withHistory({ ...record, rev: record.rev + 1, deliveries }, [entry], now);
  const allFailed = deliveries.length > 0 && deliveries.every((d) => d.status === 'failed');
  if (!isTerminal(next) && allFailed) {
    const ended = end(next, 'undelivered', now);
    if (ended.kind === 'changed') return { ...ended, record: { ...ended.record, rev: record.rev + 1 } };
  }
  return { kind: 'changed', record: next, effects: [], outcome: { code: 'updated' } };
}

/** Indexes of deliveries whose message still needs its outcome edit. */
export function deliveriesToFinalize(record: AskRecord): number[] {
  if (!isTerminal(record)) return [];
  return record.deliveries.flatMap((d, i) => (d.status === 'sent' && d.finalized === 'no' ? [i] : []));
}

/** True when no delivery or finalization work is left for this record. */
export function isSettled(record: AskRecord): boolean {
  if (!isTerminal(record)) return false;
  return record.deliveries.every((d) => d.status !== 'pending' && (d.status === 'failed' || d.finalized !== 'no'));
}

/** True when the ask's webhook has nothing left to do (none, delivered, or given up). */
export function webhookSettled(record: AskRecord): boolean {
  return !record.callbackUrl || record.history.some((h) => h.type === 'webhook_delivered' || h.type === 'webhook_failed');
}

/** True when nothing at all is left to do for this record: the reconciler can forget it. */
export function isDone(record: AskRecord): boolean {
  return isSettled(record) && webhookSettled(record);
}

/** A new pending record for `request` (version = the run's next, `key` = its Idempotency-Key). */
export function newAskRecord(request: AskRequest, id: string, version: number, timeoutSeconds: number, now: number, key?: string): AskRecord {
  const to = request.to ?? null;
  return {
    id,
    runId: request.runId,
    version,
    rev: 0,
    status: 'pending',
    questions: request.questions,
    to,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutSeconds * 1000).toISOString(),
    timeoutSeconds,
    result: null,
    partial: {},
    history: [{ type: 'created', at: new Date(now).toISOString(), ...(to ? { channel: to.channel } : {}) }],
    ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
    deliveries: to ? [{ channel: to.channel, chat: to.chat, ...(to.thread ? { thread: to.thread } : {}), status: 'pending', finalized: 'no' }] : [],
    ...(key ? { idempotencyKey: key } : {}),
  };
}

/** Creating an ask, as a transition from nothing: the record and its effects (count it, schedule its timeout). */
export function createAsk(request: AskRequest, id: string, version: number, timeoutSeconds: number, now: number, key?: string): { record: AskRecord; effects: Effect[] } {
  const record = newAskRecord(request, id, version, timeoutSeconds, now, key);
  return {
    record,
    effects: [
      { type: 'metric', metric: { name: 'ask_created', channel: record.to?.channel ?? 'none' } },
      { type: 'schedule', step: 'timeout', at: deadlineOf(record) },
    ],
  };
}
