// Teams' limits on the labels askgate writes on a card (no SDK import: the descriptor reads them).
import type { MessageKey } from '../../core/i18n/index.js';
import type { TeamsWordKey } from './words.js';

/**
 * Longest button title askgate writes (UTF-16 units). Teams documents no limit but cuts long titles
 * with "…" on narrow screens; the card's body lists every option whole, so a cut title still reads.
 */
export const BUTTON_TITLE_MAX = 80;
/** Longest input label (a field's name above it). */
export const INPUT_LABEL_MAX = 120;

/** The longest each catalogue word may be where Teams shows it (UTF-16 units). */
export const TEAMS_WORD_LIMITS: ReadonlyMap<MessageKey, number> = new Map<MessageKey, number>([
  ['control.other', BUTTON_TITLE_MAX],
  ['control.skip', BUTTON_TITLE_MAX],
  ['control.open', BUTTON_TITLE_MAX],
  ['control.submit', BUTTON_TITLE_MAX],
  ['control.approve', BUTTON_TITLE_MAX],
  ['control.reject', BUTTON_TITLE_MAX],
  ['control.requestChanges', BUTTON_TITLE_MAX],
  ['control.edit', BUTTON_TITLE_MAX],
  ['control.ownWords', INPUT_LABEL_MAX],
  ['control.otherOwn', INPUT_LABEL_MAX],
]);

/** The longest each of Teams' own words may be where it shows them (UTF-16 units). */
export const TEAMS_OWN_WORD_LIMITS: ReadonlyMap<TeamsWordKey, number> = new Map<TeamsWordKey, number>([
  ['reasonLabel', INPUT_LABEL_MAX],
  ['changesLabel', INPUT_LABEL_MAX],
  ['argumentsLabel', INPUT_LABEL_MAX],
  ['actionFact', INPUT_LABEL_MAX],
  ['hashFact', INPUT_LABEL_MAX],
]);
