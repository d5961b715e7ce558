import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installRouteAuth } from '../../src/api/auth.js';
import type { InboundRoute } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { sendRaw, type RawTargetResponse } from '../helpers/raw-target.js';
import { seeded } from '../helpers/seeded.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { CHARTS_AVAILABLE } from '../../src/console/insights/page.js';

// Authentication is a property of the matched route, not of the URL's spelling: every spelling
// the router maps to a protected route (or to no route) gets 401 and no data, and changes nothing.

const TOKEN = 'route-auth-token-0123456789';

/** The test channel plus one signed webhook route, as a chat platform adds. */
class HookChannel extends RecordingChannel {
  hits = 0;
  routes(): InboundRoute[] {
    return [
      {
        method: 'POST',
        path: '/hooks/test',
        handle: async () => (this.hits++, { status: 200, body: 'signed route reached' }),
      },
    ];
  }
}

let app: RunningAskgate;
let port: number;
let authed: ReturnType<typeof client>;
const channel = new HookChannel();
let existing: { id: string; runId: string };

beforeAll(async () => {
  app = await startTestApp(
    testEnv({
      ASKGATE_API_TOKEN: TOKEN,
      HOST: '127.0.0.1',
      // The answer page's routes exist: they are classified below.
      ASKGATE_PUBLIC_URL: 'https://askgate.example.com',
      ASKGATE_LINK_SECRET: 'route-auth-link-secret-0123456789abcdef',
    }),
    [channel],
  );
  port = Number(new URL(app.url).port);
  authed = client(app.url, TOKEN);
  existing = (
    await authed.post(
      '/v1/asks',
      askBody('route-auth-existing', { to: { channel: 'test', chat: 'c1' }, timeoutSeconds: 600 }),
    )
  ).body;
});

afterAll(async () => {
  await app?.close();
});

const json = { 'content-type': 'application/json' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Every protected route with each method, a concrete path and a body that would change something. */
const protectedTargets = (): { method: string; path: string; body?: string; headers?: Record<string, string> }[] => {
  const { id, runId } = existing;
  return [
    {
      method: 'POST',
      path: '/v1/asks',
      body: JSON.stringify(askBody('route-auth-forged', { to: { channel: 'test', chat: 'c1' } })),
      headers: json,
    },
    { method: 'GET', path: `/v1/asks/${id}` },
    { method: 'HEAD', path: `/v1/asks/${id}` },
    { method: 'GET', path: '/v1/asks?status=pending' },
    {
      method: 'POST',
      path: `/v1/asks/${id}/answer`,
      body: JSON.stringify({ answers: { env: ['Production'] } }),
      headers: json,
    },
    { method: 'POST', path: `/v1/asks/${id}/cancel`, body: '{}', headers: json },
    { method: 'POST', path: `/v1/asks/${id}/links`, body: '{}', headers: json },
    { method: 'POST', path: `/v1/asks/${id}/extend`, body: '{"timeoutSeconds": 600}', headers: json },
    { method: 'GET', path: `/v1/asks/${id}/events` },
    { method: 'HEAD', path: `/v1/asks/${id}/events` },
    { method: 'GET', path: `/v1/runs/${runId}` },
    { method: 'HEAD', path: `/v1/runs/${runId}` },
    { method: 'DELETE', path: `/v1/runs/${runId}` },
    {
      method: 'POST',
      path: `/v1/runs/${runId}/guard-blocked`,
      body: JSON.stringify({ tool: 'deploy' }),
      headers: json,
    },
    { method: 'GET', path: `/v1/runs/${runId}/events` },
    { method: 'HEAD', path: `/v1/runs/${runId}/events` },
    { method: 'GET', path: '/v1/channels/teams/conversations' },
    { method: 'HEAD', path: '/v1/channels/teams/conversations' },
    { method: 'GET', path: '/metrics' },
    { method: 'HEAD', path: '/metrics' },
    { method: 'GET', path: '/v1/insights' },
    { method: 'HEAD', path: '/v1/insights' },
    {
      method: 'POST',
      path: '/mcp',
      body: initialize,
      headers: { ...json, accept: 'application/json, text/event-stream' },
    },
    { method: 'GET', path: '/mcp', headers: { accept: 'text/event-stream' } },
    { method: 'DELETE', path: '/mcp' },
    { method: 'HEAD', path: '/mcp' },
    {
      method: 'POST',
      path: '/a2a',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: 'route-auth-a2a',
            parts: [{ kind: 'data', data: askBody('route-auth-a2a', { to: { channel: 'test', chat: 'c1' } }) }],
          },
        },
      }),
      headers: json,
    },
    // Console routes behind its cookie session: the console's hook, also matched by route.
    { method: 'GET', path: '/console/events' },
    { method: 'GET', path: '/console/insights/data' },
    {
      method: 'POST',
      path: `/console/asks/${id}/answer`,
      body: JSON.stringify({ answers: { env: ['Production'] } }),
      headers: { ...json, origin: `http://127.0.0.1:${port}` },
    },
    {
      method: 'POST',
      path: `/console/asks/${id}/extend`,
      body: '{"timeoutSeconds": 600}',
      headers: { ...json, origin: `http://127.0.0.1:${port}` },
    },
  ];
};

