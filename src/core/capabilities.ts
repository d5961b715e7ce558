// What a channel can draw, declared as data by each channel (its descriptor and its Channel), and the
// rules that pick a prompt's controls from it: buildPromptView asks here, so no renderer re-decides
// whether a control fits its platform; renderers only draw what the view holds.
import { draftKeyboard, isTypedStep, type DraftButton, type DraftKeyboardQuestion } from './drafts.js';
import { encodeToken } from './token.js';
import { shorten } from './text.js';
import type { Words } from './i18n/index.js';
import { KIND_NAMES, type KindName } from './questions/index.js';

/** Buttons under a message: how many in all and per row, the longest label shown (longer ones are cut), the longest token in UTF-8 bytes. */
export interface ButtonCapability {
  max: number;
  perRow: number;
  labelMax: number;
  tokenMaxBytes: number;
}

/**
 * A platform's own forms: a dialog (`modal`) of at most `fields` inputs, each choice field holding
 * `optionsMin`–`optionsMax` options, own words in a field per question (`each`) or, when those do not
 * fit, one shared field (`each-or-shared`); or a form answered step by step on the message's buttons
 * (`message`, e.g. Telegram's keyboard), which fits when every step's keyboard fits {@link ButtonCapability}.
 */
export type FormCapability =
  | { on: 'modal'; fields: number; optionsMin: number; optionsMax: number; ownWords: 'each' | 'each-or-shared' }
  | { on: 'message' };

/** What a channel renders: the question kinds it draws natively, buttons, forms, message edits, code blocks, links. */
export interface ChannelCapabilities {
  /** The answer kinds it has a case for; a question of another kind is shown as text and answered by reply. */
  kinds: readonly KindName[];
  /** Buttons under a message, or null (answers by reply only). */
  buttons: ButtonCapability | null;
  /** Forms, or null (a prompt of several questions is answered by reply). */
  forms: FormCapability | null;
  /** Whether a sent message can be edited: without edits, the outcome arrives as a new message. */
  edits: boolean;
  /** Whether it shows preformatted (code) blocks, e.g. an action preview. */
  codeBlocks: boolean;
  /** Whether it shows links people can open. */
  links: boolean;
}

/** What a channel that declares nothing gets (test channels): every kind and control, unlimited. */
export const ALL_CAPABILITIES: ChannelCapabilities = {
  kinds: KIND_NAMES,
  buttons: { max: Infinity, perRow: Infinity, labelMax: Infinity, tokenMaxBytes: Infinity },
  forms: { on: 'modal', fields: Infinity, optionsMin: 0, optionsMax: Infinity, ownWords: 'each' },
  edits: true,
  codeBlocks: true,
  links: true,
};

/** What a form rule reads of a question's view (prompt-view.ts's QuestionView, read structurally: prompt-view imports this file). */
export interface FormQuestion {
  kind?: string;
  header?: string;
  multiSelect?: boolean;
  options?: readonly { label: string }[];
}

/** A question a choice form draws: its options. */
type ChoiceFormQuestion = DraftKeyboardQuestion & { options: readonly { label: string }[] };

/** The question as a choice (its kind absent or `choice`), or null. */
const asChoice = (q: FormQuestion): ChoiceFormQuestion | null =>
  (q.kind === undefined || q.kind === 'choice') && q.options && q.multiSelect !== undefined
    ? { ...(q.header !== undefined ? { header: q.header } : {}), multiSelect: q.multiSelect, options: q.options }
    : null;

/** What a form rule reads of a prompt: its questions, ids for its tokens, whether it has Skip, its words. */
export interface FormShape {
  askId: string;
  version: number;
  questions: readonly FormQuestion[];
  /** Token of the Skip button; null when the ask cannot be skipped. */
  skip: string | null;
  words: Words;
}

