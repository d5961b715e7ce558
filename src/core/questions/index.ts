// The registry of answer kinds: a kind's name -> its module. A question without `kind` is a choice.
import { choice, type ChoiceQuestion, type ChoiceView } from './choice.js';
import { text, type TextQuestion } from './text.js';
import { number, type NumberQuestion } from './number.js';
import { date, type DateQuestion } from './date.js';
import { time, type TimeQuestion } from './time.js';
import { datetime, type DateTimeQuestion } from './datetime.js';
import { email, type EmailQuestion } from './email.js';
import { url, type UrlQuestion } from './url.js';
import type { QuestionKind } from './kind.js';
import type { TypedViewPart } from './typed-kind.js';

export type { ChoiceQuestion, ChoiceView, OptionView } from './choice.js';
export type { TextQuestion } from './text.js';
export type { NumberQuestion } from './number.js';
export type { DateQuestion } from './date.js';
export type { TimeQuestion } from './time.js';
export type { DateTimeQuestion } from './datetime.js';
export type { EmailQuestion } from './email.js';
export type { UrlQuestion } from './url.js';
export type { TypedViewPart } from './typed-kind.js';
export { TEXT_MAX_DEFAULT } from './typed-kind.js';
export * from './kind.js';
export { personContext, strictContext } from './parse-context.js';

/** Every answer kind by name. */
export const KINDS = { choice, text, number, date, time, datetime, email, url } as const;

/** The name of an answer kind. */
export type KindName = keyof typeof KINDS;

/** Every kind's name, `choice` first. */
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

/** A question of a typed kind (every kind but `choice`): one value, typed by the person. */
export type TypedQuestion =
  TextQuestion | NumberQuestion | DateQuestion | TimeQuestion | DateTimeQuestion | EmailQuestion | UrlQuestion;

/** The name of a typed kind. */
export type TypedKindName = TypedQuestion['kind'];

/** What the kinds read of any question: the fields of its kind (the union of every kind's question). */
export type KindQuestion = ChoiceQuestion | TypedQuestion;

/** The kind's part of any question's view. */
export type KindViewPart = ChoiceView | TypedViewPart;

/** Whether a question is a choice (its kind absent or `choice`). */
export function isChoice<Q extends { readonly kind?: string }>(
  question: Q,
): question is Extract<Q, { kind?: 'choice' }> {
  return question.kind === undefined || question.kind === 'choice';
}

/**
 * The module of a question's kind. Each module is only ever handed questions of its own kind (the
 * lookup is by the question's `kind`), which the union's types cannot say: hence the widening.
 */
export function kindOf(question: { readonly kind?: KindName }): QuestionKind<KindQuestion, KindViewPart> {
  return KINDS[question.kind ?? 'choice'] as unknown as QuestionKind<KindQuestion, KindViewPart>;
}
