import type { Answers, Question } from './schemas.js';
import type { ButtonChoice } from './token.js';
import { hasVisible } from './text.js';
import { ENGLISH, type Words } from './i18n/index.js';

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

/** What a person is told for each problem of a form, in `words` (catalogue keys `form.*`). */
export function formMessages(words: Words = ENGLISH) {
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
 * Reads a form: every question needs an answer. A single-choice question takes one option or own
 * words, not both; a multi-select question takes any options plus, optionally, own words. Option
 * indexes outside the question are refused (forged or stale data), never clamped.
 */
export function readForm(
  questions: readonly Question[],
  form: readonly FormAnswer[],
  words: Words = ENGLISH,
): FormReading {
  const messages = words === ENGLISH ? FORM_MESSAGES : formMessages(words);
  if (form.length !== questions.length) {
    return { kind: 'invalid', problems: [{ question: 0, message: messages.shape }] };
  }
  const problems: FormProblem[] = [];
  const answers: [string, string[]][] = [];
  questions.forEach((question, i) => {
    const part = form[i]!;
    const own = part.own !== undefined && hasVisible(part.own) ? part.own.trim() : '';
    const message = problemOf(question, part.choices, own, messages);
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

function problemOf(
  question: Question,
  choices: readonly number[],
  own: string,
  messages: typeof FORM_MESSAGES,
): string | null {
  if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= question.options.length)) return messages.unknown;
  if (own.length > FORM_OWN_WORDS_MAX) return messages.tooLong;
  const chosen = new Set(choices).size;
  if (chosen === 0 && own === '') return messages.nothing;
  if (!question.multiSelect && chosen > 1) return messages.tooMany;
  if (!question.multiSelect && chosen === 1 && own !== '') return messages.both;
  return null;
}

/** The hint for a form's problems in one line, numbered by question when the ask has several (in `words`, default English). */
export function formHint(problems: readonly FormProblem[], questionCount: number, words: Words = ENGLISH): string {
  return problems
    .map((p) => (questionCount > 1 ? words.t('form.problem', { n: p.question + 1, message: p.message }) : p.message))
    .join(' ');
}

/**
 * Whether a button's control fits the ask's questions: `option` and `other` need a single question
 * (an `option` of a single-choice one), `pick` a single-choice question and `toggle` a multi-select
 * one with that option, `step` and `own` an existing question. Untrusted data that names a question
 * or option the ask does not have is refused, never clamped.
 */
export function controlFits(choice: ButtonChoice, questions: readonly Question[]): boolean {
  switch (choice.kind) {
    case 'other':
      return questions.length === 1;
    case 'option':
      return questions.length === 1 && !questions[0]!.multiSelect && choice.index < questions[0]!.options.length;
    case 'pick':
    case 'toggle': {
      const question = questions[choice.question];
      return (
        !!question && choice.index < question.options.length && question.multiSelect === (choice.kind === 'toggle')
      );
    }
    case 'step':
    case 'own':
      return choice.question < questions.length;
    default:
      return true;
  }
}
