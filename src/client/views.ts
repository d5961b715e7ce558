import { z } from 'zod';
import { AskViewSchema, HistoryEntrySchema } from './schemas.js';

/** `GET /v1/runs/:runId`: the run's current ask and its asks, newest first. */
export const RunViewSchema = z.object({
  runId: z.string(),
  current: AskViewSchema.nullable(),
  history: z.array(AskViewSchema),
});
/** A run and its asks. */
export type RunView = z.output<typeof RunViewSchema>;

/** One history entry of an ask, as the event routes send it (`version` only on run streams). */
export const HistoryEventSchema = HistoryEntrySchema.extend({
  askId: z.string(),
  index: z.number().int().nonnegative(),
  version: z.number().int().optional(),
});
/** One history entry of an ask, as the event routes send it. */
export type HistoryEvent = z.output<typeof HistoryEventSchema>;
/** A history entry received on an event stream, with its SSE id (for `lastEventId`). */
export type StreamedHistoryEvent = HistoryEvent & { id: string };

/** `GET /v1/asks/:id/events`. */
export const AskEventsSchema = z.object({ askId: z.string(), events: z.array(HistoryEntrySchema) });
/** `GET /v1/runs/:runId/events`. */
export const RunEventsSchema = z.object({ runId: z.string(), events: z.array(HistoryEventSchema) });
/** `DELETE /v1/runs/:runId`. */
export const AbortRunSchema = z.object({ runId: z.string(), cancelled: AskViewSchema.nullable() });

/** `POST /v1/runs/:runId/guard-blocked`: the open ask the blocked call was noted on. */
export const GuardBlockedSchema = z.object({ askId: z.string(), recorded: z.literal(true) });
/** See {@link GuardBlockedSchema}. */
export type GuardBlocked = z.output<typeof GuardBlockedSchema>;

/** `POST /v1/asks/:id/links`: an answer page link (issue 38) and when it stops working. */
export const AnswerLinkSchema = z.object({ url: z.string(), expiresAt: z.string() });
/** See {@link AnswerLinkSchema}. */
export type AnswerLink = z.output<typeof AnswerLinkSchema>;

/**
 * Whom an answer link is for: `to` an askgate target (one user in `users`: that person; without
 * `users`: the conversation's own id, a direct chat or an email address), or nothing: anyone holding
 * it (refused for an ask that names `users`). `option` (1–4) preselects a single choice question's option.
 */
export interface AnswerLinkInput {
  to?: { channel: string; chat: string; thread?: string; users?: [string] };
  option?: number;
}

/** `GET /v1/asks`: one page of pending asks, oldest first, and the cursor of the next page (null: the last). */
export const AskListSchema = z.object({ asks: z.array(AskViewSchema), nextCursor: z.string().nullable() });
/** One page of pending asks. */
export type AskList = z.output<typeof AskListSchema>;

/** What `listAsks()` filters and pages by (`GET /v1/asks`). */
export interface ListAsksInput {
  /** Only `pending` is listed (the default); ended asks are read by id or through their run. */
  status?: 'pending';
  /** The run's pending ask (a run has at most one). */
  runId?: string;
  /** Asks with a target or a delivery on this channel (`telegram`, `slack`, ...). */
  channel?: string;
  /** Asks that named this agent when they were made (`agent` of the ask, compared as stored). */
  agent?: string;
  /** Asks per page, 1–200 (default 50). */
  limit?: number;
  /** `nextCursor` of the page before. */
  cursor?: string;
}
