import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { draftKeyboard, type DraftButton } from '../../core/drafts.js';
import type { Draft } from '../../core/form-draft-store.js';
import { choiceView, type PromptView } from '../../core/prompt-view.js';
import { encodeToken } from '../../core/token.js';
import { FALLBACK_LOCALE, wordsFor } from '../../core/i18n/index.js';
import { telegramText } from './words.js';
import {
  BUTTON_LABEL_MAX_CHARS,
  CALLBACK_DATA_MAX_BYTES,
  KEYBOARD_MAX_BUTTONS,
  KEYBOARD_ROW_MAX_BUTTONS,
  cut,
} from './limits.js';

/** Instructions under a prompt answered on its keyboard, in English (the text reply rules follow them). */
export const DRAFT_INSTRUCTIONS = telegramText(FALLBACK_LOCALE, 'tapHint');

/** The instructions line of a prompt whose keyboard is a draft's: the tap hint, then the reply rules, in the ask's words. */
export function draftInstructions(view: PromptView): string {
  return `${telegramText(view.locale, 'tapHint')} ${view.instructions}`;
}

function rowsOf(view: PromptView, draft: Pick<Draft, 'step' | 'parts'> | null): DraftButton[][] {
  return draftKeyboard(view.questions, draft, view.form?.skip != null, wordsFor(view.locale));
}

function toMarkup(view: PromptView, rows: DraftButton[][]): InlineKeyboardMarkup {
  const button = (b: DraftButton): InlineKeyboardButton.CallbackButton => ({
    text: cut(b.label, BUTTON_LABEL_MAX_CHARS),
    callback_data:
      b.choice.kind === 'skip' && view.form?.skip
        ? view.form.skip
        : encodeToken({ askId: view.askId, version: view.version, choice: b.choice }),
  });
  return { inline_keyboard: rows.map((row) => row.map(button)) };
}

/** Whether a keyboard is within Telegram's limits (buttons, rows, callback_data) and its option labels stay apart once cut. */
function fits(markup: InlineKeyboardMarkup): boolean {
  const buttons = markup.inline_keyboard.flat();
  if (buttons.length > KEYBOARD_MAX_BUTTONS) return false;
  if (markup.inline_keyboard.some((row) => row.length < 1 || row.length > KEYBOARD_ROW_MAX_BUTTONS)) return false;
  const labels = new Set(buttons.map((b) => b.text));
  if (labels.size !== buttons.length || buttons.some((b) => b.text.trim() === '')) return false;
  return buttons.every((b) => {
    const data = 'callback_data' in b ? b.callback_data : '';
    const bytes = Buffer.byteLength(data, 'utf8');
    return bytes >= 1 && bytes <= CALLBACK_DATA_MAX_BYTES;
  });
}

/**
 * Whether the prompt is answered on its keyboard: it has form controls, every question is of a kind
 * the keyboard has a case for (a choice), and every step, untouched or fully answered, fits
 * Telegram's limits. Otherwise it keeps the text form.
 */
export function answersOnKeyboard(view: PromptView): boolean {
  if (!view.form || view.buttons || !view.questions.every((q) => choiceView(q))) return false;
  const steps = view.questions.map((_, step) => step);
  const empty = view.questions.map(() => ({ choices: [] }));
  const full = view.questions.map((q) => ({ choices: q.options.map((_, i) => i), own: 'x' }));
  return steps.every((step) => [empty, full].every((parts) => fits(toMarkup(view, rowsOf(view, { step, parts })))));
}

/** The inline keyboard of a draft's current step (`draft` null: the first step, untouched). */
export function draftMarkup(view: PromptView, draft: Pick<Draft, 'step' | 'parts'> | null): InlineKeyboardMarkup {
  return toMarkup(view, rowsOf(view, draft));
}
