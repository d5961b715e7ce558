import { ChannelError } from '../../core/ports.js';
import { describeError as describeAny, isRefusal, retryAfterMs } from '../shared/errors.js';

/** Longest mrkdwn text of a section block. */
export const SECTION_TEXT_MAX = 3000;
/** Longest plain_text label of a button. */
export const BUTTON_TEXT_MAX = 75;
/** Longest fallback `text` askgate sends (Slack truncates at 40,000; notifications show far less). */
export const FALLBACK_TEXT_MAX = 3000;
/** Most blocks in one message. */
export const BLOCKS_MAX = 50;
/** Most elements in one actions block. */
export const ACTIONS_MAX = 25;

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
