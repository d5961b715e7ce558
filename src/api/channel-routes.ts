import type { FastifyInstance } from 'fastify';
import type { InboundRoute } from '../core/ports.js';
import type { RouteConfig } from './auth.js';

/** A parsed query string as a channel reads it: each name's last value (untrusted). */
function lastValues(query: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (typeof query !== 'object' || query === null) return out;
  for (const [name, value] of Object.entries(query)) {
    const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
    if (typeof last === 'string') out[name] = last;
  }
  return out;
}

/**
 * Mounts channel routes: webhooks (POST) and signed links (GET). They get the raw body as a Buffer
 * (signature checks need the exact bytes; a GET's is empty) and the query, and are declared
 * `signature` whatever their method: no bearer token (each channel verifies its platform's
 * signature or its link's) and, without a token, no Host rule (a proxy forwards the public Host).
 */
export function registerChannelRoutes(app: FastifyInstance, routes: readonly InboundRoute[]): void {
  if (routes.length === 0) return;
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const route of routes) {
      scope.route({
        method: route.method,
        url: route.path,
        ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
        config: { auth: 'signature' } satisfies RouteConfig,
        handler: async (request, reply) => {
          const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const response = await route.handle({ headers: request.headers, rawBody, query: lastValues(request.query) });
          reply.code(response.status);
          for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
          return reply.send(response.body ?? '');
        },
      });
    }
  });
}
