import type { Answers, Question } from './schemas.js';
import type { ButtonChoice } from './token.js';
import { ENGLISH, type Words } from './i18n/index.js';
import {
  FORM_OWN_WORDS_MAX,
  kindOf,
  type FormAnswer,
  type FormMessages,
  type ParseContext,
} from './questions/index.js';
import type { RawAnswers } from './answers.js';

export { FORM_OWN_WORDS_MAX, type FormAnswer } from './questions/index.js';

/** A problem with one question of a form (0-based `question`), to show beside that field. */
export interface FormProblem {
  question: number;
  message: string;
}

/** What a form submission means: the answers, keyed by question id (`raw`: see {@link RawAnswers}), or what to fix. */
export type FormReading =
  { kind: 'answers'; answers: Answers; raw?: RawAnswers } | { kind: 'invalid'; problems: FormProblem[] };

/** What a person is told for each problem of a form, in `words` (catalogue keys `form.*`). */
export function formMessages(words: Words = ENGLISH): FormMessages {
  return {
    nothing: words.t('form.nothing'),
    both: words.t('form.both'),
    tooMany: words.t('form.tooMany'),
    unknown: words.t('form.unknown'),
    tooLong: words.t('form.tooLong', { max: FORM_OWN_WORDS_MAX }),
    shape: words.t('form.shape'),
  } as const;
}

/** What a person is told for each problem of a form, in English. */
export const FORM_MESSAGES = formMessages();

/**
 * Reads a form: every question needs an answer, each part read by its question's kind
 * (core/questions/; a choice refuses option indexes outside the question, never clamps them; a
 * typed kind reads its field's text as a typed reply in `parse`'s languages).
 */
export function readForm(
  questions: readonly Question[],
  form: readonly FormAnswer[],
  words: Words = ENGLISH,
  parse: ParseContext = { locales: [words.locale], timeZone: words.timeZone, now: 0 },
): FormReading {
  const messages = words === ENGLISH ? FORM_MESSAGES : formMessages(words);
  if (form.length !== questions.length) {
    return { kind: 'invalid', problems: [{ question: 0, message: messages.shape }] };
  }
  const problems: FormProblem[] = [];
  const answers: [string, string[]][] = [];
  const raw: [string, string][] = [];
  questions.forEach((question, i) => {
    const reading = kindOf(question).readForm(question, form[i]!, { messages, words, parse });
    if (!reading.ok) problems.push({ question: i, message: reading.message });
    else {
      answers.push([question.id, reading.values]);
      if (reading.raw !== undefined) raw.push([question.id, reading.raw]);
    }
  });
  return problems.length > 0
    ? { kind: 'invalid', problems }
    : {
        kind: 'answers',
        answers: Object.fromEntries(answers),
        ...(raw.length > 0 ? { raw: Object.fromEntries(raw) } : {}),
      };
}

/** The hint for a form's problems in one line, numbered by question when the ask has several (in `words`, default English). */
export function formHint(problems: readonly FormProblem[], questionCount: number, words: Words = ENGLISH): string {
  return problems
    .map((p) => (questionCount > 1 ? words.t('form.problem', { n: p.question + 1, message: p.message }) : p.message))
    .join(' ');
}

/**
 * Whether a button's control fits the ask's questions: `option` and `other` need a single question,
 * `step` and `own` an existing question; whether an `option`, `pick` or `toggle` fits its question
 * is its kind's say (a choice: an `option` or `pick` of a single-choice one, a `toggle` of a
 * multi-select one, with that option). Untrusted data that names a question or option the ask does
 * not have is refused, never clamped.
 */
export function controlFits(choice: ButtonChoice, questions: readonly Question[]): boolean {
  switch (choice.kind) {
    case 'other':
      return questions.length === 1;
    case 'option':
      return questions.length === 1 && kindOf(questions[0]!).fits(questions[0]!, choice);
    case 'pick':
    case 'toggle': {
      const question = questions[choice.question];
      return !!question && kindOf(question).fits(question, choice);
    }
    case 'step':
    case 'own':
      return choice.question < questions.length;
    default:
      return true;
  }
}
