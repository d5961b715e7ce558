// A reply to a draft step's force-reply prompt, read by its question's kind (pure): own words for a
// choice's Other…, or a typed step's value (a number, a date, …) read in the person's language.
// A value that does not read keeps the step open and says what was expected; nothing is written.
import type { Draft } from './form-draft-store.js';
import type { Question, Responder } from './schemas.js';
import type { Words } from './i18n/index.js';
import { kindOf, type FormPartReading, type ParseContext } from './questions/index.js';
import { formMessages } from './forms.js';
import { applyOwnWords, holdBy, isTypedStep, type DraftStep } from './drafts.js';

/** A reply to a step's prompt: its text, who sent it, when (epoch ms). */
export interface StepReply {
  text: string;
  user: Responder;
  now: number;
}

/** How the person's reply reads: their words (for what is said back) and the parse context (core/questions/parse-context.ts `personContext`). */
export interface StepReading {
  words: Words;
  parse: ParseContext;
}

/**
 * Reads a typed step's reply as its kind reads a form's field (the same reading the submitted draft
 * gets from `readForm`): the value, or the problem and what was expected, in `words`.
 */
export function readTypedStep(question: Question, text: string, { words, parse }: StepReading): FormPartReading {
  return kindOf(question).readForm(
    question,
    { choices: [], own: text },
    { messages: formMessages(words), words, parse },
  );
}

/**
 * Applies a reply to the step whose prompt is out (`awaitingOwn`): a typed step takes it only when
 * its kind reads it (else `rejected`, the draft unchanged, with the problem, what was expected and
 * that nothing was done); then as {@link applyOwnWords}: the next step follows, or the last submits.
 * The reply's text is kept as written, so the submitted draft is read once more by the same rules
 * and the record keeps what the person wrote (`raw`) beside the value.
 */
export function applyStepReply(
  questions: readonly Question[],
  stored: Draft,
  reply: StepReply,
  reading: StepReading,
): DraftStep {
  const asked = stored.awaitingOwn;
  const question = asked === undefined ? undefined : questions[asked];
  if (asked === undefined || !question || stored.parts.length !== questions.length) return { kind: 'invalid' };
  const held = holdBy(stored, reply.user, reply.now);
  if (held) return { kind: 'held', by: held };
  if (isTypedStep(question)) {
    const read = readTypedStep(question, reply.text, reading);
    if (!read.ok) {
      const message = `${read.message} ${reading.words.t('typed.nothingDone')}`;
      return { kind: 'rejected', question: asked, message, ...(read.reason ? { reason: read.reason } : {}) };
    }
  }
  return applyOwnWords(questions, stored, reply);
}
