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
