// The registry of answer kinds: a kind's name -> its module. A question without `kind` is a choice.
import { choice, type ChoiceQuestion, type ChoiceView } from './choice.js';
import type { QuestionKind } from './kind.js';

export type { ChoiceQuestion, ChoiceView, OptionView } from './choice.js';
export * from './kind.js';

/** Every answer kind by name (only `choice` now). */
export const KINDS = { choice } as const;

/** The name of an answer kind. */
export type KindName = keyof typeof KINDS;

/** What the kinds read of any question: the fields of its kind (the union of every kind's question). */
export type KindQuestion = ChoiceQuestion;

/** The module of a question's kind. */
export function kindOf(question: { readonly kind?: KindName }): QuestionKind<KindQuestion, ChoiceView> {
  return KINDS[question.kind ?? 'choice'];
}
