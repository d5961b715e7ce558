import type { FastifyInstance } from 'fastify';
import type { InboundRoute } from '../core/ports.js';
import type { RouteConfig } from './auth.js';

/**
 * Mounts channel webhook routes. They get the raw body as a Buffer (signature checks need the
 * exact bytes) and are declared `signature`: no bearer token (each channel verifies its
 * platform's signature) and, without a token, no Host rule (a proxy forwards the public Host).
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
        config: { auth: 'signature' } satisfies RouteConfig,
        handler: async (request, reply) => {
          const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const response = await route.handle({ headers: request.headers, rawBody });
          reply.code(response.status);
          for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
          return reply.send(response.body ?? '');
        },
      });
    }
  });
}
