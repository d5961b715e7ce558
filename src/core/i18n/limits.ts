// The platform limits askgate's own control words must fit in every language (UTF-16 units, as the platforms count).
import type { MessageKey } from './en.js';

/** Slack: a button's `text` (plain_text). */
export const SLACK_BUTTON_TEXT_MAX = 75;
/** Slack: a modal's `title`, `submit` and `close` texts. */
export const SLACK_MODAL_TITLE_MAX = 24;
/** Slack and Discord: a select menu's placeholder. */
export const SELECT_PLACEHOLDER_MAX = 150;
/** Discord: a button's label. */
export const DISCORD_BUTTON_LABEL_MAX = 80;
/** Discord: a modal's title and a text input's label. */
export const DISCORD_MODAL_LABEL_MAX = 45;
/** Discord: a modal field's description and a text input's placeholder. */
export const DISCORD_MODAL_DESCRIPTION_MAX = 100;
/**
 * Telegram: an inline button's text has no documented limit, but clients cut long texts on a phone's
 * width; askgate keeps its own at most this long.
 */
export const TELEGRAM_BUTTON_TEXT_MAX = 64;
/** Telegram: `input_field_placeholder` of a force-reply (1–64 characters). */
export const TELEGRAM_PLACEHOLDER_MAX = 64;
/** Telegram: the text of `answerCallbackQuery` (a toast: 0–200 characters). */
export const TELEGRAM_TOAST_MAX = 200;

/**
 * The longest each control word may be in any catalogue: the smallest limit of every place it is
 * shown (test/unit/i18n-limits.test.ts checks every shipped locale, placeholders filled).
 */
export const CONTROL_LIMITS: ReadonlyMap<MessageKey, number> = new Map<MessageKey, number>([
  // Buttons on the question (Telegram, Slack, Discord) and Slack's modal submit/close.
  ['control.other', Math.min(TELEGRAM_BUTTON_TEXT_MAX, SLACK_BUTTON_TEXT_MAX, DISCORD_BUTTON_LABEL_MAX)],
  ['control.skip', Math.min(TELEGRAM_BUTTON_TEXT_MAX, SLACK_BUTTON_TEXT_MAX, DISCORD_BUTTON_LABEL_MAX)],
  ['control.answer', Math.min(TELEGRAM_BUTTON_TEXT_MAX, SLACK_BUTTON_TEXT_MAX, DISCORD_BUTTON_LABEL_MAX)],
  ['control.submit', SLACK_MODAL_TITLE_MAX],
  ['control.back', SLACK_MODAL_TITLE_MAX],
  ['control.next', Math.min(TELEGRAM_BUTTON_TEXT_MAX, SLACK_BUTTON_TEXT_MAX, DISCORD_BUTTON_LABEL_MAX)],
  // Modal titles and field labels.
  ['control.formTitle', SLACK_MODAL_TITLE_MAX],
  ['control.progress', SLACK_MODAL_TITLE_MAX],
  ['control.ownWords', DISCORD_MODAL_LABEL_MAX],
  ['control.choose', SELECT_PLACEHOLDER_MAX],
  ['prompt.questionN', DISCORD_MODAL_LABEL_MAX],
  ['slack.otherLabel', SLACK_BUTTON_TEXT_MAX],
  ['telegram.answerPlaceholder', TELEGRAM_PLACEHOLDER_MAX],
  ['control.cancel', SLACK_MODAL_TITLE_MAX],
  ['control.otherOwn', DISCORD_MODAL_LABEL_MAX],
  ['control.optional', DISCORD_MODAL_DESCRIPTION_MAX],
  ['form.title', SLACK_MODAL_TITLE_MAX],
  ['form.titleMany', SLACK_MODAL_TITLE_MAX],
  ['form.ownTitle', SLACK_MODAL_TITLE_MAX],
  ['form.ownSingle', DISCORD_MODAL_DESCRIPTION_MAX],
  ['form.ownMulti', DISCORD_MODAL_DESCRIPTION_MAX],
  ['form.ownShared', DISCORD_MODAL_DESCRIPTION_MAX],
]);
