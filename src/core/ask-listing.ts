import { z } from 'zod';
import type { AskRecord } from './record-schemas.js';
import { AgentNameSchema, ChannelNameSchema, RunIdSchema } from './request-schemas.js';

/** Asks one page of `GET /v1/asks` lists at most, and by default. */
export const LIST_LIMIT_MAX = 200;
export const LIST_LIMIT_DEFAULT = 50;

/** A page cursor: a pending ask's creation time (ms, 15 digits) and id, so text order is creation order. */
export const ASK_CURSOR_PATTERN = /^\d{15}:[0-9A-Za-z]{1,64}$/;

/**
 * Where an ask sits in the listing of pending asks (and its member in the store's pending index):
 * `<createdAt ms, 15 digits>:<id>`. It never changes, so paging by it neither repeats nor skips an
 * ask that was pending throughout.
 */
export function askCursor(record: Pick<AskRecord, 'id' | 'createdAt'>): string {
  return `${String(Date.parse(record.createdAt)).padStart(15, '0')}:${record.id}`;
}

/** The ask id of a cursor made by {@link askCursor}. */
export const cursorAskId = (cursor: string): string => cursor.slice(cursor.indexOf(':') + 1);

const ENDED = new Set(['answered', 'no_answer', 'all']);

const QUERY_FIELDS = {
  status: z
    .string()
    .refine((s) => s === 'pending', {
      error: (issue) =>
        ENDED.has(String(issue.input))
          ? 'only pending asks are listed: read ended asks by id or through GET /v1/runs/:runId'
          : 'must be "pending"',
    })
    .default('pending'),
  runId: RunIdSchema.optional(),
  channel: ChannelNameSchema.optional(),
  agent: AgentNameSchema.optional(),
  limit: z.coerce
    .number('must be a number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`)
    .default(LIST_LIMIT_DEFAULT),
  cursor: z.string().regex(ASK_CURSOR_PATTERN, 'must be the nextCursor of an earlier page').optional(),
};

/** The query of `GET /v1/asks` (every value a string, as the URL gives it); an unknown parameter is named. */
export const ListAsksQuerySchema = z
  .looseObject(QUERY_FIELDS)
  .superRefine((query, ctx) => {
    for (const key of Object.keys(query)) {
      if (!Object.hasOwn(QUERY_FIELDS, key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'unknown parameter: filter by runId, channel or agent',
        });
    }
  })
  .transform(({ status, runId, channel, agent, limit, cursor }) => ({ status, runId, channel, agent, limit, cursor }));
/** A validated listing query. */
export type ListAsksQuery = z.output<typeof ListAsksQuerySchema>;

/** True when a pending ask belongs in the listing: its run, its agent, and a target or delivery on the channel. */
export function listedAsk(record: AskRecord, query: Pick<ListAsksQuery, 'runId' | 'channel' | 'agent'>): boolean {
  if (record.status !== 'pending') return false;
  if (query.runId !== undefined && record.runId !== query.runId) return false;
  if (query.agent !== undefined && record.agent !== query.agent) return false;
  if (query.channel === undefined) return true;
  return [...record.targets, ...record.deliveries].some((t) => t.channel === query.channel);
}