/** Whether a channel draws questions of this kind natively (absent: a choice). */
export function drawsKind(capabilities: ChannelCapabilities, kind: string | undefined): boolean {
  return (capabilities.kinds as readonly string[]).includes(kind ?? 'choice');
}

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** Whether rows of buttons fit: counts, non-empty rows, labels distinct and non-blank once cut, tokens 1..max bytes. */
export function buttonsFit(
  rows: readonly (readonly { label: string; token: string }[])[],
  limits: ButtonCapability,
): boolean {
  const buttons = rows.flat();
  if (buttons.length > limits.max) return false;
  if (rows.some((row) => row.length < 1 || row.length > limits.perRow)) return false;
  const labels = buttons.map((b) => shorten(b.label, limits.labelMax, 'utf16'));
  if (new Set(labels).size !== labels.length || labels.some((l) => l.trim() === '')) return false;
  return buttons.every((b) => {
    const bytes = utf8Bytes(b.token);
    return bytes >= 1 && bytes <= limits.tokenMaxBytes;
  });
}

/** Whether `buttons` fit laid out in rows as full as the channel allows (a prompt's own buttons). */
export function buttonsFitInRows(
  buttons: readonly { label: string; token: string }[],
  limits: ButtonCapability,
): boolean {
  const rows: (typeof buttons)[] = [];
  for (let i = 0; i < buttons.length; i += limits.perRow) rows.push(buttons.slice(i, i + limits.perRow));
  return buttonsFit(rows, limits);
}

/** The rows of a draft keyboard with each button's token (Skip's is the prompt's own). */
export function draftRows(shape: FormShape, rows: readonly DraftButton[][]): { label: string; token: string }[][] {
  const token = (b: DraftButton) =>
    b.choice.kind === 'skip' && shape.skip
      ? shape.skip
      : encodeToken({ askId: shape.askId, version: shape.version, choice: b.choice });
  return rows.map((row) => row.map((b) => ({ label: b.label, token: token(b) })));
}

/**
 * Whether every step of a form answered on the message, untouched or fully answered, fits the
 * buttons: a choice step's keyboard holds its options; a typed step's holds only ✎ Answer, Skip and
 * the steps' controls (its value is typed in a reply). A lone typed question gets no form on the
 * message: its one step would only relay a reply, which answers it as well by itself (read by the
 * same rules, a refusal noted in the ask's history) at no draft's cost.
 */
function messageFormFits(shape: FormShape, limits: ButtonCapability): boolean {
  const steps = shape.questions.map((q) => asChoice(q) ?? (isTypedStep(q) ? typedStep(q) : null));
  if (!steps.every((q) => q !== null)) return false;
  if (steps.length === 1 && isTypedStep(steps[0])) return false;
  const empty = steps.map(() => ({ choices: [] }));
  const full = steps.map((q) => ({ choices: (q.options ?? []).map((_, i) => i), own: 'x' }));
  return steps.every((_, step) =>
    [empty, full].every((parts) =>
      buttonsFit(draftRows(shape, draftKeyboard(steps, { step, parts }, shape.skip !== null, shape.words)), limits),
    ),
  );
}

/** A typed question as a draft step: its kind and header, no options. */
const typedStep = (q: FormQuestion): DraftKeyboardQuestion => ({
  ...(q.kind !== undefined ? { kind: q.kind } : {}),
  ...(q.header !== undefined ? { header: q.header } : {}),
});

/**
 * Whether a modal holds the questions: a typed question takes one input; a choice a field, own
 * words beside it (a field each, else one shared), its options within the modal's range.
 */
function modalFits(questions: readonly FormQuestion[], form: Extract<FormCapability, { on: 'modal' }>): boolean {
  if (questions.length === 0) return false;
  const choices = questions.map(asChoice).filter((q) => q !== null);
  const typed = questions.length - choices.length;
  const count = choices.length;
  const own = count === 0 ? 0 : count * 2 + typed <= form.fields || form.ownWords === 'each' ? count : 1;
  if (count + own + typed > form.fields) return false;
  return choices.every((q) => q.options.length >= form.optionsMin && q.options.length <= form.optionsMax);
}

/**
 * Whether a prompt's form fits a channel: its questions are of kinds the channel draws, and its
 * modal (fields, options) or its on-message keyboard (every step) fits. When not, the prompt keeps
 * the text form (answered by reply).
 */
export function formFits(shape: FormShape, capabilities: ChannelCapabilities): boolean {
  const { forms, buttons } = capabilities;
  if (!forms || !buttons) return false;
  if (!shape.questions.every((q) => drawsKind(capabilities, q.kind))) return false;
  return forms.on === 'modal' ? modalFits(shape.questions, forms) : messageFormFits(shape, buttons);
}
