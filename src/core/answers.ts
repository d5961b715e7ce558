import { labelKey, type Answers, type Question } from './schemas.js';
import type { Issue } from './errors.js';
import { ownValue } from './own.js';

/** Result of checking answers against the questions. */
export type NormalizedAnswers = { ok: true; answers: Answers } | { ok: false; issues: Issue[] };

/**
 * Checks answers against the questions and rewrites values that match an option (ignoring case,
 * surrounding space and a "(Recommended)" suffix) to the option's declared label. Other values
 * are the human's own words. Single-choice questions take exactly one value; duplicates collapse.
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
    const normalized = [...new Set(values.map((v) => canonicalValue(question, v)))];
    const blank = normalized.findIndex((v) => v === '');
    if (normalized.length === 0) issues.push({ path: ['answers', id], message: 'give at least one value' });
    else if (blank >= 0) issues.push({ path: ['answers', id, blank], message: 'must not be empty' });
    else if (!question.multiSelect && normalized.length > 1) {
      issues.push({ path: ['answers', id], message: 'this question takes a single answer' });
    } else out.push([id, normalized]);
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

/** The declared label a value names, or the value itself (trimmed) when it is the human's own words. */
export function canonicalValue(question: Question, value: string): string {
  const key = labelKey(value);
  const option = question.options.find((o) => labelKey(o.label) === key);
  return option ? option.label : value.trim();
}

/** Ids of questions that have no answer yet. */
export function missingQuestions(questions: readonly Question[], answers: Answers): string[] {
  return questions.filter((q) => !ownValue(answers, q.id)?.length).map((q) => q.id);
}
