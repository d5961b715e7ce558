import type { Answers, Question } from './schemas.js';
import { kindOf, type AnswerValue, type ParseContext } from './questions/index.js';
import type { Issue } from './errors.js';
import { ownValue } from './own.js';

/** What people wrote where it differs from the kept value, by question id (a typed answer's text). */
export type RawAnswers = Record<string, string>;

/** Result of checking answers against the questions (`raw`: what was given where the kept value differs). */
export type NormalizedAnswers = { ok: true; answers: Answers; raw?: RawAnswers } | { ok: false; issues: Issue[] };

/**
 * Checks answers against the questions: each question's values by its kind (core/questions/; a
 * choice rewrites values naming an option to its declared label, a typed kind reads `ctx`'s
 * forms), unknown ids, and, with `requireAll`, every question answered.
 */
export function normalizeAnswers(
  questions: readonly Question[],
  answers: Answers,
  requireAll: boolean,
  ctx: ParseContext = { locales: ['en'], timeZone: 'UTC', now: 0, strict: true },
): NormalizedAnswers {
  const issues: Issue[] = [];
  const byId = new Map(questions.map((q) => [q.id, q]));
  const out: [string, string[]][] = [];
  const raw: [string, string][] = [];
  for (const [id, values] of Object.entries(answers)) {
    const question = byId.get(id);
    if (!question) {
      issues.push({
        path: ['answers', id],
        message: `no question has id "${id}" (ids: ${[...byId.keys()].join(', ')})`,
      });
      continue;
    }
    const checked = kindOf(question).normalize(question, values, ctx);
    if (checked.ok) {
      out.push([id, checked.values]);
      if (checked.raw !== undefined) raw.push([id, checked.raw]);
    } else
      issues.push({
        path: ['answers', id, ...(checked.at === undefined ? [] : [checked.at])],
        message: checked.message,
      });
  }
  if (Object.keys(answers).length === 0) issues.push({ path: ['answers'], message: 'answer at least one question' });
  if (requireAll) {
    for (const q of questions) {
      if (!Object.hasOwn(answers, q.id))
        issues.push({ path: ['answers', q.id], message: 'missing: answer every question, or skip' });
    }
  }
  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, answers: Object.fromEntries(out), ...(raw.length > 0 ? { raw: Object.fromEntries(raw) } : {}) };
}

/** Ids of questions that have no answer yet. */
export function missingQuestions(questions: readonly Question[], answers: Answers): string[] {
  return questions.filter((q) => !ownValue(answers, q.id)?.length).map((q) => q.id);
}

/** The result's `values`: each answered question's normalized value as its kind's JSON type (a number as a number). */
export function answerValues(questions: readonly Question[], answers: Answers): Record<string, AnswerValue> {
  return Object.fromEntries(
    questions.flatMap((q) => {
      const values = ownValue(answers, q.id);
      return values?.length ? [[q.id, kindOf(q).value(q, values)]] : [];
    }),
  );
}

/**
 * `kept` (raw text of earlier answers) updated by one message: the questions it answers take its
 * raw text, or none (a re-answer given as a canonical value drops the earlier text). Undefined when empty.
 */
export function mergeRaw(
  kept: Readonly<RawAnswers> | undefined,
  answered: Answers,
  raw: Readonly<RawAnswers> | undefined,
): RawAnswers | undefined {
  const out: RawAnswers = {};
  for (const [id, text] of Object.entries(kept ?? {})) if (!Object.hasOwn(answered, id)) out[id] = text;
  for (const [id, text] of Object.entries(raw ?? {})) if (Object.hasOwn(answered, id)) out[id] = text;
  return Object.keys(out).length > 0 ? out : undefined;
}
