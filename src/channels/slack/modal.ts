import type { types } from '@slack/bolt';
import {
  choiceView,
  typedView,
  type ChoiceQuestionView,
  type PromptView,
  type QuestionView,
} from '../../core/prompt-view.js';
import { escapeMrkdwn, fitLength, ID_PREFIX } from './render.js';
import {
  CHOICE_OPTIONS_MAX,
  ID_MAX,
  INPUT_LABEL_MAX,
  MODAL_BLOCKS_MAX,
  MODAL_TITLE_MAX,
  OPTION_TEXT_MAX,
  OPTION_VALUE_MAX,
  PLACEHOLDER_MAX,
  PRIVATE_METADATA_MAX,
  TEXT_INPUT_MAX,
} from './limits.js';
import { encodeMeta, type FormMeta } from './form-state.js';
import { wordsFor, type Words } from '../../core/i18n/index.js';
import { formFits as coreFormFits } from '../../core/capabilities.js';
import { SLACK_CAPABILITIES } from './capabilities.js';
import { inputFits, typedInput } from './typed-inputs.js';

/** A modal view as askgate sends it to `views.open` (@slack/types' own shape). */
export type Modal = types.ModalView;

/** `callback_id` of every askgate modal: the view_submission listener matches it. */
export const FORM_CALLBACK_ID = `${ID_PREFIX}form`;
/** `action_id` of a question's radio buttons or checkboxes. */
export const CHOICE_ACTION = `${ID_PREFIX}choice`;
/** `action_id` of a question's own-words text input. */
export const OWN_ACTION = `${ID_PREFIX}own`;
/** `block_id` of question `n`'s (1-based) choices. */
export const choiceBlock = (n: number): string => `${ID_PREFIX}q${n}`;
/** `block_id` of question `n`'s (1-based) own words. */
export const ownBlock = (n: number): string => `${ID_PREFIX}w${n}`;

/**
 * Plain text within `max` UTF-16 units after escaping `& < >` (Slack stores plain_text with them as
 * entities and shows them decoded), cut on a grapheme boundary.
 */
export function fitPlain(text: string, max: number): string {
  let n = max;
  let out = escapeMrkdwn(fitLength(text, n));
  while (out.length > max && n > 1) {
    n = Math.max(1, Math.min(n - 1, Math.floor((n * max) / out.length)));
    out = escapeMrkdwn(fitLength(text, n));
  }
  return out;
}

const plain = (text: string, max: number): types.PlainTextElement => ({
  type: 'plain_text',
  text: fitPlain(text, max),
  emoji: true,
});

function questionLabel(q: QuestionView, several: boolean): string {
  return `${several ? `${q.number}. ` : ''}${q.header !== undefined ? `${q.header}: ` : ''}${q.question}`;
}

function choiceInput(q: ChoiceQuestionView, several: boolean, words: Words): types.InputBlock {
  const options = q.options.map((o): types.PlainTextOption => ({
    text: plain(o.label, OPTION_TEXT_MAX),
    value: String(o.number),
    ...(o.description ? { description: plain(o.description.replace(/\s+/g, ' '), OPTION_TEXT_MAX) } : {}),
  }));
  return {
    type: 'input',
    block_id: choiceBlock(q.number),
    optional: true,
    label: plain(questionLabel(q, several), INPUT_LABEL_MAX),
    hint: plain(words.t(q.multiSelect ? 'form.hintMulti' : 'form.hintSingle'), INPUT_LABEL_MAX),
    element: q.multiSelect
      ? { type: 'checkboxes', action_id: CHOICE_ACTION, options }
      : { type: 'radio_buttons', action_id: CHOICE_ACTION, options },
  };
}

function ownInput(n: number, label: string, optional: boolean, words: Words): types.InputBlock {
  return {
    type: 'input',
    block_id: ownBlock(n),
    optional,
    label: plain(label, INPUT_LABEL_MAX),
    element: {
      type: 'plain_text_input',
      action_id: OWN_ACTION,
      multiline: true,
      max_length: TEXT_INPUT_MAX,
      ...(optional ? { placeholder: plain(words.t('control.optional'), PLACEHOLDER_MAX) } : {}),
    },
  };
}

function modal(title: string, blocks: types.InputBlock[], meta: FormMeta, words: Words): Modal {
  return {
    type: 'modal',
    callback_id: FORM_CALLBACK_ID,
    title: plain(title, MODAL_TITLE_MAX),
    submit: plain(words.t('control.submit'), MODAL_TITLE_MAX),
    close: plain(words.t('control.cancel'), MODAL_TITLE_MAX),
    private_metadata: encodeMeta(meta),
    blocks,
  };
}