const enc = (c: string, lower = false) => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};
const slashes = (path: string) => [...path].flatMap((c, i) => (c === '/' ? [i] : []));
const at = (path: string, i: number, insert: string, drop = 0) => path.slice(0, i) + insert + path.slice(i + drop);

/** One random rewrite of a path that a lenient router (or a proxy) might map back to it. */
const rewrites: ((path: string, rand: () => number) => string)[] = [
  (p, r) => {
    const i = Math.floor(r() * p.length);
    return p[i] === '%' ? p : at(p, i, enc(p[i]!, r() < 0.5), 1);
  },
  (p, r) => at(p, slashes(p)[Math.floor(r() * slashes(p).length)]!, '/'),
  (p, r) =>
    at(
      p,
      slashes(p)[Math.floor(r() * slashes(p).length)]!,
      ['/.', '/x/..', '/%2e', '/%2E%2e/x', '/./x/..'][Math.floor(r() * 5)]!,
    ),
  (p, r) => p + ['/', '/.', ';', ';a=1', '%20', '%09', '%00', '#frag', '?x=1', '//'][Math.floor(r() * 10)]!,
  (p, r) => {
    const after = [...slashes(p).slice(1), p.length];
    return at(p, after[Math.floor(r() * after.length)]!, [';', ';x', ';jsessionid=1'][Math.floor(r() * 3)]!);
  },
  (p) => p.replace(/[a-z]/, (c) => c.toUpperCase()),
];

