// Typed answers from the console's inputs: a datetime-local's wall time put in the ask's time
// zone before the API's check, and what the page shows beside a field whose value that check
// refused (the API names the question in English; the console shows the same refusal in the
// operator's language, with what was expected).
import { AskgateError } from '../core/errors.js';
import { formMessages } from '../core/forms.js';
import { chooseLocale, wordsFor } from '../core/i18n/index.js';
import { isChoice, kindOf, strictContext, type ParseContext } from '../core/questions/index.js';
import { parseDateTime } from '../core/questions/parse/index.js';
import type { AnswerRequest, AskRecord, Question } from '../core/schemas.js';
import { ownValue } from '../core/own.js';

/** One refused typed value, as the page shows it beside the question's field. */
export interface FieldProblem {
  question: string;
  message: string;
}

type Asked = Pick<AskRecord, 'questions' | 'timeZone'>;

/** What `<input type="datetime-local">` sends: a wall time without an offset, to the minute (or second). */
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?$/;

/**
 * How the console reads one typed value: the API's strict forms, except a datetime-local's wall
 * time, read on the clocks of the ask's time zone (a time those clocks skip is `nonexistent`).
 */
function contextFor(q: Question, value: string, asked: Asked, now: number): ParseContext {
  const strict = strictContext(asked.timeZone, now);
  return q.kind === 'datetime' && DATETIME_LOCAL.test(value) ? { ...strict, strict: false } : strict;
}

/**
 * `answer` with each datetime-local value written as the API takes it (ISO 8601 with the ask's
 * offset at that instant); anything else as sent. A value that does not read stays as sent, for
 * the API's check to refuse.
 */
export function zonedInputs(asked: Asked, answer: AnswerRequest, now: number): AnswerRequest {
  if (!('answers' in answer) || !answer.answers) return answer;
  const answers = { ...answer.answers };
  for (const q of asked.questions) {
    const values = ownValue(answers, q.id);
    if (q.kind !== 'datetime' || values?.length !== 1 || !DATETIME_LOCAL.test(values[0]!)) continue;
    const read = parseDateTime(values[0]!, contextFor(q, values[0]!, asked, now));
    if (read.ok) answers[q.id] = [read.value];
  }
  return { ...answer, answers };
}

/**
 * The language the page writes in: the first tag of its `Accept-Language` (the console sets it to
 * the page's language), else English.
 */
export function operatorLocale(acceptLanguage: string | undefined): string {
  const first = (acceptLanguage ?? '').split(',')[0]!.split(';')[0]!.trim();
  return chooseLocale(first.slice(0, 64));
}

/**
 * The typed questions of `answer` (as sent) whose one value is refused, each with the refusal and
 * the expected sentence in `locale`: the kind's own reading, with the API's strict forms (see
 * {@link contextFor}), so what the API refuses is refused here. A question sent with several
 * values is left to the API's English message.
 */
export function fieldProblems(asked: Asked, answer: AnswerRequest, locale: string, now: number): FieldProblem[] {
  if (!('answers' in answer) || !answer.answers) return [];
  const answers = answer.answers;
  const words = wordsFor(locale, asked.timeZone);
  const messages = formMessages(words);
  return asked.questions.flatMap((q): FieldProblem[] => {
    const values = ownValue(answers, q.id);
    if (isChoice(q) || values?.length !== 1) return [];
    const parse = contextFor(q, values[0]!, asked, now);
    const reading = kindOf(q).readForm(q, { choices: [], own: values[0] }, { messages, words, parse });
    return reading.ok ? [] : [{ question: q.id, message: reading.message }];
  });
}

/** `error` with `problems` (see {@link fieldProblems}) added to its body when there are any. */
export function withProblems(error: AskgateError, problems: FieldProblem[]): AskgateError {
  if (problems.length === 0) return error;
  return new AskgateError(error.code, error.message, error.issues, { ...error.details, problems });
}
