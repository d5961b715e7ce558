// The text helpers every Slack renderer shares: mrkdwn escaping, cutting to Slack's limits with "…",
// the prefix of askgate's block and action ids.
import { shorten } from '../../core/text.js';
import { cutEscaped } from '../shared/fit.js';

/** A Block Kit block as askgate builds and reads it back (loosely typed: Slack returns more fields). */
export type Block = { type: string; block_id?: string; [key: string]: unknown };

/** Prefix of every askgate block_id and action_id. */
export const ID_PREFIX = 'askgate_';

/** Escapes text for mrkdwn: `&`, `<`, `>` only, so no user string can mention, ping or link. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Reverses {@link escapeMrkdwn}: Slack delivers typed `&`, `<`, `>` in message text as entities. */
export function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Cuts text to at most `max` UTF-16 units (Slack's count) on a grapheme boundary, ending in "…". */
export const fitLength = (text: string, max: number): string => shorten(text, max, 'utf16');

/** Cuts already escaped mrkdwn to `max` units without splitting an entity such as `&amp;`. */
export function fitEscaped(text: string, max: number): string {
  return cutEscaped(text, max, (head) => head.replace(/&[a-z]*$/, '').trimEnd());
}
