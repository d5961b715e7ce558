import { z } from 'zod';
import type { Issue } from './errors.js';
import type { AskRecord, AskRequest } from './schemas.js';
import { ExpiresAtSchema } from './request-schemas.js';
import { singleLine } from './shown-text.js';

/** The configured bounds of an ask's wait, in seconds (config.ts: `ASKGATE_TIMEOUT_*`). */
export interface TimeoutBounds {
  defaultSeconds: number;
  minSeconds: number;
  /** The most an ask without a durable way back waits (`ASKGATE_TIMEOUT_MAX_SECONDS`). */
  maxSeconds: number;
  /** The most an ask with a durable way back waits (`ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS`). */
  asyncMaxSeconds: number;
  /** The least an extension leaves before the new deadline (`ASKGATE_EXTEND_MIN_SECONDS`, default 60). */
  extendMinSeconds: number;
  /** The least `remindEverySeconds` (`ASKGATE_REMIND_EVERY_MIN_SECONDS`; absent: an hour, core/cadence.ts). */
  remindEveryMinSeconds?: number;
}

/**
 * Whether the ask has a durable way back to its caller, so it may wait up to the long maximum: a
 * `callbackUrl` (a webhook or an A2A push config), or `async` (the caller comes back by ask id
 * through the API, the SDK or the event stream; an MCP task sets it).
 */
export function hasWayBack(ask: { async?: boolean | undefined; callbackUrl?: string | undefined }): boolean {
  return ask.async === true || ask.callbackUrl !== undefined;
}

/** The longest wait, in seconds, of an ask with (`wayBack`) or without a way back. */
export const maxWaitOf = (bounds: TimeoutBounds, wayBack: boolean): number =>
  wayBack ? bounds.asyncMaxSeconds : bounds.maxSeconds;

/** Why a way back lifts the maximum, for messages that refuse a deadline beyond the short one. */
const NO_WAY_BACK =
  'an ask without a way back (callbackUrl, "async": true, an A2A push config or an MCP task) waits at most';

/** A deadline found good: when (epoch ms) and the whole seconds from now it is. */
export type DeadlineFound = { ok: true; at: number; seconds: number } | { ok: false; issues: Issue[] };

/**
 * The deadline of a new ask created at `now`. `timeoutSeconds` (or the default) is clamped into the
 * bounds, as it always was: the record's `timeoutSeconds` shows what was kept. `expiresAt`, an
 * absolute time, is never moved: one too soon (before now + the minimum) or too far (beyond the
 * ask's maximum) is refused, naming `expiresAt`.
 */
export function askDeadline(
  request: Pick<AskRequest, 'timeoutSeconds' | 'expiresAt'>,
  wayBack: boolean,
  bounds: TimeoutBounds,
  now: number,
): DeadlineFound {
  const max = maxWaitOf(bounds, wayBack);
  if (request.expiresAt === undefined) {
    const seconds = Math.min(max, Math.max(bounds.minSeconds, request.timeoutSeconds ?? bounds.defaultSeconds));
    return { ok: true, at: now + seconds * 1000, seconds };
  }
  return absoluteDeadline(['expiresAt'], Date.parse(request.expiresAt), now, bounds.minSeconds, max, wayBack);
}

/** An absolute deadline checked against `now` + [`minSeconds`, `maxSeconds`], naming `path` when refused. */
function absoluteDeadline(
  path: Issue['path'],
  at: number,
  now: number,
  minSeconds: number,
  maxSeconds: number,
  wayBack: boolean,
): DeadlineFound {
  const refuse = (message: string): DeadlineFound => ({ ok: false, issues: [{ path, message }] });
  if (at <= now) return refuse('is in the past');
  if (at < now + minSeconds * 1000) return refuse(`must be at least ${minSeconds} s from now`);
  if (at > now + maxSeconds * 1000)
    return refuse(
      wayBack
        ? `must be at most ${maxSeconds} s from now`
        : `must be at most ${maxSeconds} s from now: ${NO_WAY_BACK} that long`,
    );
  return { ok: true, at, seconds: Math.ceil((at - now) / 1000) };
}

/** The body of `POST /v1/asks/:id/extend`, validated: one of the two. */
export type ExtendBy = { timeoutSeconds: number } | { expiresAt: string };

/**
 * The body of `POST /v1/asks/:id/extend`: `timeoutSeconds` (from now) or `expiresAt`, and `by`,
 * who asked (like the answer API's; recorded in the `extended` history entry).
 */
export const ExtendRequestSchema = z
  .object({
    timeoutSeconds: z
      .number('must be a number of seconds')
      .int('must be a whole number of seconds')
      .positive('must be positive')
      .optional(),
    expiresAt: ExpiresAtSchema.optional(),
    by: singleLine(128).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.timeoutSeconds === undefined) === (body.expiresAt === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [body.expiresAt === undefined ? 'timeoutSeconds' : 'expiresAt'],
        message: 'give timeoutSeconds or expiresAt (one of them)',
      });
  })
  .transform((body) => ({
    until: (body.expiresAt !== undefined
      ? { expiresAt: body.expiresAt }
      : { timeoutSeconds: body.timeoutSeconds! }) satisfies ExtendBy as ExtendBy,
    ...(body.by !== undefined ? { by: body.by } : {}),
  }));
/** A validated extend request. */
export type ExtendRequest = z.output<typeof ExtendRequestSchema>;

/**
 * The new deadline of an extension at `now`: `timeoutSeconds` from now or `expiresAt`, at least
 * `extendMinSeconds` (60) ahead (never shortened below that) and within the ask's maximum (the
 * long one when it has a way back). A value out of range is refused, naming its field: an
 * extension is a person's deliberate act, so nothing is clamped.
 */
export function extendDeadline(
  record: Pick<AskRecord, 'async' | 'callbackUrl'>,
  by: ExtendBy,
  bounds: TimeoutBounds,
  now: number,
): DeadlineFound {
  const wayBack = hasWayBack(record);
  const max = maxWaitOf(bounds, wayBack);
  if ('timeoutSeconds' in by) {
    const seconds = by.timeoutSeconds;
    const path = ['timeoutSeconds'];
    if (seconds < bounds.extendMinSeconds)
      return { ok: false, issues: [{ path, message: `must be at least ${bounds.extendMinSeconds} s` }] };
    if (seconds > max)
      return {
        ok: false,
        issues: [{ path, message: wayBack ? `must be at most ${max} s` : `must be at most ${max} s: ${NO_WAY_BACK}` }],
      };
    return { ok: true, at: now + seconds * 1000, seconds };
  }
  return absoluteDeadline(['expiresAt'], Date.parse(by.expiresAt), now, bounds.extendMinSeconds, max, wayBack);
}
