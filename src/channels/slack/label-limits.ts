// Slack's limits on the labels askgate writes (no SDK import: the descriptor reads them).
import type { MessageKey } from '../../core/i18n/index.js';

/** Longest plain_text label of a button. */
export const BUTTON_TEXT_MAX = 75;
/** Longest modal title, submit and close label (plain_text). */
export const MODAL_TITLE_MAX = 24;
/** Longest placeholder of a plain_text_input. */
export const PLACEHOLDER_MAX = 150;

/** The longest each catalogue word may be where Slack shows it (UTF-16 units). */
export const SLACK_WORD_LIMITS: ReadonlyMap<MessageKey, number> = new Map<MessageKey, number>([
  // Buttons on the question.
  ['control.other', BUTTON_TEXT_MAX],
  ['control.skip', BUTTON_TEXT_MAX],
  // An approval's decision buttons.
  ['control.approve', BUTTON_TEXT_MAX],
  ['control.reject', BUTTON_TEXT_MAX],
  ['control.requestChanges', BUTTON_TEXT_MAX],
  ['control.edit', BUTTON_TEXT_MAX],
  ['control.answer', BUTTON_TEXT_MAX],
  ['control.next', BUTTON_TEXT_MAX],
  // A modal's title, submit and close.
  ['control.submit', MODAL_TITLE_MAX],
  ['control.back', MODAL_TITLE_MAX],
  ['control.cancel', MODAL_TITLE_MAX],
  ['control.formTitle', MODAL_TITLE_MAX],
  ['control.progress', MODAL_TITLE_MAX],
  ['form.title', MODAL_TITLE_MAX],
  ['form.titleMany', MODAL_TITLE_MAX],
  ['form.ownTitle', MODAL_TITLE_MAX],
  ['control.choose', PLACEHOLDER_MAX],
]);
