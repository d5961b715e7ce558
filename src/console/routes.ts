import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AskgateError, invalid, toIssues } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import { AnswerRequestSchema, type AskRecord, type Responder } from '../core/schemas.js';
import { agreeOf } from '../core/policy.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import { ASSETS, CATALOGUES, localeFor, pageFor, SECURITY_HEADERS, type Asset } from './assets.js';
import { registerInsightsPages } from './insights/page.js';
import { ConsoleHub, type ConsoleFeed, type ConsoleStreamLimits } from './hub.js';
import { originMatches, tokenMatches } from '../security/http.js';
import { ConsoleAuth, CSRF_HEADER, isHttps, sessionCookie, type ConsoleSessionStore } from './session.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { consoleView } from './view.js';
import { ExtendRequestSchema } from '../core/deadline.js';
import { fieldProblems, operatorLocale, withProblems, zonedInputs } from './typed-answers.js';

/** Who may call a console route: anyone (the page shell, login) or a signed-in session. */
type Access = 'public' | 'session';
/** What a state-changing route checks: the Origin only (login, logout) or Origin and CSRF token. */
type Guard = 'none' | 'origin' | 'csrf';
interface RouteRules {
  /** Console routes are authenticated by the hook below, never by the API's bearer token. */
  auth: 'console';
  access: Access;
  guard: Guard;
}

const LoginSchema = z.object({ token: z.string().min(1).max(4096) }).strict();

/** Sends `{error}`, also with codes the v1 API does not have (403 `forbidden`, 429/503 with `retry-after`). */
function deny(reply: FastifyReply, status: 401 | 403 | 429 | 503, code: string, message: string, retryAfter?: number) {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(status).send({ error: { code, message } });
}

/** What the console needs: the gateway, the API token that guards it (none: open, loopback only), and where sign-outs are kept. */
export interface ConsoleOptions {
  gateway: Gateway;
  /** What the event stream reads. */
  feed: ConsoleFeed;
  apiToken?: string;
  sessions: ConsoleSessionStore;
  /** How many event streams are held, and when a slow one is closed. */
  limits: ConsoleStreamLimits;
}

/**
 * The web console as a fastify plugin (encapsulated, so its hooks touch only its own routes):
 * `GET /` (the page) and its assets, `/console/session`, `/console/login`, `/console/logout`,
 * `/console/events` (server-sent events) and `/console/asks/:id/answer`. Console routes
 * authenticate with a session cookie (when `ASKGATE_API_TOKEN` is set), never with the bearer
 * token, and the v1 API never accepts the cookie.
 */
