// What Discord renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import type { KindName } from '../../core/questions/index.js';
import { LABEL_MAX } from './label-limits.js';

/** Most buttons in one action row. */
export const BUTTONS_PER_ROW = 5;
/** Most action rows on a (non Components V2) message. */
export const ROWS_MAX = 5;
/** Longest component `custom_id`. */
export const CUSTOM_ID_MAX = 100;
/** Most top-level components in a modal (Labels and Text Displays). */
export const MODAL_COMPONENTS_MAX = 5;
/** Fewest options of a radio group. */
export const RADIO_OPTIONS_MIN = 2;
/** Most options of a radio or checkbox group (and most `max_values` of a checkbox group). */
export const GROUP_OPTIONS_MAX = 10;

/**
 * The kinds a Discord modal draws: a choice as a radio or checkbox group, every typed kind as a text
 * input (modal-typed.ts) that askgate reads and checks on submit. Listed by name, so a kind added to
 * core later is not declared drawn until this channel has its case.
 */
export const DISCORD_KINDS: readonly KindName[] = [
  'choice',
  'text',
  'number',
  'date',
  'time',
  'datetime',
  'email',
  'url',
];

/** Discord: buttons in action rows, modals (a Label per question; own words a field each, else one shared; a text input per typed question), edits, code blocks, links. */
export const DISCORD_CAPABILITIES: ChannelCapabilities = {
  kinds: DISCORD_KINDS,
  buttons: {
    max: BUTTONS_PER_ROW * ROWS_MAX,
    perRow: BUTTONS_PER_ROW,
    labelMax: LABEL_MAX,
    tokenMaxBytes: CUSTOM_ID_MAX,
  },
  forms: {
    on: 'modal',
    fields: MODAL_COMPONENTS_MAX,
    optionsMin: RADIO_OPTIONS_MIN,
    optionsMax: GROUP_OPTIONS_MAX,
    ownWords: 'each-or-shared',
  },
  edits: true,
  codeBlocks: true,
  links: true,
};
