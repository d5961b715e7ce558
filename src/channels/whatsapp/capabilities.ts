// What WhatsApp renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import { KIND_NAMES } from '../../core/questions/index.js';

/** Reply buttons of one interactive `button` message (Cloud API limit). */
export const REPLY_BUTTONS_MAX = 3;
/** A reply button's title, in characters. */
export const REPLY_TITLE_MAX = 20;
/** Rows of one interactive `list` message, over all its sections. */
export const LIST_ROWS_MAX = 10;
/** A list row's title, in characters. */
export const LIST_TITLE_MAX = 24;
/** A list row's description, in characters. */
export const LIST_DESCRIPTION_MAX = 72;
/** A reply button's or list row's `id`, in characters. */
export const REPLY_ID_MAX = 256;
/** A text message's body, in characters. */
export const TEXT_BODY_MAX = 4096;
/** An interactive message's body text, in characters. */
export const INTERACTIVE_BODY_MAX = 1024;

/**
 * WhatsApp: a single choice question's options (and Skip) as reply buttons when they fit three
 * (titles ≤ 20), else as a list message (≤ 10 rows, titles ≤ 24); Other is a typed reply, so core
 * may hand the channel one button more than the list holds (Other, which is not drawn). Every other
 * prompt is text answered by reply; no forms; no edits (the outcome is a reply: `Channel.post`).
 */
export const WHATSAPP_CAPABILITIES: ChannelCapabilities = {
  kinds: KIND_NAMES,
  buttons: { max: LIST_ROWS_MAX + 1, perRow: LIST_ROWS_MAX + 1, labelMax: LIST_TITLE_MAX, tokenMaxBytes: REPLY_ID_MAX },
  forms: null,
  edits: false,
  codeBlocks: false,
  links: true,
};
