import { responderName } from '../core/display-text.js';
import { outcomeView } from '../core/outcome-view.js';
import { LOCALES, wordsFor, wordsOf } from '../core/i18n/index.js';
import { CHANNEL_DISPLAY_NAMES } from '../channels/registry.js';
import type { AskRecord, HistoryEntry } from '../core/schemas.js';
import { questionViews, type ConsoleQuestion } from './view-question.js';
import { approvalOf, decisionOf, type ConsoleApproval, type ConsoleDecision } from './view-approval.js';
import {
  defaultsOf,
  deliveriesOf,
  policyOf,
  responsesOf,
  type ConsoleDefault,
  type ConsoleDelivery,
  type ConsolePolicy,
  type ConsoleResponse,
} from './view-policy.js';

export type {
  ConsoleDefault,
  ConsoleDelivery,
  ConsoleEscalation,
  ConsolePolicy,
  ConsoleResponse,
} from './view-policy.js';

/** How an ask ended, as the console shows it. Free-text answers appear only as "their own words". */
export interface ConsoleOutcome {
  status: 'answered' | 'no_answer';
  reason?: string;
  /** The outcome lines of the edited chat message (core/prompt-view.ts), in the ask's locale. */
  text: string;
  /** The same lines in every shipped locale, for the console's own language (times in UTC). */
  texts: Record<string, string>;
  /** Who answered or skipped, e.g. "@alice" or "ops-bob", and through which channel. */
  by?: string;
  channel?: string;
  at: string;
  /** A timeout with `onTimeout.default`: the default taken, per question (never an answer). */
  defaults?: ConsoleDefault[];
  /** An ask that needed several matching answers: everyone who answered (labels only). */
  responses?: ConsoleResponse[];
  /** An approval: the decision and the hash of what runs (never the reason). */
  approval?: ConsoleDecision;
}

export type { ConsoleQuestion, ConsoleTypedPart } from './view-question.js';
export type { ConsoleApproval, ConsoleDecision } from './view-approval.js';

/**
 * One ask as the console sees it: no button tokens, idempotency keys, callback URLs, message
 * ids of deliveries, free-text answers, typed `values` or what people wrote (`raw`): every
 * signed-in console gets every view, so answers reach it only as the outcome lines of the chats.
 * `rev` lets the page keep the newest of two updates.
 */
export interface ConsoleAsk {
  id: string;
  runId: string;
  version: number;
  rev: number;
  status: AskRecord['status'];
  questions: ConsoleQuestion[];
  /** An approval (then `questions` is empty): the action whole, its hash and the decisions offered. */
  approval?: ConsoleApproval;
  to: { channel: string; chat: string } | null;
  createdAt: string;
  expiresAt: string;
  outcome: ConsoleOutcome | null;
  /** Ids of the questions already answered by partial chat replies. */
  partial: string[];
  /** Every delivery (initial targets and escalation steps), failed ones too. */
  deliveries: ConsoleDelivery[];
  /** Reminders, escalation steps and the agreement tally (absent: the ask sets none). */
  policy?: ConsolePolicy;
  history: HistoryEntry[];
}

/** The console view of a record. */
export function consoleView(record: AskRecord): ConsoleAsk {
  return {
    id: record.id,
    runId: record.runId,
    version: record.version,
    rev: record.rev,
    status: record.status,
    questions: questionViews(record),
    ...optional('approval', approvalOf(record)),
    to: record.to ? { channel: record.to.channel, chat: record.to.chat } : null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    outcome: outcomeOf(record),
    partial: Object.keys(record.partial),
    deliveries: deliveriesOf(record),
    ...optional('policy', policyOf(record)),
    history: record.history.map(({ messageId: _messageId, ...entry }) => entry),
  };
}

function outcomeOf(record: AskRecord): ConsoleOutcome | null {
  const result = record.result;
  if (record.status === 'pending' || !result) return null;
  const { text } = outcomeView(record, wordsOf(record, undefined, CHANNEL_DISPLAY_NAMES));
  const texts = Object.fromEntries(
    [...LOCALES.keys()].map((tag) => [tag, outcomeView(record, wordsFor(tag, null, CHANNEL_DISPLAY_NAMES)).text]),
  );
  const who = result.status === 'answered' ? result.answeredBy : result.by;
  return {
    status: result.status,
    ...(result.status === 'no_answer' ? { reason: result.reason } : {}),
    text,
    texts,
    ...(who ? { by: responderName(who), channel: who.channel } : {}),
    at: result.status === 'answered' ? result.answeredAt : result.at,
    ...optional('defaults', defaultsOf(record)),
    ...optional('responses', responsesOf(record)),
    ...optional('approval', decisionOf(record)),
  };
}

/** `{[key]: value}`, or nothing when the value is undefined (so views carry no `undefined` fields). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
