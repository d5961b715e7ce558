import { DiscordAPIError, HTTPError, RateLimitError, type RateLimitData } from 'discord.js';
import { ChannelError } from '../../core/ports.js';
import { isRefusal } from '../shared/errors.js';
import { LABEL_MAX } from './label-limits.js';
import { BUTTONS_PER_ROW, CUSTOM_ID_MAX, ROWS_MAX } from './capabilities.js';

export { LABEL_MAX, MODAL_DESCRIPTION_MAX, MODAL_LABEL_MAX, MODAL_TITLE_MAX } from './label-limits.js';
export {
  BUTTONS_PER_ROW,
  CUSTOM_ID_MAX,
  GROUP_OPTIONS_MAX,
  MODAL_COMPONENTS_MAX,
  RADIO_OPTIONS_MIN,
  ROWS_MAX,
} from './capabilities.js';

/** Longest message content Discord accepts. */
export const CONTENT_MAX = 2000;
/** Longest label, value and description of a radio or checkbox group option. */
export const GROUP_OPTION_TEXT_MAX = 100;
/** Longest text a modal's text input takes (and its `max_length` bound). */
export const TEXT_INPUT_MAX = 4000;
/** Longest text input placeholder. */
export const PLACEHOLDER_MAX = 100;
/** How long opening a modal may take before askgate answers "try again" instead (Discord allows 3 s for the first response). */
export const MODAL_OPEN_BUDGET_MS = 2500;
/** Mentions never ping: sent on every create and edit. */
export const NO_MENTIONS = { parse: [] as never[] };

/** A button in the API's wire shape: one that sends an interaction (`custom_id`), or a link (style 5, `url`, no interaction). */
export type ButtonJson = ActionButtonJson | LinkButtonJson;

/** A button that sends askgate an interaction when tapped. */
export interface ActionButtonJson {
  type: 2;
  style: number;
  label: string;
  custom_id: string;
}

/** A link button (ButtonStyle.Link): Discord opens its `url` and sends no interaction. */
export interface LinkButtonJson {
  type: 2;
  style: typeof LINK_STYLE;
  label: string;
  url: string;
}

/** ButtonStyle.Link. */
export const LINK_STYLE = 5;
/** Longest `url` of a link button. */
export const BUTTON_URL_MAX = 512;

/** A message body in the API's wire shape, as askgate sends it. */
export interface MessageJson {
  content: string;
  components: { type: 1; components: ButtonJson[] }[];
  allowed_mentions: typeof NO_MENTIONS;
  message_reference?: { message_id: string; fail_if_not_exists: boolean };
}

/** Discord JSON error codes askgate reacts to. */
export const DiscordCode = {
  UnknownChannel: 10003,
  UnknownMessage: 10008,
  UnknownInteraction: 10062,
  MissingAccess: 50001,
  CannotSendToUser: 50007,
  MissingPermissions: 50013,
  InvalidFormBody: 50035,
  AlreadyAcknowledged: 40060,
} as const;

const PERMANENT_CODES = new Set<number>([
  DiscordCode.UnknownChannel,
  DiscordCode.UnknownMessage,
  DiscordCode.MissingAccess,
  DiscordCode.CannotSendToUser,
  DiscordCode.MissingPermissions,
  DiscordCode.InvalidFormBody,
]);

/**
 * Refuses a payload Discord would answer with 50035, before it is sent: content length, rows,
 * buttons per row, label, `custom_id` and link `url` lengths, unique ids, and `allowed_mentions`.
 */
export function validateLayout(message: MessageJson): void {
  const problems: string[] = [];
  if (message.content.length === 0 || message.content.length > CONTENT_MAX)
    problems.push(`content is ${message.content.length} characters (1–${CONTENT_MAX})`);
  if (message.components.length > ROWS_MAX)
    problems.push(`${message.components.length} action rows (at most ${ROWS_MAX})`);
  const ids = new Set<string>();
  message.components.forEach((row, r) => {
    if (row.components.length === 0 || row.components.length > BUTTONS_PER_ROW)
      problems.push(`row ${r + 1} has ${row.components.length} buttons (1–${BUTTONS_PER_ROW})`);
    for (const b of row.components) {
      if (b.label.length === 0 || b.label.length > LABEL_MAX)
        problems.push(`a label is ${b.label.length} characters (1–${LABEL_MAX})`);
      if ('url' in b) {
        if (b.url.length === 0 || b.url.length > BUTTON_URL_MAX)
          problems.push(`a url is ${b.url.length} characters (1–${BUTTON_URL_MAX})`);
        continue;
      }
      if (b.custom_id.length === 0 || b.custom_id.length > CUSTOM_ID_MAX)
        problems.push(`a custom_id is ${b.custom_id.length} characters (1–${CUSTOM_ID_MAX})`);
      if (ids.has(b.custom_id)) problems.push('custom_id values repeat');
      ids.add(b.custom_id);
    }
  });
  if (message.allowed_mentions?.parse?.length !== 0) problems.push('allowed_mentions must be {parse: []}');
  if (problems.length > 0)
    throw new ChannelError(`discord layout refused before sending: ${problems.join('; ')}`, true, undefined, {
      channel: 'discord',
    });
}

/**
 * Which 429s reject instead of waiting in discord.js's queue: message sends and edits, so the
 * outbox retries them after `retry_after` and no worker sits on a blocked bucket. Follow-ups may
 * wait a little; the gateway's own calls keep the default behaviour.
 */
export function rejectOnRateLimit(data: RateLimitData): boolean {
  if (data.route.startsWith('/channels')) return true;
  return data.retryAfter > 5000;
}

/** Maps a discord.js error to a {@link ChannelError}: 429 and 5xx/network retry, refusals are permanent. */
export function toChannelError(err: unknown, action: string): ChannelError {
  if (err instanceof ChannelError) return err;
  const context = { channel: 'discord', method: action, cause: err };
  if (err instanceof RateLimitError) {
    const ms = Math.max(err.retryAfter, err.timeToReset, 0);
    return new ChannelError(`discord ${action}: rate limited for ${ms} ms`, false, ms, context);
  }
  if (err instanceof DiscordAPIError) {
    const code = typeof err.code === 'number' ? err.code : 0;
    const what = `discord ${action}: ${err.status} ${code} ${err.message}`.slice(0, 300);
    if (err.status === 429) return new ChannelError(what, false, 1000, context);
    // Any other 4xx (401 bad token, 403, 404, 50035) fails the same way again.
    return new ChannelError(what, PERMANENT_CODES.has(code) || isRefusal(err.status), undefined, context);
  }
  if (err instanceof HTTPError)
    return new ChannelError(`discord ${action}: HTTP ${err.status}`, isRefusal(err.status), undefined, context);
  const message = err instanceof Error ? err.message : String(err);
  return new ChannelError(`discord ${action}: ${message}`.slice(0, 300), false, undefined, context);
}
