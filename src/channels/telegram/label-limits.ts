// Telegram's limits on the labels askgate writes (no SDK import: the descriptor reads them).
import type { MessageKey } from '../../core/i18n/index.js';
import type { TelegramWordKey } from './words.js';

/**
 * Longest button label askgate sends (Telegram documents no limit but clients cut long labels in
 * the middle); longer labels are cut, and a keyboard whose cut labels would look alike is not sent.
 */
export const BUTTON_LABEL_MAX_CHARS = 64;
/** Telegram's limit on an answerCallbackQuery toast. */
export const TOAST_MAX_CHARS = 200;
/** Telegram: `input_field_placeholder` of a force-reply (1–64 characters). */
export const PLACEHOLDER_MAX_CHARS = 64;

/** The longest each catalogue word may be where Telegram shows it (UTF-16 units). */
export const TELEGRAM_WORD_LIMITS: ReadonlyMap<MessageKey, number> = new Map<MessageKey, number>([
  // Buttons on the question and on a draft.
  ['control.other', BUTTON_LABEL_MAX_CHARS],
  ['control.skip', BUTTON_LABEL_MAX_CHARS],
  // The Open button to the answer page (issue 38).
  ['control.open', BUTTON_LABEL_MAX_CHARS],
  // An approval's decision buttons.
  ['control.approve', BUTTON_LABEL_MAX_CHARS],
  ['control.reject', BUTTON_LABEL_MAX_CHARS],
  ['control.requestChanges', BUTTON_LABEL_MAX_CHARS],
  ['control.edit', BUTTON_LABEL_MAX_CHARS],
  ['control.answer', BUTTON_LABEL_MAX_CHARS],
  ['control.next', BUTTON_LABEL_MAX_CHARS],
]);

/** The longest each of Telegram's own words may be (UTF-16 units). */
export const TELEGRAM_OWN_WORD_LIMITS: ReadonlyMap<TelegramWordKey, number> = new Map<TelegramWordKey, number>([
  ['answerPlaceholder', PLACEHOLDER_MAX_CHARS],
]);