const consoleRoutes: FastifyPluginAsync<ConsoleOptions> = async (scope, deps) => {
  const auth = new ConsoleAuth(deps.apiToken, deps.sessions, deps.feed.clock);
  const hub = new ConsoleHub(deps.feed, (sids) => auth.revoked(sids), deps.limits);
  const throttle = new SignInThrottle(deps.feed.clock, deps.feed.logger);

  scope.addHook('preClose', async () => hub.close());

  scope.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    // The Host rule without a token (DNS rebinding) is the server's, before this hook (api/auth.ts).
    const rules = request.routeOptions.config as Partial<RouteRules>;
    // Only routes that need the session look it up (a store read): the page shell loads without Redis.
    const sid = rules.access === 'session' || rules.guard === 'csrf' ? await auth.sessionOf(request.headers) : null;
    if (rules.access === 'session' && sid === null)
      return deny(reply, 401, 'unauthorized', 'sign in to the console first');
    if (rules.guard === 'origin' || rules.guard === 'csrf') {
      if (!originMatches(request.headers)) return deny(reply, 403, 'forbidden', 'cross-origin request refused');
    }
    if (rules.guard === 'csrf' && (sid === null || !auth.csrfMatches(sid, request.headers[CSRF_HEADER]))) {
      return deny(reply, 403, 'forbidden', 'missing or invalid CSRF token');
    }
  });

  // The page follows the browser's Accept-Language (one asset per shipped locale, each with its own ETag).
  const asset = (path: string, fileFor: Asset | ((headers: { 'accept-language'?: string }) => Asset)) =>
    scope.get(
      path,
      { config: { auth: 'console', access: 'public', guard: 'none' } satisfies RouteRules },
      async (request, reply) => {
        const file = typeof fileFor === 'function' ? fileFor(request.headers) : fileFor;
        reply
          .header('content-type', file.type)
          .header('etag', file.etag)
          .header('cache-control', 'no-cache')
          .header('vary', typeof fileFor === 'function' ? 'accept-encoding, accept-language' : 'accept-encoding');
        if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
        if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? ''))
          return reply.header('content-encoding', 'gzip').send(file.gzip);
        return reply.send(file.body);
      },
    );
  asset('/', (headers) => pageFor(headers['accept-language']));
  asset('/console/app.js', ASSETS.js);
  asset('/console/app.css', ASSETS.css);
  asset('/console/icon.svg', ASSETS.icon);
  for (const [tag, words] of CATALOGUES) asset(`/console/i18n/${tag}.json`, words);
  registerInsightsPages(scope, asset, localeFor, deps.feed);

  scope.get(
    '/console/session',
    { config: { auth: 'console', access: 'public', guard: 'none' } satisfies RouteRules },
    async (request) => {
      const sid = await auth.sessionOf(request.headers);
      return {
        mode: auth.open ? 'open' : 'token',
        signedIn: sid !== null,
        ...(sid !== null ? { csrf: auth.csrfFor(sid) } : {}),
      };
    },
  );

  scope.post(
    '/console/login',
    { config: { auth: 'console', access: 'public', guard: 'origin' } satisfies RouteRules },
    async (request, reply) => {
      if (auth.open) return { mode: 'open', signedIn: true, csrf: auth.csrfFor(auth.sidOf(request.headers)!) };
      // Refused before the token is compared: a throttled address learns nothing from its guesses.
      const address = request.ip || 'unknown'; // the TCP peer (trustProxy is off): see README, "Sign-in throttle"
      const wait = throttle.retryAfterSeconds(address);
      if (wait > 0)
        return deny(reply, 429, 'too_many_attempts', `too many failed sign-ins; try again in ${wait} s`, wait);
      const parsed = LoginSchema.safeParse(request.body);
      if (!parsed.success || !tokenMatches(parsed.data.token, deps.apiToken!)) {
        throttle.failed(address);
        return deny(reply, 401, 'unauthorized', 'that is not the API token');
      }
      const { cookie, sid } = auth.issue();
      reply.header('set-cookie', sessionCookie(cookie, isHttps(request.protocol, request.headers)));
      return { mode: 'token', signedIn: true, csrf: auth.csrfFor(sid) };
    },
  );

  scope.post(
    '/console/logout',
    { config: { auth: 'console', access: 'public', guard: 'origin' } satisfies RouteRules },
    async (request, reply) => {
      // Ended on the server, not only in this browser: a copied cookie stops working on every replica.
      const sid = await auth.end(request.headers);
      if (sid !== null) hub.endSession(sid);
      reply.header('set-cookie', sessionCookie(null, isHttps(request.protocol, request.headers)));
      return reply.code(204).send();
    },
  );

  scope.get(
    '/console/events',
    { config: { auth: 'console', access: 'session', guard: 'none' } satisfies RouteRules },
    async (request, reply) => {
      const sid = auth.sidOf(request.headers)!;
      const refused = hub.refusal(sid);
      if (refused) return deny(reply, refused.status, refused.code, refused.message, refused.retryAfterSeconds);
      reply.hijack();
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      request.raw.socket.setTimeout(0);
      await hub.attach(reply.raw, sid);
    },
  );

  // Moves a pending ask's deadline: the operator's name, when given, is who asked.
  scope.post(
    '/console/asks/:id/extend',
    { config: { auth: 'console', access: 'session', guard: 'csrf' } satisfies RouteRules },
    async (request: FastifyRequest) => {
      const id = (request.params as { id: string }).id;
      if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
      const parsed = ExtendRequestSchema.safeParse(request.body);
      if (!parsed.success) throw invalid('invalid_request', toIssues(parsed.error.issues));
      const by = { channel: 'web', userId: parsed.data.by ?? 'web' };
      return { ask: consoleView(await deps.gateway.extend(id, parsed.data.until, by)) };
    },
  );

  scope.post(
    '/console/asks/:id/answer',
    { config: { auth: 'console', access: 'session', guard: 'csrf' } satisfies RouteRules },
    async (request: FastifyRequest) => {
      const id = (request.params as { id: string }).id;
      if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
      const parsed = AnswerRequestSchema.safeParse(request.body);
      if (!parsed.success) throw invalid('invalid_answer', toIssues(parsed.error.issues));
      const asked = await deps.gateway.get(id);
      const now = deps.feed.clock.now();
      const body = zonedInputs(asked, parsed.data, now);
      try {
        return { ask: consoleView(await deps.gateway.answer(id, body, consoleResponder(asked, body.by))) };
      } catch (error) {
        // A refused typed value: the same refusal, in the page's language, beside its field.
        if (!(error instanceof AskgateError) || error.code !== 'invalid_answer') throw error;
        const locale = operatorLocale(request.headers['accept-language']);
        throw withProblems(error, fieldProblems(asked, parsed.data, locale, now));
      }
    },
  );
};

/**
 * Who a console answer is from: `{channel: "web", userId: <"Answer as"> or "web"}`. In an ask that
 * needs several matching answers the console is one person, whatever name a browser gives
 * (`userId: "web"`, the name kept as `name`): anyone signed in could type another name, so names
 * must not count as more people. `agree` never changes after creation, so reading it first is safe
 * (the questions and time zone neither, which the refusal of a typed value reads).
 */
function consoleResponder(record: AskRecord, by: string | undefined): Responder {
  if (agreeOf(record) > 1) return { channel: 'web', userId: 'web', ...(by && by !== 'web' ? { name: by } : {}) };
  return { channel: 'web', userId: by ?? 'web' };
}

export default consoleRoutes;