/** Many spellings of `path`: each character encoded alone (upper and lower hex), slashes doubled, dot segments, trailing forms, `;` parameters, case, absolute-form targets, and seeded mixes. */
function spellings(path: string, rand: () => number): string[] {
  const out = new Set<string>();
  for (let i = 0; i < path.length; i++) {
    out.add(at(path, i, enc(path[i]!), 1));
    if (/[a-z0-9]/i.test(path[i]!) || path[i] === '/') out.add(at(path, i, enc(path[i]!, true), 1));
  }
  out.add([...path].map((c) => enc(c)).join(''));
  out.add([...path].map((c) => (/[a-z]/i.test(c) ? enc(c, true) : c)).join(''));
  out.add(path.replaceAll('/', '%2F'));
  out.add(path.replaceAll('/', '//'));
  out.add(`/${path}`);
  for (const i of slashes(path)) {
    out.add(at(path, i, '/'));
    out.add(at(path, i, '/.'));
    out.add(at(path, i, '/x/..'));
    out.add(at(path, i, '/%2e'));
    out.add(at(path, i, '/x/%2E%2E'));
    out.add(at(path, i, '/x/%2e%2E%2f', 1));
  }
  for (const tail of [
    '/',
    '//',
    '/.',
    '/./',
    '/x/..',
    ';',
    ';a=b',
    '%20',
    '%09',
    '%00',
    '%2F',
    '#x',
    '?',
    '?token=' + TOKEN,
  ])
    out.add(path + tail);
  for (const i of [...slashes(path).slice(1), path.length]) out.add(at(path, i, ';p=1'));
  out.add(path.toUpperCase());
  out.add(path.replace(/[a-z]/, (c) => c.toUpperCase()));
  const mixed: string[] = [];
  for (let n = 0; n < 40; n++) {
    let p = path;
    for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) p = rewrites[Math.floor(rand() * rewrites.length)]!(p, rand);
    mixed.push(p);
    out.add(p);
  }
  for (const p of [path, at(path, 1, enc(path[1]!), 1), mixed[0]!, mixed[1]!, path + '/']) {
    for (const authority of [`127.0.0.1:${port}`, 'localhost', 'evil.example', `user@127.0.0.1:${port}`]) {
      out.add(`http://${authority}${p}`);
    }
    out.add(`HTTP://127.0.0.1:${port}${p}`);
    out.add(`https://127.0.0.1:${port}${p}`);
  }
  return [...out];
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/** Why a response gave something away (a 2xx/3xx, a stream, data, an MCP session), or null when it did not. */
function leak(res: RawTargetResponse): string | null {
  if (res.open) return 'the response stayed open (a stream)';
  if (res.status === 0) return null; // the connection was refused or reset: nothing was sent
  if (res.status < 400) return `status ${res.status}`;
  if (res.headers['mcp-session-id']) return 'an MCP session id';
  if (res.text === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `a non-JSON body: ${res.text.slice(0, 80)}`;
  }
  const keys = Object.keys(body as object);
  if (keys.length !== 1 || keys[0] !== 'error') return `data: ${res.text.slice(0, 120)}`;
  const code = (body as { error: { code: unknown } }).error.code;
  return code === 'unauthorized' || code === 'invalid_request' ? null : `error code ${String(code)}`;
}

