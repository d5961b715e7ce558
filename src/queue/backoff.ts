import { ChannelError } from '../core/ports.js';

/** Retry delay settings shared by the BullMQ and in-memory outboxes. */
export interface BackoffPolicy {
  /** Delay before the first retry; doubles on each further retry. */
  baseDelayMs: number;
  /** Upper bound of the exponential delay (a platform's `retryAfterMs` is never capped). */
  maxDelayMs: number;
}

/**
 * How many times a job may wait out a platform's rate limit without that counting as a failed
 * attempt: pacing and 429s mean "later", not "broken", so a busy chat must not burn the retries.
 */
export const MAX_RATE_LIMIT_DEFERRALS = 100;

/** True when this failure is a rate-limit wait that should not use up an attempt. */
export function isDeferral(err: unknown, deferralsSoFar: number): boolean {
  return !isPermanent(err) && retryAfterOf(err) !== undefined && deferralsSoFar < MAX_RATE_LIMIT_DEFERRALS;
}

/** Default outbox backoff: 1 s doubling up to 60 s. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseDelayMs: 1000, maxDelayMs: 60_000 };

/** The `retryAfterMs` hint of a {@link ChannelError}, or undefined. */
export function retryAfterOf(err: unknown): number | undefined {
  if (!isChannelErrorLike(err)) return undefined;
  const ms = err.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** True when the error is a {@link ChannelError} marked `permanent` (never retried). */
export function isPermanent(err: unknown): boolean {
  return isChannelErrorLike(err) && err.permanent === true;
}

/**
 * Delay before the next attempt after `attemptsMade` failed attempts (1 after the first failure).
 * A platform hint wins: at least `retryAfterMs` plus a small jitter so a burst of jobs that got
 * the same 429 does not come back in lockstep. Otherwise exponential from `baseDelayMs`, ±10 %.
 */
export function retryDelayMs(
  attemptsMade: number,
  err: unknown,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const hint = retryAfterOf(err);
  if (hint !== undefined) {
    const jitterSpan = Math.min(1000, Math.max(10, hint * 0.1));
    return Math.ceil(hint + random() * jitterSpan);
  }
  const exponent = Math.max(0, attemptsMade - 1);
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 30));
  return Math.max(1, Math.round(raw * (0.9 + 0.2 * random())));
}

// Duck-typed as well as instanceof: a second copy of the module (bundling, vitest isolation)
// would otherwise make a ChannelError look like a plain Error.
function isChannelErrorLike(err: unknown): err is ChannelError {
  if (err instanceof ChannelError) return true;
  return (
    err instanceof Error &&
    err.name === 'ChannelError' &&
    typeof (err as { permanent?: unknown }).permanent === 'boolean'
  );
}
