// GET /v1/audit: a range of the chain as JSON Lines, ending with a (signed) checkpoint.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { z } from 'zod';
import { invalid, locate, toIssues } from '../core/errors.js';
import type { Clock } from '../core/ports.js';
import { GENESIS_HASH, type AuditEntry } from '../core/audit/chain.js';
import type { RedisAuditChain } from '../store/audit-chain.js';
import { signCheckpoint } from './crypto.js';

/** Entries one response carries at most by default, and at most when asked (`limit`). */
export const EXPORT_DEFAULT_LIMIT = 10_000;
export const EXPORT_MAX_LIMIT = 100_000;
/** Entries read from Redis at a time (and written before waiting for the client to take them). */
const PAGE = 500;

const isoTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time, e.g. 2026-12-07T00:00:00Z' });

const QuerySchema = z
  .object({
    from: isoTime,
    to: isoTime.optional(),
    limit: z.coerce.number().int().min(1).max(EXPORT_MAX_LIMIT).default(EXPORT_DEFAULT_LIMIT),
    after: z
      .string()
      .regex(/^\d{1,15}-\d{1,15}$/, 'must be the `next` of a checkpoint')
      .optional(),
  })
  .refine((q) => q.to === undefined || Date.parse(q.to) >= Date.parse(q.from), {
    message: 'must not be before from',
    path: ['to'],
  });

const QUERY_KEYS = new Set(['from', 'to', 'limit', 'after']);

/** Options of {@link registerAuditRoute}. */
export interface AuditRouteOptions {
  chain: RedisAuditChain;
  clock: Clock;
  signingKey?: KeyObject;
}

/**
 * Registers `GET /v1/audit?from=&to=&limit=&after=` (bearer token, as every /v1 route): the entries
 * recorded in the range, oldest first, one JSON object a line, then the checkpoint. Written a page
 * at a time, waiting for the client to drain each (a slow reader holds one page, not the range); a
 * range with more than `limit` entries ends with `complete: false` and `next`, the `after` of the
 * request that continues it.
 */
export function registerAuditRoute(app: FastifyInstance, opts: AuditRouteOptions): void {
  app.get('/v1/audit', async (request, reply) => {
    const unknown = Object.keys(request.query as object).filter((k) => !QUERY_KEYS.has(k));
    if (unknown.length > 0)
      throw invalid(
        'invalid_request',
        locate([{ path: [unknown[0]!], message: 'is not a parameter of this route' }], 'query'),
      );
    const parsed = QuerySchema.safeParse(request.query);
    if (!parsed.success) throw invalid('invalid_request', locate(toIssues(parsed.error.issues), 'query'));
    const q = parsed.data;
    const fromMs = Date.parse(q.from);
    const toMs = q.to === undefined ? opts.clock.now() : Date.parse(q.to);
    // The first page is read before the answer starts: a Redis failure is still a JSON error.
    let page = await opts.chain.range(fromMs, toMs, Math.min(PAGE, q.limit), q.after);
    const anchor = await anchorOf(opts.chain, page, fromMs, q.after);
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
    let count = 0;
    let first: AuditEntry | null = null;
    let last: AuditEntry | null = null;
    let lastId: string | undefined;
    try {
      while (page.length > 0) {
        let chunk = '';
        for (const [id, json] of page) {
          const entry = JSON.parse(json) as AuditEntry;
          first ??= entry;
          last = entry;
          lastId = id;
          chunk += `${json}\n`;
        }
        count += page.length;
        if (!out.write(chunk)) await drained(out);
        if (count >= q.limit || page.length < PAGE) break;
        page = await opts.chain.range(fromMs, toMs, Math.min(PAGE, q.limit - count), lastId);
      }
      const more = count >= q.limit && (await opts.chain.range(fromMs, toMs, 1, lastId)).length > 0;
      const checkpoint = signCheckpoint(
        {
          type: 'checkpoint',
          v: 1,
          from: new Date(fromMs).toISOString(),
          to: new Date(toMs).toISOString(),
          count,
          anchor: first?.prev ?? anchor,
          lastHash: last?.hash ?? anchor,
          ...(first && last && { firstSeq: first.seq, lastSeq: last.seq }),
          complete: !more,
          ...(more && lastId && { next: lastId }),
          madeAt: new Date(opts.clock.now()).toISOString(),
        },
        opts.signingKey,
      );
      out.end(`${JSON.stringify(checkpoint)}\n`);
    } catch (error) {
      // Headers are out: a cut stream without a checkpoint is what tells the reader it failed.
      request.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'audit export failed');
      out.destroy();
    }
    return reply as FastifyReply;
  });
}

/** The hash before the range: of the entry before `after`, or before `fromMs` (trimmed or not; genesis when none). */
async function anchorOf(
  chain: RedisAuditChain,
  page: [string, string][],
  fromMs: number,
  after: string | undefined,
): Promise<string> {
  if (page.length > 0) return (JSON.parse(page[0]![1]) as AuditEntry).prev;
  return (await chain.hashBefore(after ? Number(after.split('-')[0]) + 1 : fromMs)) ?? GENESIS_HASH;
}

function drained(out: NodeJS.WritableStream): Promise<unknown> {
  return Promise.race([once(out, 'drain'), once(out, 'close')]);
}
