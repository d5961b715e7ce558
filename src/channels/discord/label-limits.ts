// Discord's limits on the labels askgate writes (no SDK import: the descriptor reads them).
import type { MessageKey } from '../../core/i18n/index.js';

/** Longest button label. */
export const LABEL_MAX = 80;
/** Longest modal title. */
export const MODAL_TITLE_MAX = 45;
/** Longest Label text in a modal. */
export const MODAL_LABEL_MAX = 45;
/** Longest Label description in a modal. */
export const MODAL_DESCRIPTION_MAX = 100;
/** Longest placeholder of a select menu. */
export const SELECT_PLACEHOLDER_MAX = 150;

/** The longest each catalogue word may be where Discord shows it (UTF-16 units). */
export const DISCORD_WORD_LIMITS: ReadonlyMap<MessageKey, number> = new Map<MessageKey, number>([
  // Buttons on the question.
  ['control.other', LABEL_MAX],
  ['control.skip', LABEL_MAX],
  // An approval's decision buttons.
  ['control.approve', LABEL_MAX],
  ['control.reject', LABEL_MAX],
  ['control.requestChanges', LABEL_MAX],
  ['control.edit', LABEL_MAX],
  ['control.answer', LABEL_MAX],
  ['control.next', LABEL_MAX],
  // Modal titles, field labels and descriptions.
  ['control.formTitle', MODAL_TITLE_MAX],
  ['control.ownWords', MODAL_LABEL_MAX],
  ['control.otherOwn', MODAL_LABEL_MAX],
  ['prompt.questionN', MODAL_LABEL_MAX],
  ['control.choose', SELECT_PLACEHOLDER_MAX],
  ['control.optional', MODAL_DESCRIPTION_MAX],
  ['form.ownSingle', MODAL_DESCRIPTION_MAX],
  ['form.ownMulti', MODAL_DESCRIPTION_MAX],
  ['form.ownShared', MODAL_DESCRIPTION_MAX],
]);