describe('with ASKGATE_API_TOKEN: no spelling of a protected route gets in without the token', () => {
  it('every route the server has is classified here (a new route must be added to this test)', () => {
    // Rebuild full paths from fastify's route tree ("├── segment (METHODS)", 4 columns per level).
    const found = new Set<string>();
    const stack: string[] = [];
    for (const line of app.server.printRoutes({ commonPrefix: false }).split('\n')) {
      const m = /^([│ ]*)(?:[├└]── )?(\S+) \(([A-Z, ]+)\)$/.exec(line.trimEnd());
      if (!m) continue;
      const depth = m[1]!.length / 4;
      stack.length = depth;
      const full = depth === 0 ? m[2]! : `${stack[depth - 1]!.replace(/\/$/, '')}/${m[2]!.replace(/^\//, '')}`;
      stack[depth] = full;
      for (const method of m[3]!.split(', ')) found.add(`${method} ${full}`);
    }
    const protectedRoutes = [
      'POST /v1/asks',
      'GET /v1/asks',
      'GET /v1/asks/:id',
      'POST /v1/asks/:id/answer',
      'POST /v1/asks/:id/cancel',
      'POST /v1/asks/:id/links',
      'POST /v1/asks/:id/extend',
      'GET /v1/asks/:id/events',
      'GET /v1/runs/:runId',
      'DELETE /v1/runs/:runId',
      'POST /v1/runs/:runId/guard-blocked',
      'GET /v1/runs/:runId/events',
      'GET /v1/channels/:channel/conversations',
      'GET /v1/insights',
      'GET /metrics',
      'GET /mcp',
      'POST /mcp',
      'DELETE /mcp',
      'POST /a2a',
    ];
    const publicRoutes = ['GET /healthz', 'GET /readyz', 'GET /.well-known/agent-card.json'];
    const consoleRoutes = [
      'GET /',
      'GET /console/app.js',
      'GET /console/app.css',
      'GET /console/icon.svg',
      // The console's words, one public JSON per shipped locale (issue 18).
      ...['en', 'pt-BR', 'es', 'fr', 'de', 'ja'].map((tag) => `GET /console/i18n/${tag}.json`),
      'GET /console/session',
      'POST /console/login',
      'POST /console/logout',
      'GET /console/events',
      'POST /console/asks/:id/answer',
      'POST /console/asks/:id/extend',
      // The Insights page (its shell, script, style and words public; its data behind the session).
      'GET /console/insights',
      'GET /console/insights/app.js',
      'GET /console/insights/app.css',
      ...['en', 'pt-BR', 'es', 'fr', 'de', 'ja'].map((tag) => `GET /console/insights/i18n/${tag}.json`),
      ...(CHARTS_AVAILABLE ? ['GET /console/vendor/uplot.js', 'GET /console/vendor/uplot.css'] : []),
      'GET /console/insights/data',
    ];
    // The answer page: the signed token in the path is the credential (src/links/).
    const signed = ['POST /hooks/test', 'GET /a/:token', 'POST /a/:token'];
    const declared = [...protectedRoutes, ...publicRoutes, ...consoleRoutes, ...signed];
    const heads = declared.filter((r) => r.startsWith('GET ')).map((r) => r.replace(/^GET/, 'HEAD'));
    expect([...found].sort()).toEqual([...declared, ...heads].sort());
  });

  it('sends every spelling of every protected route with every method: no 2xx, no data, nothing changed', async () => {
    const rand = seeded(13);
    const requests = protectedTargets().flatMap((t) => spellings(t.path, rand).map((target) => ({ ...t, target })));
    expect(requests.length).toBeGreaterThan(2000);
    const responses = await pool(requests, 16, (r) =>
      sendRaw(port, r.method, r.target, { host: `127.0.0.1:${port}`, ...r.headers }, r.body ?? ''),
    );
    const leaks = requests.flatMap((r, i) => {
      const why = leak(responses[i]!);
      return why ? [`${r.method} ${r.target}: ${why}`] : [];
    });
    expect(leaks).toEqual([]);
    // Most spellings reach a route or no route and get the one 401; the rest are refused as malformed.
    expect(responses.filter((r) => r.status === 401).length).toBeGreaterThan(requests.length * 0.8);

    // Nothing was created, answered or cancelled, and no chat message was sent.
    const ask = await authed.get(`/v1/asks/${existing.id}`);
    expect(ask.body).toMatchObject({ status: 'pending' });
    expect(ask.body.result ?? null).toBeNull();
    expect((await authed.get('/v1/runs/route-auth-forged')).status).toBe(404);
    expect(channel.delivered.map((d) => d.askId)).toEqual([existing.id]);
    expect((await authed.get('/metrics')).body).toMatch(/askgate_asks_created_total\{channel="test"\} 1\b/);
  }, 120_000);

  it('the same spellings with the token reach the route the router matched', async () => {
    const h = { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
    expect((await sendRaw(port, 'GET', `/v%31/runs/${existing.runId}`, h)).status).toBe(200);
    expect((await sendRaw(port, 'GET', '/%6detrics', h)).text).toContain('askgate_');
    expect((await sendRaw(port, 'GET', `http://evil.example/v1/asks/${existing.id}`, h)).status).toBe(200);
  });

  it('a path that matches no route gets the 401, not a 404 that tells routes apart', async () => {
    for (const target of ['/nope', '/v1/nope', '/v1/asks/x/y/z', '/console/nope', '/healthz/x']) {
      const res = await sendRaw(port, 'GET', target, { host: `127.0.0.1:${port}` });
      expect({ target, status: res.status, body: JSON.parse(res.text) }).toEqual({
        target,
        status: 401,
        body: { error: { code: 'unauthorized', message: 'missing or invalid bearer token' } },
      });
    }
    const withToken = await sendRaw(port, 'GET', '/nope', {
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(withToken.status).toBe(404);
  });

  it('the declared public routes answer without a token; console routes are left to the console', async () => {
    const h = { host: `127.0.0.1:${port}` };
    expect(JSON.parse((await sendRaw(port, 'GET', '/healthz', h)).text)).toEqual({ ok: true });
    expect(JSON.parse((await sendRaw(port, 'GET', '/readyz', h)).text)).toEqual({ ok: true });
    expect((await sendRaw(port, 'HEAD', '/healthz', h)).status).toBe(200);
    expect((await sendRaw(port, 'GET', '/', h)).status).toBe(200);
    expect((await sendRaw(port, 'GET', '/console/app.js', h)).status).toBe(200);
    expect(JSON.parse((await sendRaw(port, 'GET', '/console/session', h)).text)).toMatchObject({
      mode: 'token',
      signedIn: false,
    });
    // The console's own answers, not the API's 401: its hook decided.
    expect(JSON.parse((await sendRaw(port, 'GET', '/console/events', h)).text).error.message).toBe(
      'sign in to the console first',
    );
    const login = await sendRaw(
      port,
      'POST',
      '/console/login',
      { ...h, ...json, origin: `http://127.0.0.1:${port}` },
      JSON.stringify({ token: 'not-the-token' }),
    );
    expect(JSON.parse(login.text).error.message).toBe('that is not the API token');
    // A platform webhook route verifies its own signature: it is reached without the bearer token.
    const hook = await sendRaw(port, 'POST', '/hooks/test', { ...h, ...json }, '{}');
    expect({ status: hook.status, text: hook.text }).toEqual({ status: 200, text: 'signed route reached' });
  });

  it('authenticated requests still work on every protected route', async () => {
    expect((await authed.get(`/v1/asks/${existing.id}`)).status).toBe(200);
    expect((await authed.get(`/v1/runs/${existing.runId}`)).status).toBe(200);
    expect((await authed.get(`/v1/asks/${existing.id}/events`)).body.events.length).toBeGreaterThan(0);
    expect((await authed.get(`/v1/runs/${existing.runId}/events`)).status).toBe(200);
    expect((await authed.get('/metrics')).status).toBe(200);
    const mcp = await sendRaw(
      port,
      'POST',
      '/mcp',
      {
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${TOKEN}`,
        ...json,
        accept: 'application/json, text/event-stream',
      },
      initialize,
    );
    expect(mcp.status).toBe(200);
    expect(mcp.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    const created = await authed.post('/v1/asks', askBody('route-auth-ok'));
    expect(created.status).toBe(201);
    expect((await authed.post(`/v1/asks/${created.body.id}/answer`, { answers: { env: ['Staging'] } })).status).toBe(
      200,
    );
    expect((await authed.del('/v1/runs/route-auth-ok')).status).toBe(200);
  });
});

describe('route declarations', () => {
  it('an unknown config.auth value stops the server from starting; an undeclared route needs the token', async () => {
    const typo = Fastify();
    installRouteAuth(typo, TOKEN);
    expect(() => typo.get('/x', { config: { auth: 'publc' } }, async () => 'open')).toThrow(
      /config\.auth must be one of bearer, public, console, signature/,
    );
    await typo.close();

    const plain = Fastify();
    installRouteAuth(plain, TOKEN);
    plain.get('/new-route', async () => 'data');
    const res = await plain.inject({ method: 'GET', url: '/new-route' });
    expect(res.statusCode).toBe(401);
    expect(
      (await plain.inject({ method: 'GET', url: '/new-route', headers: { authorization: `Bearer ${TOKEN}` } })).body,
    ).toBe('data');
    await plain.close();
  });
});
