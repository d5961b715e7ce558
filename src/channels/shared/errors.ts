import { ChannelError } from '../../core/ports.js';

/** Longest error description a log line carries. */
export const DESCRIPTION_MAX = 300;

// Bot tokens of each platform, wherever an error text might carry one (a request URL, an echo).
const TOKENS: readonly RegExp[] = [
  /\d+:[A-Za-z0-9_-]{20,}/g, // Telegram: <bot id>:<secret>, part of every Bot API URL
  /\bx(?:ox[a-z]|app)-[A-Za-z0-9-]+/g, // Slack: xoxb-, xoxp-, xapp-, …
  /[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}/g, // Discord: <id>.<timestamp>.<hmac>
];

/** Replaces every platform token in `text` with `[token]`. */
export function scrubTokens(text: string): string {
  return TOKENS.reduce((out, token) => out.replace(token, '[token]'), text);
}

/**
 * A log-safe description of an error, for every channel: tokens scrubbed, at most
 * {@link DESCRIPTION_MAX} characters, never a request or message body. `platform` describes the
 * SDK's own error types first (a Bot API code and description, a Slack error code); undefined
 * falls through to the generic rules.
 */
export function describeError(error: unknown, platform?: (error: unknown) => string | undefined): string {
  return scrubTokens(describe(error, platform)).slice(0, DESCRIPTION_MAX);
}

function describe(error: unknown, platform?: (error: unknown) => string | undefined): string {
  const known = platform?.(error);
  if (known !== undefined) return known;
  if (error instanceof ChannelError) return error.message;
  if (error instanceof Error) {
    if (error.name === 'AbortError' || error.name === 'TimeoutError') return 'timed out';
    return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  }
  return typeof error === 'string' ? error : 'unknown error';
}

/** True for an HTTP status no retry can fix: a 4xx other than 408 (429s are mapped before, with their wait). */
export function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408;
}

/** A platform's `retry_after` in seconds as milliseconds, or `fallbackMs` when it is missing or not positive. */
export function retryAfterMs(seconds: unknown, fallbackMs?: number): number | undefined {
  const n = Number(seconds);
  return Number.isFinite(n) && n > 0 ? n * 1000 : fallbackMs;
}
