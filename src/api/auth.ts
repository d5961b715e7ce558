import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AskgateError } from '../core/errors.js';
import { bearerToken, isLoopbackHost, originIsHost, tokenMatches } from '../security/http.js';

/**
 * Who may call a route, declared in its options as `config: { auth }`:
 * - `bearer` (the default): the API token when one is set (`/v1`, `/metrics`, `/mcp`);
 * - `public`: anyone (`/healthz`, `/readyz`);
 * - `console`: the console's own cookie session and CSRF checks (its plugin's hook);
 * - `signature`: a chat platform's webhook, which verifies the platform's signature itself.
 */
export type RouteAuth = 'bearer' | 'public' | 'console' | 'signature';

/** The part of a route's `config` that {@link installRouteAuth} reads. */
export interface RouteConfig {
  auth?: RouteAuth;
}

const ROUTE_AUTH: ReadonlySet<string> = new Set<RouteAuth>(['bearer', 'public', 'console', 'signature']);

const forbidden = (reply: FastifyReply, message: string) =>
  reply.code(403).send(new AskgateError('forbidden', message).toJSON());

/** The host of an absolute-form request target (`GET http://host/path`), which overrides `Host`. */
function targetHost(url: string): string | undefined {
  if (url.startsWith('/')) return undefined;
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url);
  return match ? match[1]! : '';
}

/**
 * Authentication as a property of the matched route, never of the URL's spelling: the router
 * decodes the path (`/%761/asks` is `/v1/asks`), so only the route it chose can say what guards
 * it. Routes declare `config.auth` (unknown values are refused when the route is added); an
 * undeclared route, and a request that matches no route, need the token.
 *
 * Without a token (askgate then listens on loopback) a request must address a loopback Host
 * (DNS rebinding), except the signed platform webhooks, which a proxy forwards with the public
 * Host; and a browser request to a `bearer` route must come from askgate's own origin.
 */
export function installRouteAuth(app: FastifyInstance, apiToken: string | undefined): void {
  app.addHook('onRoute', (route) => {
    const declared: unknown = (route.config as RouteConfig | undefined)?.auth;
    if (declared !== undefined && (typeof declared !== 'string' || !ROUTE_AUTH.has(declared))) {
      throw new Error(
        `route ${String(route.method)} ${route.url}: config.auth must be one of ${[...ROUTE_AUTH].join(', ')}`,
      );
    }
    route.config = { ...route.config, auth: (declared as RouteAuth | undefined) ?? 'bearer' };
  });

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // A request that matched no route (404) has no declaration either.
    const auth: RouteAuth = (request.routeOptions.config as RouteConfig).auth ?? 'bearer';
    if (apiToken === undefined) {
      if (auth === 'signature') return;
      const target = targetHost(request.url);
      if (!isLoopbackHost(request.headers.host) || (target !== undefined && !isLoopbackHost(target))) {
        return forbidden(
          reply,
          'without ASKGATE_API_TOKEN askgate answers only requests addressed to a loopback name (Host: localhost, 127.0.0.1 or [::1])',
        );
      }
      if (auth === 'bearer' && request.headers.origin !== undefined && !originIsHost(request.headers)) {
        return forbidden(reply, 'cross-origin request refused');
      }
      return;
    }
    if (auth === 'bearer' && !tokenMatches(bearerToken(request.headers.authorization), apiToken)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send(new AskgateError('unauthorized', 'missing or invalid bearer token').toJSON());
    }
  });
}
