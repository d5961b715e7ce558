// What an ask's policies (fan-out, reminders, escalation, a default on timeout, agreement) add to
// its console view. Labels and names only: free-text answers appear as "their own words".
import { answerSummary, displayHeader, responderName } from '../core/display-text.js';
import { tallyLines } from '../core/policy-view.js';
import { cadenceSteps, policySteps } from '../core/policy.js';
import { deadlineOf } from '../core/record-state.js';
import { LOCALES, wordsFor, wordsOf } from '../core/i18n/index.js';
import { CHANNEL_DISPLAY_NAMES } from '../channels/registry.js';
import { ownValue } from '../core/own.js';
import type { AskRecord, Answers } from '../core/schemas.js';

/** One delivery of an ask: where it went and how far it got (no message ids, no platform errors). */
export interface ConsoleDelivery {
  channel: string;
  chat: string;
  thread?: string;
  status: 'pending' | 'sent' | 'failed';
  /** 0: an initial target; n: added by escalation step n. */
  step: number;
}

/** One escalation step: when it falls (or fell) due, where it goes, whether it fired. */
export interface ConsoleEscalation {
  n: number;
  /** When it fired (from the history), else when it is due. */
  at: string;
  fired: boolean;
  /** `<channel>:<chat>` of each target. */
  to: string[];
}

/** The policy of a pending or finished ask, as the console shows it (absent parts: not set). */
export interface ConsolePolicy {
  /** Reminders posted so far of how many, and when the next one is due (while pending). */
  reminders?: { sent: number; total: number; next?: string };
  escalations?: ConsoleEscalation[];
  /**
   * `agree` > 1: how many matching answers are needed, the tally lines of the chats (the ask's
   * locale), and the same lines in every shipped locale for the console's own language.
   */
  agree?: { needed: number; tally: string[]; tallies: Record<string, string[]> };
  /** `onTimeout.default`: what a timeout would end with, per question. */
  onTimeout?: ConsoleDefault[];
}

/** One person's response to an ask that needed several matching answers. */
export interface ConsoleResponse {
  /** "@bob", "Alice" or the user id, as in the chats. */
  by: string;
  channel: string;
  /** Option labels, " / " between questions; free text as "their own words". */
  answer: string;
  /** An approval's response: the decision (never the reason); the page writes it in its language. */
  decision?: string;
  at: string;
}

/** A default taken on timeout, per question. */
export interface ConsoleDefault {
  question: string;
  labels: string;
}

/** The console deliveries of a record. */
export function deliveriesOf(record: AskRecord): ConsoleDelivery[] {
  return record.deliveries.map((d) => ({
    channel: d.channel,
    chat: d.chat,
    ...(d.thread !== undefined ? { thread: d.thread } : {}),
    status: d.status,
    step: d.step ?? 0,
  }));
}

const at = (record: AskRecord, seconds: number) =>
  new Date(Date.parse(record.createdAt) + seconds * 1000).toISOString();

/** When escalation step n fired, from the history (`detail` "step n: ..."), if the entry is still there. */
function firedAt(record: AskRecord, n: number): string | undefined {
  const prefix = `step ${n}:`;
  return record.history.find((h) => h.type === 'escalated' && h.detail?.startsWith(prefix))?.at;
}

/** The console view of a record's policy, or undefined when it has none. */
export function policyOf(record: AskRecord): ConsolePolicy | undefined {
  const policy = record.policy;
  if (!policy) return undefined;
  const out: ConsolePolicy = {};
  const offsets = policy.remindAfterSeconds;
  if (policy.remindEverySeconds !== undefined) {
    // A cadence: every reminder planned before the (current) deadline, in working hours, up to 20.
    const planned = [...policySteps(record).filter((s) => s.kind === 'remind'), ...cadenceSteps(record)].filter(
      (s) => s.at < deadlineOf(record),
    );
    const sent = record.reminded ?? 0;
    const next = record.status === 'pending' ? planned.find((s) => s.n > sent) : undefined;
    const total = Math.max(sent, planned.length);
    out.reminders = { sent, total, ...(next ? { next: new Date(next.at).toISOString() } : {}) };
  } else if (offsets?.length) {
    const sent = Math.min(record.reminded ?? 0, offsets.length);
    const next = record.status === 'pending' ? offsets[sent] : undefined;
    out.reminders = { sent, total: offsets.length, ...(next !== undefined ? { next: at(record, next) } : {}) };
  }
  if (policy.escalate?.length) {
    const escalated = record.escalated ?? 0;
    out.escalations = policy.escalate.map((step, i) => {
      const n = i + 1;
      const fired = n <= escalated;
      return {
        n,
        at: (fired ? firedAt(record, n) : undefined) ?? at(record, step.afterSeconds),
        fired,
        to: step.to.map((t) => `${t.channel}:${t.chat}`),
      };
    });
  }
  if ((policy.agree ?? 1) > 1)
    out.agree = {
      needed: policy.agree!,
      tally: tallyLines(record, wordsOf(record, undefined, CHANNEL_DISPLAY_NAMES)),
      tallies: Object.fromEntries(
        [...LOCALES.keys()].map((tag) => [tag, tallyLines(record, wordsFor(tag, null, CHANNEL_DISPLAY_NAMES))]),
      ),
    };
  const onTimeout = policy.onTimeout?.default && defaultLines(record.questions, policy.onTimeout.default);
  if (onTimeout) out.onTimeout = onTimeout;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Answers as one line: each question's option labels (free text as "their own words"), " / " between. */
function answersLine(questions: AskRecord['questions'], answers: Answers): string {
  return questions.map((q) => answerSummary(q, ownValue(answers, q.id) ?? []) || '–').join(' / ');
}

/** The responses of a result (agree > 1), or undefined. */
export function responsesOf(record: AskRecord): ConsoleResponse[] | undefined {
  const responses = record.result?.responses;
  if (!responses?.length) return undefined;
  return responses.map((r) => ({
    by: responderName(r.answeredBy),
    channel: r.answeredBy.channel,
    answer: answersLine(record.questions, r.answers),
    ...(r.decision !== undefined ? { decision: r.decision } : {}),
    at: r.answeredAt,
  }));
}

/** The defaults of a timeout with `onTimeout.default`, per question in order, or undefined. */
export function defaultsOf(record: AskRecord): ConsoleDefault[] | undefined {
  const result = record.result;
  if (result?.status !== 'no_answer' || !result.defaults) return undefined;
  return defaultLines(record.questions, result.defaults);
}

/** Default answers per question (in the questions' order; own-property reads), or undefined when none. */
function defaultLines(questions: AskRecord['questions'], defaults: Answers): ConsoleDefault[] | undefined {
  const shown = questions.flatMap((q) => {
    const values = ownValue(defaults, q.id);
    return values ? [{ question: q.header ? displayHeader(q.header) : q.id, labels: answerSummary(q, values) }] : [];
  });
  return shown.length > 0 ? shown : undefined;
}
