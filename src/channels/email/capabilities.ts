// What email renders, as data (no SDK import: the descriptor and core's view rules read it).
import type { ChannelCapabilities } from '../../core/capabilities.js';
import { KIND_NAMES } from '../../core/questions/index.js';

/**
 * Email: every question kind as text (a typed question's expected sentence under it), no buttons
 * (a single choice question's options are links to the answer page when links are configured),
 * no forms (several questions are answered by reply or on the page), no edits (the outcome is a
 * new mail in the thread: `Channel.post`), no code blocks, links.
 */
export const EMAIL_CAPABILITIES: ChannelCapabilities = {
  kinds: KIND_NAMES,
  buttons: null,
  forms: null,
  edits: false,
  codeBlocks: false,
  links: true,
};
