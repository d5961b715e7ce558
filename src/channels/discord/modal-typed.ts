// A typed question (text, number, date, time, datetime, email, url) in a Discord modal: one text
// input in a Label. Discord has no number, date or email input in modals, so every typed kind is
// typed as text and askgate reads and checks it on submit (core readForm, in the person's locale).
import { LabelBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';
import { shorten } from '../../core/text.js';
import { typedView, type QuestionView, type TypedQuestionView } from '../../core/prompt-view.js';
import { kindOf, TEXT_MAX_DEFAULT } from '../../core/questions/index.js';
import { wordsFor } from '../../core/i18n/index.js';
import { READ_MAX } from '../../core/questions/parse/text.js';
import { DISCORD_KINDS } from './capabilities.js';
import { MODAL_DESCRIPTION_MAX, MODAL_LABEL_MAX, PLACEHOLDER_MAX, TEXT_INPUT_MAX } from './limits.js';

/** `custom_id` of typed question n's text input (1-based), e.g. `t2`. */
export const typedField = (n: number) => `t${n}`;

/** Longest email address (RFC 5321's path limit; core refuses longer ones). */
const EMAIL_MAX = 254;
/** Longest link core reads. */
const URL_MAX = 2000;

/** Label text: one line, cut to `max` UTF-16 units on a grapheme boundary (modal text is plain, never markdown). */
export const plainLine = (text: string, max: number) => shorten(text.replace(/\s+/g, ' ').trim(), max, 'utf16');

/** The view of a typed question this channel draws, or null (a choice, or a kind without a case here). */
export function drawnTypedView(view: QuestionView): TypedQuestionView | null {
  const typed = typedView(view);
  return typed && DISCORD_KINDS.includes(typed.kind) ? typed : null;
}

/**
 * The longest answer each kind's input takes (Discord's client stops the person there): a text
 * question's `maxLength` (default 1000, at most 4000); a number, date, time or date-time what core's
 * parsers read at most; an address its kind's maximum.
 */
export function typedMaxLength(q: TypedQuestionView): number {
  switch (q.kind) {
    case 'text':
      return Math.min(q.maxLength ?? TEXT_MAX_DEFAULT, TEXT_INPUT_MAX);
    case 'email':
      return EMAIL_MAX;
    case 'url':
      return URL_MAX;
    default:
      return READ_MAX;
  }
}

/**
 * Where a typed question's words go: the label holds the header or the question (45 characters);
 * the description (100) the expected sentence ("Please answer with a date between …") when the
 * label shows the whole question, else the question; the placeholder (100) the example, or the
 * expected sentence when the description had to hold the question and the sentence fits.
 */
export function typedWords(
  q: TypedQuestionView,
  several: boolean,
): { label: string; description: string; placeholder: string | null } {
  const prefix = several ? `${q.number}. ` : '';
  const label = plainLine(prefix + (q.header ?? q.question), MODAL_LABEL_MAX);
  const questionShown = label === plainLine(prefix + q.question, Infinity);
  const expected = plainLine(q.expected, Infinity);
  // A cut example would be a wrong one: an example longer than a placeholder is left out.
  const example = plainLine(q.example, Infinity);
  const examplePlaceholder = example !== '' && example.length <= PLACEHOLDER_MAX ? example : null;
  if (questionShown)
    return { label, description: plainLine(expected, MODAL_DESCRIPTION_MAX), placeholder: examplePlaceholder };
  return {
    label,
    description: plainLine(q.question, MODAL_DESCRIPTION_MAX),
    placeholder: expected.length <= PLACEHOLDER_MAX ? expected : examplePlaceholder,
  };
}

/**
 * The view of a typed question with what it expects and its example in `locale` (the modal's
 * reader, who may read another language than the message's): the view holds the question's kind
 * and constraints, so its kind says them again in the reader's words, in the ask's time zone.
 */
export function typedViewIn(q: TypedQuestionView, locale: string): TypedQuestionView {
  return kindOf(q).view(q, q, wordsFor(locale, q.timeZone)) as TypedQuestionView;
}

/**
 * A typed question's Label, in `locale`: a required text input (Paragraph for text, Short for the
 * other kinds) within the kind's lengths. Required, because nothing else in the modal can answer
 * it; the value is only read and checked by askgate on submit.
 */
export function typedLabel(view: TypedQuestionView, several: boolean, locale: string): LabelBuilder {
  const q = typedViewIn(view, locale);
  const words = typedWords(q, several);
  const input = new TextInputBuilder()
    .setCustomId(typedField(q.number))
    .setStyle(q.kind === 'text' ? TextInputStyle.Paragraph : TextInputStyle.Short)
    .setMaxLength(typedMaxLength(q))
    .setRequired(true);
  if (q.kind === 'text' && q.minLength) input.setMinLength(Math.min(q.minLength, typedMaxLength(q)));
  if (words.placeholder) input.setPlaceholder(words.placeholder);
  const label = new LabelBuilder().setLabel(words.label);
  if (words.description) label.setDescription(words.description);
  return label.setTextInputComponent(input);
}
