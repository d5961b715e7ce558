import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AskgateError, invalid, locate, toIssues } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import type { AskStore, Logger, ResultBus } from '../core/ports.js';
import { RunIdSchema, type AskRecord, type HistoryEntry } from '../core/schemas.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { HistoryCursor } from './history-cursor.js';

/** Options of {@link registerEventRoutes}. */
export interface EventRoutesOptions {
  gateway: Pick<Gateway, 'get' | 'run'>;
  store: Pick<AskStore, 'get' | 'history'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  logger: Pick<Logger, 'warn'>;
  /** Interval of `: keep-alive` comments on open streams, in ms (default 15 000). */
  heartbeatMs?: number;
}

/** One history entry as the event routes send it. */
type Sent = HistoryEntry & { askId: string; index: number; version?: number };

const QuerySchema = z.object({
  stream: z.enum(['1', 'true', '0', 'false']).optional(),
  lastEventId: z.string().max(64).optional(),
});

/** Runs `work` now, or once more after the running call when called meanwhile (coalesced, never concurrent). */
function serialized(work: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await work().catch(onError);
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => void run();
}

/** Registers `GET /v1/asks/:id/events` and `GET /v1/runs/:runId/events` (JSON, or SSE when asked for). */
export function registerEventRoutes(app: FastifyInstance, opts: EventRoutesOptions): void {
  const { gateway, store, bus, logger } = opts;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
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

  /** Switches the reply to an event stream; returns `send` and registers cleanup for when either side goes away. */
  const openStream = (reply: FastifyReply, cleanup: () => void) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      open.delete(close);
      cleanup();
      res.end();
    };
    open.add(close);
    // The response's 'close' fires when the client goes away (the request's fires once its body is read).
    res.once('close', close);
    const send = (id: string, data: Sent) => {
      if (!closed) res.write(`id: ${id}\nevent: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    return { send, close, isClosed: () => closed };
  };

  const onError = (error: unknown) =>
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'event stream read failed');

  app.get('/v1/asks/:id/events', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
    const { wantsStream, lastEventId } = query(request);
    const record = await gateway.get(id);
    if (!wantsStream) return { askId: id, events: record.history };
    const last = Number.parseInt(lastEventId ?? '-1', 10);
    const cursor = new HistoryCursor(Number.isFinite(last) && last >= 0 ? last + 1 : 0);
    let unsubscribe = () => {};
    const stream = openStream(reply, () => unsubscribe());
    const pump = serialized(async () => {
      const current = await store.get(id);
      if (!current) return stream.close();
      for (const { entry, index } of cursor.fresh(current.history))
        stream.send(String(index), { ...entry, askId: id, index });
    }, onError);
    // Subscribe before the first read, so an entry committed in between is not missed; after a
    // resync (announcements may have been lost) read again.
    unsubscribe = both(
      bus.subscribeHistory((askId) => askId === id && pump()),
      bus.onResync(() => pump()),
    );
    pump();
  });

  app.get('/v1/runs/:runId/events', async (request, reply) => {
    const parsedRun = RunIdSchema.safeParse((request.params as { runId: string }).runId);
    if (!parsedRun.success) throw invalid('invalid_request', locate(toIssues(parsedRun.error.issues), 'path', 'runId'));
    const runId = parsedRun.data;
    const { wantsStream, lastEventId } = query(request);
    const { history } = await gateway.run(runId, 50);
    if (!wantsStream) return { runId, events: chronological(history.map((r) => ({ record: r, from: 0 }))) };
    const [lastVersion, lastIndex] = (lastEventId ?? '').split('.').map((n) => Number.parseInt(n, 10));
    const cursors = new Map<string, HistoryCursor>();
    let unsubscribe = () => {};
    const stream = openStream(reply, () => unsubscribe());
    const sendAll = (batch: { record: AskRecord; from: number }[]) => {
      for (const e of chronological(batch)) stream.send(`${e.version}.${e.index}`, e);
    };
    let replayed = false;
    let resync = false;
    const pending = new Set<string>();
    /** Sends the entries of `record` its cursor has not sent yet. */
    const sendFresh = (record: AskRecord) => {
      const cursor = cursors.get(record.id) ?? new HistoryCursor(0);
      cursors.set(record.id, cursor);
      for (const { entry, index } of cursor.fresh(record.history))
        stream.send(`${record.version}.${index}`, { ...entry, askId: record.id, version: record.version, index });
    };
    const pump = serialized(async () => {
      if (!replayed) {
        replayed = true;
        const asks = await store.history(runId, 50);
        sendAll(
          asks.map((record) => {
            const from = startOf(record, lastVersion, lastIndex);
            const cursor = new HistoryCursor(from);
            cursor.fresh(record.history);
            cursors.set(record.id, cursor);
            return { record, from };
          }),
        );
      }
      if (resync) {
        // Announcements may have been lost: every ask of the run again, as read (cursors skip what was sent).
        resync = false;
        for (const record of await store.history(runId, 50)) {
          pending.delete(record.id);
          sendFresh(record);
        }
      }
      const ids = [...pending];
      pending.clear();
      for (const askId of ids) {
        const record = await store.get(askId);
        if (record) sendFresh(record);
      }
    }, onError);
    unsubscribe = both(
      bus.subscribeHistory((askId, run) => {
        if (run !== runId) return;
        pending.add(askId);
        pump();
      }),
      bus.onResync(() => {
        resync = true;
        pump();
      }),
    );
    pump();
  });
}

/** One unsubscribe function for two. */
function both(a: () => void, b: () => void): () => void {
  return () => {
    a();
    b();
  };
}

/** Where a run stream resumes in one ask, given `Last-Event-ID: <version>.<index>`. */
function startOf(record: AskRecord, lastVersion: number | undefined, lastIndex: number | undefined): number {
  if (lastVersion === undefined || !Number.isFinite(lastVersion)) return 0;
  if (record.version < lastVersion) return record.history.length;
  if (record.version > lastVersion) return 0;
  return lastIndex !== undefined && Number.isFinite(lastIndex) ? lastIndex + 1 : 0;
}

/** Entries of several asks from each ask's `from` index, in time order (ties: older ask, then position). */
function chronological(asks: { record: AskRecord; from: number }[]): Sent[] {
  const all = asks.flatMap(({ record, from }) =>
    record.history
      .slice(from)
      .map((entry, i) => ({ ...entry, askId: record.id, version: record.version, index: from + i })),
  );
  return all.sort((a, b) => a.at.localeCompare(b.at) || a.version - b.version || a.index - b.index);
}
