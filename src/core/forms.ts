import type { Answers, Question } from './schemas.js';
import { hasVisible } from './text.js';

/** The longest own-words answer a form takes (the API's limit for one answer value). */
export const FORM_OWN_WORDS_MAX = 4000;

/**
 * One question's part of a submitted form: the chosen options (0-based indexes) and the person's
 * own words ("Other"). Untrusted: it comes from a platform's form payload or a stored draft.
 */
export interface FormAnswer {
  choices: readonly number[];
  own?: string;
}

/** A problem with one question of a form (0-based `question`), to show beside that field. */
export interface FormProblem {
  question: number;
  message: string;
}

/** What a form submission means: the answers, keyed by question id, or what to fix. */
export type FormReading = { kind: 'answers'; answers: Answers } | { kind: 'invalid'; problems: FormProblem[] };

/** What a person is told for each problem of a form. */
export const FORM_MESSAGES = {
  nothing: 'Choose an option or write your own answer.',
  both: 'Choose an option or write your own answer, not both.',
  tooMany: 'Choose one option.',
  unknown: 'This choice is not one of the options.',
  tooLong: `Keep your own answer under ${FORM_OWN_WORDS_MAX} characters.`,
  shape: 'This form does not match the question any more.',
} as const;

/**
 * Reads a form: every question needs an answer. A single-choice question takes one option or own
 * words, not both; a multi-select question takes any options plus, optionally, own words. Option
 * indexes outside the question are refused (forged or stale data), never clamped.
 */
export function readForm(questions: readonly Question[], form: readonly FormAnswer[]): FormReading {
  if (form.length !== questions.length) {
    return { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.shape }] };
  }
  const problems: FormProblem[] = [];
  const answers: [string, string[]][] = [];
  questions.forEach((question, i) => {
    const part = form[i]!;
    const own = part.own !== undefined && hasVisible(part.own) ? part.own.trim() : '';
    const message = problemOf(question, part.choices, own);
    if (message) problems.push({ question: i, message });
    else
      answers.push([
        question.id,
        [...new Set(part.choices)].map((c) => question.options[c]!.label).concat(own ? [own] : []),
      ]);
  });
  return problems.length > 0
    ? { kind: 'invalid', problems }
    : { kind: 'answers', answers: Object.fromEntries(answers) };
}

function problemOf(question: Question, choices: readonly number[], own: string): string | null {
  if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= question.options.length)) return FORM_MESSAGES.unknown;
  if (own.length > FORM_OWN_WORDS_MAX) return FORM_MESSAGES.tooLong;
  const chosen = new Set(choices).size;
  if (chosen === 0 && own === '') return FORM_MESSAGES.nothing;
  if (!question.multiSelect && chosen > 1) return FORM_MESSAGES.tooMany;
  if (!question.multiSelect && chosen === 1 && own !== '') return FORM_MESSAGES.both;
  return null;
}

/** The hint for a form's problems in one line, numbered by question when the ask has several. */
export function formHint(problems: readonly FormProblem[], questionCount: number): string {
  return problems.map((p) => (questionCount > 1 ? `Question ${p.question + 1}: ${p.message}` : p.message)).join(' ');
}
