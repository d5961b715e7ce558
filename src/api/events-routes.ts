import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AskgateError, invalid, locate, toIssues } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import type { AskStore, Logger, ResultBus } from '../core/ports.js';
import { isDone } from '../core/record-state.js';
import { RunIdSchema } from '../core/schemas.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { openEventStream, type EventStreamTimes } from './event-stream.js';
import { HistoryFeed, RUN_REPLAY_LIMIT, type FeedFollower, type FeedLimits } from './history-feed.js';
import { AskFollower, RunFollower } from './stream-followers.js';

/** Open streams of one run (or one ask), and of the whole process, when no limits are given. */
export const DEFAULT_STREAM_LIMITS: FeedLimits = { perKey: 100, total: 1000 };
/** The longest an event stream stays open (the client resumes with `Last-Event-ID`). */
export const STREAM_MAX_AGE_MS = 3_600_000;
/** A stream whose client left more than this unread when the next batch is due is closed. */
export const STREAM_MAX_BACKLOG_BYTES = 1 << 20;
/** What a refused stream's `retry-after` says, in seconds. */
const REFUSED_RETRY_AFTER_SECONDS = 5;

/** Options of {@link registerEventRoutes}. */
export interface EventRoutesOptions {
  gateway: Pick<Gateway, 'get' | 'run'>;
  store: Pick<AskStore, 'get' | 'history'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  logger: Pick<Logger, 'warn'>;
  /** Caps on open streams (default {@link DEFAULT_STREAM_LIMITS}). */
  limits?: FeedLimits;
  /** Interval of `: keep-alive` comments on open streams, in ms (default 15 000). */
  heartbeatMs?: number;
  /** The longest a stream stays open, in ms (default {@link STREAM_MAX_AGE_MS}). */
  maxAgeMs?: number;
}

const QuerySchema = z.object({
  stream: z.enum(['1', 'true', '0', 'false']).optional(),
  lastEventId: z.string().max(64).optional(),
});

/**
 * Registers `GET /v1/asks/:id/events` and `GET /v1/runs/:runId/events` (JSON, or SSE when asked
 * for). Every stream of the process reads through one {@link HistoryFeed}: a change is read once
 * for all the streams that follow it. A stream joins the feed before its first read, so a change
 * committed in between is not missed.
 */
export function registerEventRoutes(app: FastifyInstance, opts: EventRoutesOptions): void {
  const { gateway, store, bus, logger } = opts;
  const feed = new HistoryFeed({ store, bus, logger, limits: opts.limits ?? DEFAULT_STREAM_LIMITS });
  const times: EventStreamTimes = {
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    maxAgeMs: opts.maxAgeMs ?? STREAM_MAX_AGE_MS,
    maxBacklogBytes: STREAM_MAX_BACKLOG_BYTES,
  };
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
    feed.close();
  });

  const query = (request: FastifyRequest) => {
    const parsed = QuerySchema.safeParse(request.query);
    if (!parsed.success) throw invalid('invalid_request', locate(toIssues(parsed.error.issues), 'query'));
    const header = request.headers['last-event-id'];
    const wantsStream =
      parsed.data.stream === '1' ||
      parsed.data.stream === 'true' ||
      /\btext\/event-stream\b/.test(request.headers.accept ?? '');
    return { wantsStream, lastEventId: (Array.isArray(header) ? header[0] : header) ?? parsed.data.lastEventId };
  };

  /**
   * Joins the feed, then runs `firstRead` (after joining, so nothing committed meanwhile is missed).
   * Null when a cap refused the stream (the reply is sent); otherwise the leave function.
   */
  const join = async <T>(
    reply: FastifyReply,
    kind: 'ask' | 'run',
    id: string,
    follower: FeedFollower,
    firstRead: () => Promise<T>,
  ): Promise<{ leave: () => void; first: T } | null> => {
    const leave = feed.join(kind, id, follower);
    if (typeof leave !== 'function') {
      const message =
        leave.refused === 'key'
          ? `this ${kind} already has ${leave.limit} open event streams (ASKGATE_EVENT_STREAMS_PER_RUN); close one or retry later`
          : `askgate has ${leave.limit} open event streams (ASKGATE_EVENT_STREAMS_MAX); retry later`;
      void reply
        .code(429)
        .header('retry-after', String(REFUSED_RETRY_AFTER_SECONDS))
        .send({ error: { code: 'too_many_streams', message, limit: leave.limit } });
      return null;
    }
    try {
      return { leave, first: await firstRead() };
    } catch (error) {
      leave();
      throw error;
    }
  };

  app.get('/v1/asks/:id/events', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
    const { wantsStream, lastEventId } = query(request);
    if (!wantsStream) return { askId: id, events: (await gateway.get(id)).history };
    const follower = new AskFollower(lastEventId);
    const joined = await join(reply, 'ask', id, follower, () => gateway.get(id));
    if (!joined) return reply;
    const record = joined.first;
    const frames = follower.first(record);
    if (frames.length === 0 && isDone(record)) {
      // Nothing left to send, ever: 204 tells an EventSource to stop reconnecting.
      joined.leave();
      return reply.code(204).send();
    }
    const stream = openEventStream(reply, times, open, joined.leave);
    follower.open(stream, frames);
    if (isDone(record)) stream.end();
    return reply;
  });

  app.get('/v1/runs/:runId/events', async (request, reply) => {
    const parsedRun = RunIdSchema.safeParse((request.params as { runId: string }).runId);
    if (!parsedRun.success) throw invalid('invalid_request', locate(toIssues(parsedRun.error.issues), 'path', 'runId'));
    const runId = parsedRun.data;
    const { wantsStream, lastEventId } = query(request);
    if (!wantsStream) {
      const { history } = await gateway.run(runId, RUN_REPLAY_LIMIT);
      return { runId, events: new RunFollower(undefined).first(history).map((frame) => frame.data) };
    }
    const follower = new RunFollower(lastEventId);
    // A run without an ask yet streams too (nothing to replay): a tool guard that starts before the
    // run's first ask must see it come (the JSON form still answers 404).
    const firstRead = () =>
      gateway.run(runId, RUN_REPLAY_LIMIT).catch((error: unknown) => {
        if (error instanceof AskgateError && error.code === 'not_found') return { current: null, history: [] };
        throw error;
      });
    const joined = await join(reply, 'run', runId, follower, firstRead);
    if (!joined) return reply;
    const frames = follower.first(joined.first.history);
    follower.open(openEventStream(reply, times, open, joined.leave), frames);
    return reply;
  });
}
