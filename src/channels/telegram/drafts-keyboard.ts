import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { draftKeyboard, type DraftButton } from '../../core/drafts.js';
import type { Draft } from '../../core/form-draft-store.js';
import type { PromptView } from '../../core/prompt-view.js';
import { draftRows, formFits, type FormShape } from '../../core/capabilities.js';
import { TELEGRAM_CAPABILITIES } from './capabilities.js';
import { FALLBACK_LOCALE, wordsFor } from '../../core/i18n/index.js';
import { telegramText } from './words.js';
import { BUTTON_LABEL_MAX_CHARS, cut } from './limits.js';

/** Instructions under a prompt answered on its keyboard, in English (the text reply rules follow them). */
export const DRAFT_INSTRUCTIONS = telegramText(FALLBACK_LOCALE, 'tapHint');

/** The instructions line of a prompt whose keyboard is a draft's: the tap hint, then the reply rules, in the ask's words. */
export function draftInstructions(view: PromptView): string {
  return `${telegramText(view.locale, 'tapHint')} ${view.instructions}`;
}

function rowsOf(view: PromptView, draft: Pick<Draft, 'step' | 'parts'> | null): DraftButton[][] {
  return draftKeyboard(view.questions, draft, view.form?.skip != null, wordsFor(view.locale));
}

/** The shape core's form rules read of a view. */
const shapeOf = (view: PromptView): FormShape => ({
  askId: view.askId,
  version: view.version,
  questions: view.questions,
  skip: view.form?.skip ?? null,
  words: wordsFor(view.locale),
});

function toMarkup(view: PromptView, rows: DraftButton[][]): InlineKeyboardMarkup {
  const button = (b: { label: string; token: string }): InlineKeyboardButton.CallbackButton => ({
    text: cut(b.label, BUTTON_LABEL_MAX_CHARS),
    callback_data: b.token,
  });
  return { inline_keyboard: draftRows(shapeOf(view), rows).map((row) => row.map(button)) };
}

/**
 * Whether a view's form is answered on Telegram's keyboard: what buildPromptView decides for
 * Telegram's capabilities (core/capabilities.ts: every step's keyboard, a choice's options or a
 * typed step's ✎ Answer, untouched or fully answered, within Telegram's limits). A view built for
 * Telegram has `form` only then.
 */
export function answersOnKeyboard(view: PromptView): boolean {
  return !!view.form && !view.buttons && formFits(shapeOf(view), TELEGRAM_CAPABILITIES);
}

/** The inline keyboard of a draft's current step (`draft` null: the first step, untouched). */
export function draftMarkup(view: PromptView, draft: Pick<Draft, 'step' | 'parts'> | null): InlineKeyboardMarkup {
  return toMarkup(view, rowsOf(view, draft));
}
