import type { Answers, AskRecord, Responder } from './schemas.js';
import type { Response } from './result-schemas.js';
import type { Effect } from './effects.js';
import type { TransitionResult } from './ask-events.js';
import { answerValues, missingQuestions, type RawAnswers } from './answers.js';
import { terminalEffects } from './ask-ending.js';
import { ownValue } from './own.js';
import { compareKey } from './text.js';
import { agreeOf, answersKey } from './policy.js';
import { withHistory, who } from './record-history.js';

const API_CHANNEL = 'api';

/**
 * One person: `<channel>:<userId>` (never a bare user-chosen key: the `:` keeps it off
 * `Object.prototype`). A platform's user id is its own opaque id, kept exact; an API answer's `by`
 * is a name someone typed, compared like labels ({@link compareKey}): `alice`, `Alice` and
 * `ａｌｉｃｅ` are one person.
 */
export const personKey = (by: Pick<Responder, 'channel' | 'userId'>): string =>
  by.channel === API_CHANNEL ? `${API_CHANNEL}:${compareKey(by.userId)}` : `${by.channel}:${by.userId}`;

/** A stored `partials` key as {@link personKey} gives it now (asks stored before kept `api:<by>` as typed). */
const storedPersonKey = (key: string): string =>
  key.startsWith(`${API_CHANNEL}:`)
    ? personKey({ channel: API_CHANNEL, userId: key.slice(API_CHANNEL.length + 1) })
    : key;

/** The person's partial answers so far (agree > 1), under whichever spelling of their key they were kept. */
export function partialOf(record: AskRecord, by: Pick<Responder, 'channel' | 'userId'>): Answers | undefined {
  const key = personKey(by);
  const partials = record.partials ?? {};
  const found = Object.keys(partials).find((k) => storedPersonKey(k) === key);
  return found === undefined ? undefined : ownValue(partials, found);
}

/** How many responses give the same answers as `answers` (after normalisation). */
export function matchingCount(record: AskRecord, responses: readonly Response[], answers: Answers): number {
  const key = answersKey(record.questions, answers);
  return responses.filter((r) => answersKey(record.questions, r.answers) === key).length;
}

/**
 * An allowed person's (normalised) answers to an ask that needs several matching answers: kept
 * as their partial until every question has one, then recorded as their response (replacing
 * theirs). The ask is answered once `agree` responses match; the messages are refreshed with the
 * tally otherwise. `raw`: what this message wrote for typed questions (a person's earlier partial
 * messages keep their values, not their raw text).
 */
export function agreeAnswer(
  record: AskRecord,
  answers: Answers,
  by: Responder,
  now: number,
  raw?: RawAnswers,
): TransitionResult {
  const key = personKey(by);
  const partials = record.partials ?? {};
  const merged: Answers = { ...(partialOf(record, by) ?? {}), ...answers };
  const others = Object.fromEntries(Object.entries(partials).filter(([k]) => storedPersonKey(k) !== key));
  const missing = missingQuestions(record.questions, merged);
  if (missing.length > 0) {
    const next = withHistory(
      { ...record, rev: record.rev + 1, partials: Object.fromEntries([...Object.entries(others), [key, merged]]) },
      [{ type: 'partial', ...who(by), questions: Object.keys(answers) }],
      now,
    );
    return { kind: 'changed', record: next, effects: [], outcome: { code: 'partial', missing } };
  }
  const ordered: Answers = Object.fromEntries(record.questions.map((q) => [q.id, ownValue(merged, q.id)!]));
  const at = new Date(now).toISOString();
  const response: Response = { answers: ordered, ...(raw ? { raw } : {}), answeredBy: by, answeredAt: at };
  const responses = [...(record.responses ?? []).filter((r) => personKey(r.answeredBy) !== key), response];
  const needed = agreeOf(record);
  const matching = matchingCount(record, responses, ordered);
  const base = { ...record, rev: record.rev + 1, responses, partials: others };
  if (matching < needed) {
    const next = withHistory(base, [{ type: 'response', ...who(by) }], now);
    const effects = next.deliveries.flatMap((d, index): Effect[] =>
      d.status === 'sent' ? [{ type: 'enqueue', job: { kind: 'refresh', index } }] : [],
    );
    return { kind: 'changed', record: next, effects, outcome: { code: 'counted', matching, needed } };
  }
  const next = withHistory(
    {
      ...base,
      status: 'answered',
      partial: {},
      result: {
        status: 'answered',
        answers: ordered,
        values: answerValues(record.questions, ordered),
        ...(raw ? { raw } : {}),
        answeredBy: by,
        answeredAt: at,
        responses,
      },
    },
    [
      { type: 'response', ...who(by) },
      { type: 'answered', ...who(by) },
    ],
    now,
  );
  return { kind: 'changed', record: next, effects: terminalEffects(next), outcome: { code: 'resolved' } };
}
