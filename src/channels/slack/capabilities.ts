// What Slack renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import { BUTTON_TEXT_MAX } from './label-limits.js';

/** Most elements in one actions block. */
export const ACTIONS_MAX = 25;
/** Most blocks in one modal view. */
export const MODAL_BLOCKS_MAX = 100;
/** Most options of a radio button group or a checkbox group. */
export const CHOICE_OPTIONS_MAX = 10;
/** Longest `value` of a button (Slack's limit): askgate's tokens are far shorter. */
const BUTTON_VALUE_MAX = 2000;

/**
 * Slack: every question kind (a choice as radio buttons or checkboxes, a typed question as its
 * native input: typed-inputs.ts), buttons in one actions block, modals (a choice block and an
 * own-words block per choice question, one input per typed question), edits, code blocks, links.
 */
export const SLACK_CAPABILITIES: ChannelCapabilities = {
  kinds: ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url'],
  buttons: { max: ACTIONS_MAX, perRow: ACTIONS_MAX, labelMax: BUTTON_TEXT_MAX, tokenMaxBytes: BUTTON_VALUE_MAX },
  forms: { on: 'modal', fields: MODAL_BLOCKS_MAX, optionsMin: 1, optionsMax: CHOICE_OPTIONS_MAX, ownWords: 'each' },
  edits: true,
  codeBlocks: true,
  links: true,
};
