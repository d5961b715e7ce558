import type { Answers, Question } from './schemas.js';
import { kindOf } from './questions/index.js';
import type { Issue } from './errors.js';
import { ownValue } from './own.js';

/** Result of checking answers against the questions. */
export type NormalizedAnswers = { ok: true; answers: Answers } | { ok: false; issues: Issue[] };

/**
 * Checks answers against the questions: each question's values by its kind (core/questions/; a
 * choice rewrites values naming an option to its declared label), unknown ids, and, with
 * `requireAll`, every question answered.
 */
export function normalizeAnswers(
  questions: readonly Question[],
  answers: Answers,
  requireAll: boolean,
): NormalizedAnswers {
  const issues: Issue[] = [];
  const byId = new Map(questions.map((q) => [q.id, q]));
  const out: [string, string[]][] = [];
  for (const [id, values] of Object.entries(answers)) {
    const question = byId.get(id);
    if (!question) {
      issues.push({
        path: ['answers', id],
        message: `no question has id "${id}" (ids: ${[...byId.keys()].join(', ')})`,
      });
      continue;
    }
    const checked = kindOf(question).normalize(question, values);
    if (checked.ok) out.push([id, checked.values]);
    else
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
  return issues.length > 0 ? { ok: false, issues } : { ok: true, answers: Object.fromEntries(out) };
}

/** Ids of questions that have no answer yet. */
export function missingQuestions(questions: readonly Question[], answers: Answers): string[] {
  return questions.filter((q) => !ownValue(answers, q.id)?.length).map((q) => q.id);
}
