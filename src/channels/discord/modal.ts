import {
  CheckboxGroupBuilder,
  ComponentType,
  LabelBuilder,
  ModalBuilder,
  RadioGroupBuilder,
  TextInputBuilder,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { choiceView, type ChoiceQuestionView, type PromptView } from '../../core/prompt-view.js';
import { translate } from '../../core/i18n/index.js';
import {
  CUSTOM_ID_MAX,
  GROUP_OPTION_TEXT_MAX,
  GROUP_OPTIONS_MAX,
  MODAL_COMPONENTS_MAX,
  MODAL_DESCRIPTION_MAX,
  MODAL_LABEL_MAX,
  MODAL_TITLE_MAX,
  PLACEHOLDER_MAX,
  RADIO_OPTIONS_MIN,
  TEXT_INPUT_MAX,
} from './limits.js';
import { drawnTypedView, plainLine as line, typedLabel } from './modal-typed.js';

/** `custom_id` of question n's radio or checkbox group (1-based), e.g. `q2`. */
export const choiceField = (n: number) => `q${n}`;
/** `custom_id` of question n's own-words text input (1-based), e.g. `w2`. */
export const ownField = (n: number) => `w${n}`;
/** `custom_id` of the one own-words text input shared by every question (when a field each does not fit). */
export const SHARED_OWN_FIELD = 'w';
/** What the shared own-words field says, in English (every locale's is `form.ownShared`): lines go to the question they name, or to the only question left empty. */
export const SHARED_OWN_HINT = translate('en', 'form.ownShared');
/** The catalogue keys of the own-words fields' descriptions. */
const OWN_HINTS = { single: 'form.ownSingle', multi: 'form.ownMulti', shared: 'form.ownShared' } as const;

/**
 * How own words fit beside `choices` choice questions and `typed` typed ones (one text input each)
 * within {@link MODAL_COMPONENTS_MAX} top-level components: a field per choice (1–2 choices: 2 or 4
 * components, plus the typed inputs), else one shared field (3 choices: 4), else none fits. The
 * same count as core's `modalFits`.
 */
export function ownWordsLayout(choices: number, typed = 0): 'each' | 'shared' | null {
  if (choices * 2 + typed <= MODAL_COMPONENTS_MAX) return 'each';
  if (choices + 1 + typed <= MODAL_COMPONENTS_MAX) return 'shared';
  return null;
}

function choiceLabel(q: ChoiceQuestionView, several: boolean): LabelBuilder {
  const prefix = several ? `${q.number}. ` : '';
  const label = line(prefix + (q.header ?? q.question), MODAL_LABEL_MAX);
  const builder = new LabelBuilder().setLabel(label);
  // The question goes under its header, or under its own text when the label had to cut it.
  if (label !== line(prefix + q.question, Infinity)) builder.setDescription(line(q.question, MODAL_DESCRIPTION_MAX));
  const options = q.options.map((o) => ({
    value: String(o.number),
    label: line(o.label, GROUP_OPTION_TEXT_MAX),
    ...(o.description !== undefined ? { description: line(o.description, GROUP_OPTION_TEXT_MAX) } : {}),
  }));
  // Never required: own words may take the place of the options; readForm says what is missing.
  if (q.multiSelect)
    return builder.setCheckboxGroupComponent(
      new CheckboxGroupBuilder()
        .setCustomId(choiceField(q.number))
        .setOptions(options)
        .setMinValues(0)
        .setMaxValues(options.length)
        .setRequired(false),
    );
  return builder.setRadioGroupComponent(
    new RadioGroupBuilder().setCustomId(choiceField(q.number)).setOptions(options).setRequired(false),
  );
}

function ownWordsLabel(
  customId: string,
  label: string,
  description: string | null,
  style: TextInputStyle,
): LabelBuilder {
  const builder = new LabelBuilder().setLabel(line(label, MODAL_LABEL_MAX));
  if (description) builder.setDescription(line(description, MODAL_DESCRIPTION_MAX));
  return builder.setTextInputComponent(
    new TextInputBuilder().setCustomId(customId).setStyle(style).setMaxLength(TEXT_INPUT_MAX).setRequired(false),
  );
}

/**
 * The modal of the Answer button: a Label per question holding a radio group (single choice), a
 * checkbox group (multi-select, 0 to all options) or a text input (a typed question: modal-typed.ts),
 * and own words for the choices laid out by {@link ownWordsLayout}. Its own words are in `locale`
 * (the person's; default the ask's). Null when the prompt does not fit Discord's modal limits (the
 * message then keeps the text form).
 */
export function formModal(view: PromptView, customId: string, locale: string = view.locale): ModalBuilder | null {
  const fields = view.questions.map((q) => choiceView(q) ?? drawnTypedView(q));
  // A kind without a case here: no modal, the message keeps the text form.
  if (view.questions.length === 0 || !fields.every((q) => q !== null)) return null;
  const choiceCount = view.questions.filter((q) => choiceView(q) !== null).length;
  const layout = ownWordsLayout(choiceCount, view.questions.length - choiceCount);
  if (!layout) return null;
  const several = view.questions.length > 1;
  const own = translate(locale, 'control.ownWords');
  const hint = (kind: keyof typeof OWN_HINTS) => translate(locale, OWN_HINTS[kind]);
  const labels: LabelBuilder[] = [];
  for (const field of fields) {
    const q = choiceView(field);
    if (!q) {
      labels.push(typedLabel(drawnTypedView(field)!, several, locale));
      continue;
    }
    labels.push(choiceLabel(q, several));
    if (layout === 'each') {
      const label = several ? `${q.number}. ${own}` : own;
      labels.push(
        ownWordsLabel(ownField(q.number), label, hint(q.multiSelect ? 'multi' : 'single'), TextInputStyle.Short),
      );
    }
  }
  if (layout === 'shared') labels.push(ownWordsLabel(SHARED_OWN_FIELD, own, hint('shared'), TextInputStyle.Paragraph));
  const title = line(translate(locale, 'control.formTitle'), MODAL_TITLE_MAX);
  return checked(new ModalBuilder().setCustomId(customId).setTitle(title).addLabelComponents(labels));
}

/** The one-field modal of "Other…" on a single single-choice question: the answer in the person's own words (in `locale`). */
export function ownWordsModal(view: PromptView, customId: string, locale: string = view.locale): ModalBuilder | null {
  const q = view.questions[0];
  if (view.questions.length !== 1 || !q) return null;
  const field = new LabelBuilder()
    .setLabel(line(translate(locale, 'control.ownWords'), MODAL_LABEL_MAX))
    .setDescription(line(q.question, MODAL_DESCRIPTION_MAX))
    .setTextInputComponent(
      new TextInputBuilder()
        .setCustomId(ownField(1))
        .setStyle(TextInputStyle.Paragraph)
        .setMinLength(1)
        .setMaxLength(TEXT_INPUT_MAX)
        .setRequired(true),
    );
  const title = line(q.header ?? translate(locale, 'control.formTitle'), MODAL_TITLE_MAX);
  return checked(new ModalBuilder().setCustomId(customId).setTitle(title).addLabelComponents(field));
}

/** The modal when its JSON passes the builders' checks and {@link modalProblems}; null otherwise. */
function checked(modal: ModalBuilder): ModalBuilder | null {
  try {
    return modalProblems(modal.toJSON()).length === 0 ? modal : null;
  } catch {
    return null; // a builder refused a field (length, option count)
  }
}

/**
 * What Discord would refuse in a modal that the builders do not check: the count of top-level
 * components, unique `custom_id`s, option counts and text lengths. Empty when it fits.
 */
export function modalProblems(modal: APIModalInteractionResponseCallbackData): string[] {
  const problems: string[] = [];
  const within = (what: string, text: string | undefined, max: number, min = 0) => {
    const length = text?.length ?? 0;
    if (length < min || length > max) problems.push(`${what} is ${length} characters (${min}–${max})`);
  };
  within('custom_id', modal.custom_id, CUSTOM_ID_MAX, 1);
  within('title', modal.title, MODAL_TITLE_MAX, 1);
  if (modal.components.length < 1 || modal.components.length > MODAL_COMPONENTS_MAX)
    problems.push(`${modal.components.length} components (1–${MODAL_COMPONENTS_MAX})`);
  const ids = new Set<string>();
  for (const top of modal.components) {
    if (top.type !== ComponentType.Label) {
      problems.push(`component type ${top.type} is not a Label`);
      continue;
    }
    within('a label', top.label, MODAL_LABEL_MAX, 1);
    within('a description', top.description, MODAL_DESCRIPTION_MAX);
    const inner = top.component;
    if ('custom_id' in inner) {
      within('a custom_id', inner.custom_id, CUSTOM_ID_MAX, 1);
      if (ids.has(inner.custom_id)) problems.push('custom_id values repeat');
      ids.add(inner.custom_id);
    }
    if (inner.type === ComponentType.TextInput) {
      within('a placeholder', inner.placeholder, PLACEHOLDER_MAX);
      within('a pre-filled value', inner.value, inner.max_length ?? TEXT_INPUT_MAX);
      if ((inner.min_length ?? 0) > (inner.max_length ?? TEXT_INPUT_MAX)) problems.push('min_length above max_length');
    }
    if (inner.type === ComponentType.RadioGroup || inner.type === ComponentType.CheckboxGroup) {
      const min = inner.type === ComponentType.RadioGroup ? RADIO_OPTIONS_MIN : 1;
      if (inner.options.length < min || inner.options.length > GROUP_OPTIONS_MAX)
        problems.push(`${inner.options.length} options (${min}–${GROUP_OPTIONS_MAX})`);
      for (const o of inner.options) {
        within('an option label', o.label, GROUP_OPTION_TEXT_MAX, 1);
        within('an option value', o.value, GROUP_OPTION_TEXT_MAX, 1);
        within('an option description', o.description, GROUP_OPTION_TEXT_MAX);
      }
    }
  }
  return problems;
}
