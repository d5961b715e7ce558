import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';
import { ConsoleAuth, SESSION_TTL_SECONDS } from '../../src/console/session.js';
import { MemoryConsoleSessions } from '../../src/store/console-sessions.js';
import { ASSETS, shippedSize } from '../../src/console/assets.js';
import { openSse, raw } from './raw-http.js';

const TOKEN = 'console-http-token-0123456789abc';
let open: RunningAskgate;
let locked: RunningAskgate;

beforeAll(async () => {
  [open, locked] = await Promise.all([
    startTestApp(testEnv(), [new RecordingChannel()]),
    startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN })),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.close(), locked?.close()]);
});

const sameOrigin = (app: RunningAskgate) => ({ origin: app.url, host: new URL(app.url).host });

describe('console page and assets', () => {
  it('serves the page with security headers, ETags and gzip', async () => {
    const page = await raw(open.url, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).toContain('<script type="module" src="/console/app.js"></script>');
    expect(page.text).not.toMatch(/<script>|\son\w+=/); // no inline script or handler

    const again = await raw(open.url, 'GET', '/', { 'if-none-match': page.headers.etag as string });
    expect(again.status).toBe(304);
    const zipped = await raw(open.url, 'GET', '/console/app.js', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(Number(zipped.headers['content-length'])).toBe(ASSETS.js.gzip.length);
    expect((await raw(open.url, 'GET', '/console/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('ships a script that parses, never uses innerHTML, and stays small', () => {
    const js = ASSETS.js.body.toString('utf8');
    expect(() => new Function(js)).not.toThrow();
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    const size = shippedSize();
    // 48 KB for the page and its script (typed questions' inputs and refusals took ~4.5 KB, the
    // approval card with its reason field and JSON editor ~5.5 KB with its CSS), plus one language's
    // words (the largest, Japanese: ~6 KB raw). The Extend action of a pending ask took ~0.5 KB,
    // the Insights link and the delivery report's label ~0.1 KB.
    expect(size.raw).toBeLessThan(55_700);
    expect(size.gzip).toBeLessThan(17_500);
  });
});

describe('open console (no ASKGATE_API_TOKEN)', () => {
  it('refuses a non-loopback Host (DNS rebinding)', async () => {
    for (const path of ['/', '/console/session', '/console/events']) {
      expect((await raw(open.url, 'GET', path, { host: 'evil.example:7420' })).status).toBe(403);
    }
    expect((await raw(open.url, 'GET', '/', { host: `localhost:${new URL(open.url).port}` })).status).toBe(200);
  });

  it('answers as web only with the CSRF token and a same-origin Origin', async () => {
    const api = client(open.url);
    const { body: ask } = await api.post('/v1/asks', askBody('run-open'));
    const session = (await raw(open.url, 'GET', '/console/session')).json();
    expect(session).toMatchObject({ mode: 'open', signedIn: true });
    const path = `/console/asks/${ask.id}/answer`;
    const body = { answers: { env: ['Staging'] }, by: 'carol' };
    const csrf = { 'x-askgate-csrf': session.csrf };
    expect((await raw(open.url, 'POST', path, sameOrigin(open), body)).status).toBe(403);
    expect(
      (await raw(open.url, 'POST', path, { ...sameOrigin(open), 'x-askgate-csrf': 'x'.repeat(43) }, body)).status,
    ).toBe(403);
    expect((await raw(open.url, 'POST', path, { ...csrf, origin: 'http://evil.example' }, body)).status).toBe(403);
    expect((await raw(open.url, 'POST', path, csrf, body)).status).toBe(403); // no Origin
    expect(
      (await raw(open.url, 'POST', path, { ...csrf, ...sameOrigin(open) }, { answers: {} })).json().error.code,
    ).toBe('invalid_answer');

    const ok = await raw(open.url, 'POST', path, { ...csrf, ...sameOrigin(open) }, body);
    expect(ok.status).toBe(200);
    expect(ok.json().ask.outcome).toMatchObject({
      status: 'answered',
      text: 'Answered: Staging — by carol',
      by: 'carol',
      channel: 'web',
    });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result.answeredBy).toEqual({ channel: 'web', userId: 'carol' });
    const late = await raw(open.url, 'POST', path, { ...csrf, ...sameOrigin(open) }, { skip: true });
    expect([late.status, late.json().error.code]).toEqual([409, 'already_resolved']);
  });

  it('extends a pending ask as web, by the operator named, only with the CSRF token; 409 once it ended', async () => {
    const api = client(open.url);
    const { body: ask } = await api.post('/v1/asks', askBody('run-extend', { timeoutSeconds: 600 }));
    const session = (await raw(open.url, 'GET', '/console/session')).json();
    const path = `/console/asks/${ask.id}/extend`;
    const headers = { 'x-askgate-csrf': session.csrf, ...sameOrigin(open) };
    expect((await raw(open.url, 'POST', path, sameOrigin(open), { timeoutSeconds: 1800 })).status).toBe(403);
    const refused = await raw(open.url, 'POST', path, headers, { timeoutSeconds: 7200 });
    expect([refused.status, refused.json().error.issues[0].path]).toEqual([400, ['timeoutSeconds']]);
    const ok = await raw(open.url, 'POST', path, headers, { timeoutSeconds: 1800, by: 'carol' });
    expect(ok.status).toBe(200);
    expect(ok.json().ask.history.at(-1)).toMatchObject({ type: 'extended', channel: 'web', userId: 'carol' });
    expect(Date.parse(ok.json().ask.expiresAt)).toBeGreaterThan(Date.parse(ask.expiresAt));
    await api.post(`/v1/asks/${ask.id}/cancel`);
    const late = await raw(open.url, 'POST', path, headers, { timeoutSeconds: 1800 });
    expect([late.status, late.json().error.code]).toEqual([409, 'not_pending']);
  });

  it('streams a snapshot, then changes, without tokens, keys or message ids', async () => {
    const api = client(open.url);
    const { body: before } = await api.post('/v1/asks', askBody('run-sse', { to: { channel: 'test', chat: 'c1' } }), {
      'idempotency-key': 'idem-secret-key-1',
    });
    const stream = await openSse(open.url, '/console/events');
    try {
      expect(stream.status).toBe(200);
      const snapshot = await stream.next((e) => e.event === 'snapshot');
      expect(snapshot.data.asks.map((a: { id: string }) => a.id)).toContain(before.id);
      const { body: after } = await api.post('/v1/asks', askBody('run-sse-2'));
      await stream.next((e) => e.event === 'ask' && e.data.id === after.id && e.data.status === 'pending');
      await api.post(`/v1/asks/${after.id}/answer`, { skip: true });
      const ended = await stream.next(
        (e) => e.event === 'ask' && e.data.id === after.id && e.data.status === 'no_answer',
      );
      expect(ended.data.outcome).toMatchObject({ reason: 'skipped', text: 'Skipped via API' });
      await api.post(`/v1/asks/${before.id}/answer`, { answers: { env: ['Staging'] } });
      await stream.next(
        (e) =>
          e.event === 'ask' &&
          e.data.id === before.id &&
          e.data.history.some((h: { type: string }) => h.type === 'finalized'),
      );
      const text = JSON.stringify(stream.events);
      expect(text).not.toMatch(/idem-secret-key-1|idempotencyKey|messageId|callbackUrl|token/);
      expect(text).not.toContain(`${before.id}.1.`); // button tokens look like <askId>.<version>.<choice>
    } finally {
      stream.close();
    }
  });
});

describe('console with ASKGATE_API_TOKEN', () => {
  const login = (token: string, headers: Record<string, string> = sameOrigin(locked)) =>
    raw(locked.url, 'POST', '/console/login', headers, { token });
  const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0]!;

  it('refuses everything but the page and the login without a session, even with the bearer token', async () => {
    expect((await raw(locked.url, 'GET', '/')).status).toBe(200); // the shell holds no data
    expect((await raw(locked.url, 'GET', '/console/session')).json()).toEqual({ mode: 'token', signedIn: false });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await raw(locked.url, 'GET', '/console/events', bearer)).status).toBe(401);
    expect(
      (
        await raw(
          locked.url,
          'POST',
          '/console/asks/AAAAAAAAAAAAAA/answer',
          { ...bearer, ...sameOrigin(locked) },
          { skip: true },
        )
      ).status,
    ).toBe(401);
    expect((await raw(locked.url, 'GET', '/', { host: 'askgate.example.com' })).status).toBe(200); // with a token any Host is fine
  });

  it('logs in with the token only, same-origin only, and sets a signed HttpOnly SameSite=Strict cookie', async () => {
    const wrong = await login('console-http-token-0123456789abX');
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect((await login(TOKEN, { origin: 'http://evil.example', host: new URL(locked.url).host })).status).toBe(403);
    expect((await login(TOKEN, {})).status).toBe(403);

    const ok = await login(TOKEN);
    expect(ok.status).toBe(200);
    const setCookie = String(ok.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^askgate_session=[A-Za-z0-9_-]{24}\.\d+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/,
    );
    expect(setCookie).not.toContain(TOKEN);
    expect(ok.json()).toMatchObject({ mode: 'token', signedIn: true, csrf: expect.any(String) });

    const behindTls = await login(TOKEN, { ...sameOrigin(locked), 'x-forwarded-proto': 'https' });
    expect(String(behindTls.headers['set-cookie'])).toMatch(/; Secure$/);

    const session = (
      await raw(locked.url, 'GET', '/console/session', { cookie: cookieOf(ok.headers['set-cookie']) })
    ).json();
    expect(session).toEqual({ mode: 'token', signedIn: true, csrf: ok.json().csrf });
    const out = await raw(locked.url, 'POST', '/console/logout', sameOrigin(locked));
    expect([out.status, String(out.headers['set-cookie'])]).toEqual([
      204,
      'askgate_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
    ]);
  });

  it('signing out ends the session on the server: the same cookie is refused afterwards, other sessions stay', async () => {
    const api = client(locked.url, TOKEN);
    const { body: ask } = await api.post('/v1/asks', askBody('run-signout'));
    const [first, second] = [await login(TOKEN), await login(TOKEN)];
    const cookie = cookieOf(first.headers['set-cookie']);
    const keep = cookieOf(second.headers['set-cookie']);
    const answer = (c: string, csrf: string) =>
      raw(
        locked.url,
        'POST',
        `/console/asks/${ask.id}/answer`,
        { cookie: c, ...sameOrigin(locked), 'x-askgate-csrf': csrf },
        { skip: true },
      );
    expect((await raw(locked.url, 'POST', '/console/logout', { cookie, ...sameOrigin(locked) })).status).toBe(204);
    expect((await raw(locked.url, 'GET', '/console/events', { cookie })).status).toBe(401);
    expect((await answer(cookie, first.json().csrf)).status).toBe(401);
    expect((await raw(locked.url, 'GET', '/console/session', { cookie })).json()).toEqual({
      mode: 'token',
      signedIn: false,
    });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    expect((await raw(locked.url, 'GET', '/console/session', { cookie: keep })).json()).toMatchObject({
      signedIn: true,
    });
    expect((await answer(keep, second.json().csrf)).status).toBe(200);
  });

  it('needs a valid cookie, its own CSRF token and a same-origin Origin to answer', async () => {
    const api = client(locked.url, TOKEN);
    const { body: ask } = await api.post('/v1/asks', askBody('run-locked'));
    const a = await login(TOKEN);
    const b = await login(TOKEN);
    const cookie = cookieOf(a.headers['set-cookie']);
    const csrf = a.json().csrf as string;
    const path = `/console/asks/${ask.id}/answer`;
    const answer = { answers: { env: ['Production'] } };
    const tampered = cookie.slice(0, -1) + (cookie.endsWith('A') ? 'B' : 'A');
    const foreign = `askgate_session=${new ConsoleAuth('some-other-token-0123456789', new MemoryConsoleSessions()).issue().cookie}`;

    expect((await raw(locked.url, 'GET', '/console/events', { cookie: tampered })).status).toBe(401);
    expect((await raw(locked.url, 'GET', '/console/events', { cookie: foreign })).status).toBe(401);
    expect((await raw(locked.url, 'POST', path, { cookie, ...sameOrigin(locked) }, answer)).status).toBe(403);
    expect(
      (await raw(locked.url, 'POST', path, { cookie, ...sameOrigin(locked), 'x-askgate-csrf': b.json().csrf }, answer))
        .status,
    ).toBe(403);
    expect(
      (await raw(locked.url, 'POST', path, { cookie, 'x-askgate-csrf': csrf, origin: 'https://evil.example' }, answer))
        .status,
    ).toBe(403);
    expect((await raw(locked.url, 'GET', `/v1/asks/${ask.id}`, { cookie })).status).toBe(401); // the API never takes the cookie
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');

    const ok = await raw(locked.url, 'POST', path, { cookie, ...sameOrigin(locked), 'x-askgate-csrf': csrf }, answer);
    expect(ok.status).toBe(200);
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result.answeredBy).toEqual({ channel: 'web', userId: 'web' });

    const stream = await openSse(locked.url, '/console/events', { cookie });
    try {
      expect(stream.status).toBe(200);
      const snapshot = await stream.next((e) => e.event === 'snapshot');
      expect(snapshot.data.asks.find((x: { id: string }) => x.id === ask.id)?.status).toBe('answered');
    } finally {
      stream.close();
    }
  });

  it('sessions expire, and are bound to the token that signed them', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const auth = new ConsoleAuth(TOKEN, new MemoryConsoleSessions(), { now: () => now });
    const { cookie, sid } = auth.issue();
    expect(auth.verify(cookie)).toBe(sid);
    expect(new ConsoleAuth(TOKEN, new MemoryConsoleSessions(), { now: () => now }).verify(cookie)).toBe(sid); // another replica with the same token
    now += SESSION_TTL_SECONDS * 1000 + 1;
    expect(auth.verify(cookie)).toBeNull();
    expect(auth.verify(`${sid}.9999999999.${'A'.repeat(43)}`)).toBeNull();
  });
});

describe('shutdown', () => {
  it('ends open event streams, so closing askgate does not hang', async () => {
    const app = await startTestApp(testEnv());
    const stream = await openSse(app.url, '/console/events');
    await stream.next((e) => e.event === 'snapshot');
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(2000);
    stream.close();
  });
});
