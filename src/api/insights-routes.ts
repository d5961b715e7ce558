import type { FastifyInstance } from 'fastify';
import { AskgateError, invalid } from '../core/errors.js';
import { daysBetween } from '../core/insights.js';
import {
  insightsReport,
  parseInsightsQuery,
  type InsightsReport,
  type InsightsSource,
} from '../core/insights-report.js';
import type { Clock } from '../core/ports.js';

/**
 * The insights of a query string (`from`, `to`, `agent`, `channel`, `person`): 400
 * `invalid_request` naming the refused field, 503 when the store keeps no insights.
 */
export async function readInsights(
  source: InsightsSource | undefined,
  raw: unknown,
  clock: Clock,
): Promise<InsightsReport> {
  const now = clock.now();
  const query = parseInsightsQuery((raw ?? {}) as Record<string, unknown>, now);
  if ('field' in query)
    throw invalid('invalid_request', [{ path: [query.field], message: query.message, in: 'query' }]);
  if (!source) throw new AskgateError('store_unavailable', 'this store keeps no insights');
  const [days, pending] = await Promise.all([source.days(daysBetween(query.from, query.to)), source.pending(now)]);
  return insightsReport(query, days, pending, now);
}

/** `GET /v1/insights` (the API token, like every /v1 route): the figures of a period, each with its denominator. */
export function registerInsightsRoute(
  app: FastifyInstance,
  deps: { source: InsightsSource | undefined; clock: Clock },
): void {
  app.get('/v1/insights', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return readInsights(deps.source, request.query, deps.clock);
  });
}
