// The registry of answer kinds: one list, from which the request schema, the stored shape and the
// question types all derive (a new kind is its module and one line here). A question without
// `kind` is a choice.
import { choice, type ChoiceQuestion } from './choice.js';
import { text } from './text.js';
import { number } from './number.js';
import { date } from './date.js';
import { time } from './time.js';
import { datetime } from './datetime.js';
import { email } from './email.js';
import { url } from './url.js';
import type { QuestionKind } from './kind.js';
import type { TypedViewPart } from './typed-kind.js';
import type { ChoiceView } from './choice.js';

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

/** Every answer kind's module, `choice` first: the one list of kinds. */
export const KIND_MODULES = [choice, text, number, date, time, datetime, email, url] as const;

/** One kind's module. */
export type KindModule = (typeof KIND_MODULES)[number];

/** The name of an answer kind. */
export type KindName = KindModule['name'];

/** Every answer kind by name. */
export const KINDS = Object.fromEntries(KIND_MODULES.map((k) => [k.name, k])) as {
  readonly [M in KindModule as M['name']]: M;
};

/** Every kind's name, `choice` first. */
export const KIND_NAMES: readonly KindName[] = KIND_MODULES.map((k) => k.name);

/** What a kind module reads of a question (its `Q`). */
type QuestionOf<M> = M extends { normalize(question: infer Q, ...rest: never[]): unknown } ? Q : never;

/** What the kinds read of any question: the fields of its kind (the union of every kind's question). */
export type KindQuestion = QuestionOf<KindModule>;

/** A question of a typed kind (every kind but `choice`): one value, typed by the person. */
export type TypedQuestion = Exclude<KindQuestion, ChoiceQuestion>;

/** The name of a typed kind. */
export type TypedKindName = TypedQuestion['kind'];

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
