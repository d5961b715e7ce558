// What Telegram renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import { BUTTON_LABEL_MAX_CHARS } from './label-limits.js';

/** Telegram's limit on `callback_data`, in UTF-8 bytes. */
export const CALLBACK_DATA_MAX_BYTES = 64;
/** Telegram's limit on the buttons of one inline keyboard. */
export const KEYBOARD_MAX_BUTTONS = 100;
/** Telegram's limit on the buttons of one inline keyboard row. */
export const KEYBOARD_ROW_MAX_BUTTONS = 8;

/**
 * Telegram: inline keyboards, forms answered step by step on the message's keyboard (no modals),
 * edits, code blocks, links. Every kind is drawn: a typed question is a step of the draft whose
 * value is asked for with a force-reply prompt stating the expected form (draft-flow.ts).
 */
export const TELEGRAM_CAPABILITIES: ChannelCapabilities = {
  kinds: ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url'],
  buttons: {
    max: KEYBOARD_MAX_BUTTONS,
    perRow: KEYBOARD_ROW_MAX_BUTTONS,
    labelMax: BUTTON_LABEL_MAX_CHARS,
    tokenMaxBytes: CALLBACK_DATA_MAX_BYTES,
  },
  forms: { on: 'message' },
  edits: true,
  codeBlocks: true,
  links: true,
};