/** A question's input blocks: a choice's options and own words, a typed question's one input; null when Slack has no case for it. */
function questionInputs(q: QuestionView, several: boolean, words: Words): types.InputBlock[] | null {
  const choice = choiceView(q);
  if (choice)
    return [choiceInput(choice, several, words), ownInput(q.number, words.t('control.otherOwn'), true, words)];
  const typed = typedView(q)!;
  const input = inputFits(typed) ? typedInput(typed, questionLabel(q, several), plain) : null;
  return input ? [input] : null;
}

/**
 * The modal of a whole prompt: per choice question, its options as radio buttons (single choice)
 * or checkboxes (multi-select) and an own-words input, both optional for Slack (askgate checks the
 * answer itself and shows problems in the modal); per typed question its native input, required
 * (typed-inputs.ts). Its own words are in `locale` (the person's; default the ask's). A modal with
 * a datetimepicker carries the ask's time zone in its metadata. Null when it cannot fit.
 */
export function formModal(view: PromptView, meta: FormMeta, locale: string = view.locale): Modal | null {
  const words = wordsFor(locale);
  const several = view.questions.length > 1;
  const inputs = view.questions.map((q) => questionInputs(q, several, words));
  // A kind without a case here: no modal, the message keeps the text form.
  if (!inputs.every((i) => i !== null)) return null;
  const datetime = view.questions.map(typedView).find((q) => q?.kind === 'datetime');
  const withZone = datetime ? { ...meta, zone: datetime.timeZone } : meta;
  const built = modal(words.t(several ? 'form.titleMany' : 'form.title'), inputs.flat(), withZone, words);
  return modalProblem(built) === null ? built : null;
}

/** The one-field modal of "Other…" on a single single-choice question: the person's own words, required. */
export function ownWordsModal(view: PromptView, meta: FormMeta, locale: string = view.locale): Modal | null {
  const q = view.questions[0];
  if (!q) return null;
  const words = wordsFor(locale);
  const built = modal(words.t('form.ownTitle'), [ownInput(1, questionLabel(q, false), false, words)], meta, words);
  return modalProblem(built) === null ? built : null;
}

/**
 * Whether the prompt's form fits a Slack modal: what buildPromptView decides for Slack's capabilities
 * (core/capabilities.ts; a view built for Slack has `form` only then), and every typed question's
 * answers fit its input (typed-inputs.ts `inputFits`). Else the message keeps the text form.
 */
export function formFits(view: PromptView): boolean {
  const shape = { ...view, skip: view.form?.skip ?? null, words: wordsFor(view.locale) };
  return (
    !!view.form &&
    coreFormFits(shape, SLACK_CAPABILITIES) &&
    view.questions.every((q) => {
      const typed = typedView(q);
      return !typed || inputFits(typed);
    })
  );
}

const tooLong = (text: { text: string } | undefined, max: number) => !!text && text.text.length > max;

/** The first Slack limit a modal breaks (checked before sending), or null when it fits. */
export function modalProblem(view: Modal): string | null {
  if (view.title.text.length === 0 || tooLong(view.title, MODAL_TITLE_MAX)) return 'title';
  if (tooLong(view.submit, MODAL_TITLE_MAX) || tooLong(view.close, MODAL_TITLE_MAX)) return 'submit or close';
  if ((view.private_metadata ?? '').length > PRIVATE_METADATA_MAX) return 'private_metadata';
  if ((view.callback_id ?? '').length > ID_MAX) return 'callback_id';
  if (view.blocks.length > MODAL_BLOCKS_MAX) return 'blocks';
  for (const block of view.blocks) {
    if (block.type !== 'input') continue;
    const input = block as types.InputBlock;
    if ((input.block_id ?? '').length > ID_MAX) return 'block_id';
    if (tooLong(input.label, INPUT_LABEL_MAX) || tooLong(input.hint, INPUT_LABEL_MAX)) return 'label';
    const element = input.element;
    if ((element.action_id ?? '').length > ID_MAX) return 'action_id';
    if (element.type === 'radio_buttons' || element.type === 'checkboxes') {
      const options = element.options as types.PlainTextOption[];
      if (options.length === 0 || options.length > CHOICE_OPTIONS_MAX) return 'options';
      for (const o of options) {
        if (tooLong(o.text, OPTION_TEXT_MAX) || tooLong(o.description, OPTION_TEXT_MAX)) return 'option text';
        if ((o.value ?? '').length > OPTION_VALUE_MAX) return 'option value';
      }
    }
    if ('placeholder' in element && tooLong(element.placeholder as { text: string } | undefined, PLACEHOLDER_MAX))
      return 'placeholder';
    if (element.type === 'plain_text_input') {
      const { min_length: min = 0, max_length: max = TEXT_INPUT_MAX } = element;
      if (min > max || max > TEXT_INPUT_MAX) return 'length';
    }
  }
  return null;
}
