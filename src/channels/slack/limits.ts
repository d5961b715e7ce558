import { ChannelError } from '../../core/ports.js';
import { describeError as describeAny, isRefusal, retryAfterMs } from '../shared/errors.js';

export { BUTTON_TEXT_MAX, MODAL_TITLE_MAX, PLACEHOLDER_MAX } from './label-limits.js';
export { ACTIONS_MAX, CHOICE_OPTIONS_MAX, MODAL_BLOCKS_MAX } from './capabilities.js';

/** Longest mrkdwn text of a section block. */
export const SECTION_TEXT_MAX = 3000;
/** Longest fallback `text` askgate sends (Slack truncates at 40,000; notifications show far less). */
export const FALLBACK_TEXT_MAX = 3000;
/** Longest `url` of a button. */
export const BUTTON_URL_MAX = 3000;
/** Most blocks in one message. */
export const BLOCKS_MAX = 50;

/** Longest `private_metadata` of a view. */
export const PRIVATE_METADATA_MAX = 3000;
/** Longest `block_id`, `action_id` or `callback_id`. */
export const ID_MAX = 255;
/** Longest text of an option (plain_text), and of its description. */
export const OPTION_TEXT_MAX = 75;
/** Longest `value` of an option (the limit @slack/types states). */
export const OPTION_VALUE_MAX = 75;
/** Longest label or hint of an input block (plain_text). */
export const INPUT_LABEL_MAX = 2000;
/** Longest text a plain_text_input takes (its `max_length` may not exceed this). */
export const TEXT_INPUT_MAX = 3000;
/** `views.open` errors of a trigger_id that is too old, already used or malformed: the form did not open, nothing else failed. */
export const TRIGGER_ERRORS: ReadonlySet<string> = new Set([
  'expired_trigger_id',
  'exchanged_trigger_id',
  'invalid_trigger_id',
]);

/** Web API error codes that no retry can fix: the delivery or edit fails at once. */
export const PERMANENT_ERRORS: ReadonlySet<string> = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'restricted_action',
  'team_access_not_granted',
  'ekm_access_denied',
  'msg_too_long',
  'msg_blocks_too_long',
  'invalid_blocks',
  'invalid_blocks_format',
  'invalid_arguments',
  'invalid_arg_name',
  'too_many_attachments',
  'no_text',
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
  'user_not_in_channel',
]);

/** The `error` code of a Web API platform error (`slack_webapi_platform_error`), or null. */
export function platformErrorCode(error: unknown): string | null {
  if (!isCoded(error) || error.code !== 'slack_webapi_platform_error') return null;
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : 'unknown_error';
}

/**
 * Maps a Web API failure to a {@link ChannelError}: a 429 keeps Slack's `Retry-After`, the codes in
 * {@link PERMANENT_ERRORS} are permanent, everything else (network, 5xx, `ratelimited` bodies,
 * `internal_error`, `fatal_error`) is retried by the outbox.
 */
export function toChannelError(error: unknown, method: string): ChannelError {
  if (error instanceof ChannelError) return error;
  const context = { channel: 'slack', method, cause: error };
  if (isCoded(error)) {
    switch (error.code) {
      case 'slack_webapi_rate_limited_error':
        return new ChannelError(
          `${method}: rate limited by Slack`,
          false,
          retryAfterMs((error as { retryAfter?: unknown }).retryAfter),
          context,
        );
      case 'slack_webapi_platform_error': {
        const code = platformErrorCode(error)!;
        return new ChannelError(`${method}: ${code}`, PERMANENT_ERRORS.has(code), undefined, context);
      }
      case 'slack_webapi_http_error': {
        const status = Number((error as { statusCode?: unknown }).statusCode);
        // Slack answers only 200 and 429; any other 4xx means a wrong SLACK_API_URL or a proxy refusing us.
        return new ChannelError(`${method}: HTTP ${status}`, isRefusal(status), undefined, context);
      }
      case 'slack_webapi_request_error':
        return new ChannelError(
          `${method}: request failed (${(error as { original?: Error }).original?.message ?? 'network error'})`,
          false,
          undefined,
          context,
        );
    }
  }
  return new ChannelError(
    `${method}: ${error instanceof Error ? error.message : String(error)}`,
    false,
    undefined,
    context,
  );
}

/** A log-safe description of an error (see {@link describeAny}): a Web API error by its `error` code. */
export function describeError(error: unknown): string {
  return describeAny(error, (e) => {
    const code = (e as { data?: { error?: unknown } } | null)?.data?.error;
    return typeof code === 'string' ? code : undefined;
  });
}

function isCoded(error: unknown): error is { code: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
