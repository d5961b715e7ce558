// What Microsoft Teams renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import { BUTTON_TITLE_MAX } from './label-limits.js';

/**
 * Most buttons on a prompt card: a single question's 4 options with Other and Skip, or an
 * approval's 4 decisions with Skip. Teams shows about six actions in a row before it folds the rest
 * into an overflow menu, so a prompt never asks for more.
 */
export const CARD_ACTIONS_MAX = 6;
/** Longest `data` token askgate puts on an action (Teams has no small limit; the card's size is what counts). */
const ACTION_DATA_MAX = 1024;
/** Most inputs a prompt card holds (3 questions: a choice set and an own-words field each at most). */
export const CARD_INPUTS_MAX = 20;
/** Most choices of an `Input.ChoiceSet` askgate draws (a question has at most 4 options). */
export const CHOICES_MAX = 50;

/**
 * Teams: every question kind drawn natively on the Adaptive Card itself (a choice as buttons or an
 * `Input.ChoiceSet`, a typed question as its input: cards-inputs.ts), approvals with their decisions,
 * the card's own inputs as the form (`modal`: they are all shown at once, like a dialog), edits (the
 * outcome replaces the card), monospace text for code, links (`Action.OpenUrl`).
 */
export const TEAMS_CAPABILITIES: ChannelCapabilities = {
  kinds: ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url'],
  buttons: {
    max: CARD_ACTIONS_MAX,
    perRow: CARD_ACTIONS_MAX,
    labelMax: BUTTON_TITLE_MAX,
    tokenMaxBytes: ACTION_DATA_MAX,
  },
  forms: { on: 'modal', fields: CARD_INPUTS_MAX, optionsMin: 1, optionsMax: CHOICES_MAX, ownWords: 'each' },
  edits: true,
  codeBlocks: true,
  links: true,
};
