import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AskgateError, invalid, locate, toIssues, type IssueLocation } from '../core/errors.js';
import { AnswerRequestSchema, AskRequestSchema, RunIdSchema, publicRecord } from '../core/schemas.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { ListAsksQuerySchema } from '../core/ask-listing.js';
import { GuardBlockedRequestSchema } from '../core/guard-blocked.js';
import type { ServerDeps } from './server.js';
import { canonicalJson } from '../core/canonical-json.js';
import { ExtendRequestSchema } from '../core/deadline.js';

const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

const ChannelParamSchema = z.object({ channel: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a channel name') });
const DirectoryPageSchema = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,20}$/, 'must be a cursor from the last page')
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** A directory entry's stored JSON as an object (a value that is not one shows as nothing). */
function readEntry(value: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Where a value outside the body comes from: a path parameter, the query or a header (by name). */
type Source = { in: IssueLocation; name?: string };

/** Parses untrusted input with zod, throwing a 400 that names every offending path (and where it is, outside the body). */
function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: 'invalid_request' | 'invalid_answer' = 'invalid_request',
  source?: Source,
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issues = toIssues(result.error.issues);
    throw invalid(code, source ? locate(issues, source.in, source.name) : issues);
  }
  return result.data;
}

/** Registers the v1 agent API. */
export function registerAskRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const { gateway } = deps;
  const WaitSchema = z.object({ wait: z.coerce.number().min(0).max(deps.maxWaitSeconds).optional() });

  const askId = (request: FastifyRequest): string => {
    const id = (request.params as { id: string }).id;
    if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
    return id;
  };
  const runId = (request: FastifyRequest): string =>
    parse(RunIdSchema, (request.params as { runId: string }).runId, 'invalid_request', { in: 'path', name: 'runId' });
  const waitMs = (request: FastifyRequest): number =>
    (parse(WaitSchema, request.query, 'invalid_request', { in: 'query' }).wait ?? 0) * 1000;

  /** Runs a long poll that ends early when the client goes away. */
  const waitFor = async <T>(reply: FastifyReply, poll: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const abort = new AbortController();
    const onClose = () => abort.abort();
    reply.raw.once('close', onClose);
    try {
      return await poll(abort.signal);
    } finally {
      reply.raw.off('close', onClose);
      // Cut short by a shutdown: close the socket after this response, or the server would wait
      // for the now idle keep-alive connection before it can stop.
      if (gateway.isStopping) reply.header('connection', 'close');
    }
  };

  app.post('/v1/asks', async (request, reply) => {
    const ms = waitMs(request);
    const body = parse(AskRequestSchema, request.body);
    const rawKey = request.headers['idempotency-key'];
    const key =
      rawKey === undefined
        ? undefined
        : parse(IdempotencyKeySchema, Array.isArray(rawKey) ? rawKey[0] : rawKey, 'invalid_request', {
            in: 'header',
            name: 'Idempotency-Key',
          });
    const idempotency = key
      ? { key, requestHash: createHash('sha256').update(canonicalJson(body)).digest('hex') }
      : undefined;
    const { record, created } =
      ms > 0
        ? await waitFor(reply, (signal) => gateway.askAndWait(body, idempotency, ms, signal))
        : await gateway.ask(body, idempotency);
    return reply
      .code(created ? 201 : 200)
      .header('location', `/v1/asks/${record.id}`)
      .send(publicRecord(record));
  });

  app.get('/v1/asks', async (request) => {
    const query = parse(ListAsksQuerySchema, request.query, 'invalid_request', { in: 'query' });
    const { asks, nextCursor } = await gateway.list(query);
    return { asks: asks.map(publicRecord), nextCursor };
  });

  app.get('/v1/asks/:id', async (request, reply) => {
    const id = askId(request);
    const ms = waitMs(request);
    return publicRecord(
      ms > 0 ? await waitFor(reply, (signal) => gateway.wait(id, ms, signal)) : await gateway.get(id),
    );
  });

  app.post('/v1/asks/:id/answer', async (request) => {
    const id = askId(request);
    const body = parse(AnswerRequestSchema, request.body, 'invalid_answer');
    const record = await gateway.answer(id, body, { channel: 'api', userId: body.by ?? 'api' });
    return publicRecord(record);
  });

  // Moves a pending ask's deadline; who asked is recorded like an answer's `by`.
  app.post('/v1/asks/:id/extend', async (request) => {
    const id = askId(request);
    const body = parse(ExtendRequestSchema, request.body);
    return publicRecord(await gateway.extend(id, body.until, { channel: 'api', userId: body.by ?? 'api' }));
  });

  app.post('/v1/asks/:id/cancel', async (request) => publicRecord(await gateway.cancel(askId(request))));

  app.get('/v1/runs/:runId', async (request) => {
    const id = runId(request);
    const { current, history } = await gateway.run(id);
    return { runId: id, current: current && publicRecord(current), history: history.map(publicRecord) };
  });

  // A tool call the run's guard (askgate/guard) did not run: noted on the run's open ask, name only.
  app.post('/v1/runs/:runId/guard-blocked', async (request) => {
    const id = runId(request);
    const body = parse(GuardBlockedRequestSchema, request.body);
    return { ...(await gateway.guardBlocked(id, body.tool)), recorded: true };
  });

  // What a channel learned of its conversations (e.g. Teams conversation ids), for an operator finding a target.
  app.get('/v1/channels/:channel/conversations', async (request) => {
    const { channel } = parse(ChannelParamSchema, request.params, 'invalid_request', { in: 'path' });
    const page = parse(DirectoryPageSchema, request.query, 'invalid_request', { in: 'query' });
    const listed = deps.directory ? await deps.directory.list(channel, page) : { entries: [] };
    const conversations = listed.entries.map((e) => ({ id: e.key, ...readEntry(e.value) }));
    return { channel, conversations, ...(listed.cursor ? { cursor: listed.cursor } : {}) };
  });

  app.delete('/v1/runs/:runId', async (request) => {
    const id = runId(request);
    const { cancelled } = await gateway.abortRun(id);
    return { runId: id, cancelled: cancelled && publicRecord(cancelled) };
  });
}
