import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { ConsoleAuth, SESSION_TTL_SECONDS } from '../../src/console/session.js';
import { SESSION_CHECK_MS } from '../../src/console/hub.js';
import { MemoryConsoleSessions, RedisConsoleSessions } from '../../src/store/console-sessions.js';
import { launchBrowser, openPage } from './browser.js';
import { openSse, raw } from './raw-http.js';

const TOKEN = 'console-logout-token-0123456789ab';
let redis: TestRedis;
let peek: Redis;
let prefix: string;
let a: RunningAskgate;
let b: RunningAskgate;

beforeAll(async () => {
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN });
  prefix = env.ASKGATE_KEY_PREFIX!;
  [a, b] = await Promise.all([startTestApp(env), startTestApp(env)]);
  peek = new Redis(redis.url);
});

afterAll(async () => {
  peek?.disconnect();
  await Promise.all([a?.close(), b?.close()]);
  await redis?.dispose();
});

const sameOrigin = (app: RunningAskgate) => ({ origin: app.url, host: new URL(app.url).host });
const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0]!;

/** Signs in on `app`: the `Cookie` header value and the session's CSRF token. */
async function login(app: RunningAskgate): Promise<{ cookie: string; csrf: string }> {
  const res = await raw(app.url, 'POST', '/console/login', sameOrigin(app), { token: TOKEN });
  expect(res.status).toBe(200);
  return { cookie: cookieOf(res.headers['set-cookie']), csrf: res.json().csrf };
}

const logout = (app: RunningAskgate, cookie?: string) =>
  raw(app.url, 'POST', '/console/logout', { ...sameOrigin(app), ...(cookie ? { cookie } : {}) });
/** Status of `GET /console/events` with this cookie (a stream that opens is closed at once). */
async function events(app: RunningAskgate, cookie: string): Promise<number> {
  const stream = await openSse(app.url, '/console/events', { cookie });
  stream.close();
  return stream.status;
}
/** Status of a skip sent with this session. */
const skip = (app: RunningAskgate, s: { cookie: string; csrf: string }, askId: string) =>
  raw(
    app.url,
    'POST',
    `/console/asks/${askId}/answer`,
    { cookie: s.cookie, 'x-askgate-csrf': s.csrf, ...sameOrigin(app) },
    { skip: true },
  ).then((r) => r.status);
const signedIn = (app: RunningAskgate, cookie: string) =>
  raw(app.url, 'GET', '/console/session', { cookie }).then((r) => r.json().signedIn);
const revokedKeys = () => peek.keys(`${prefix}:console:revoked:*`);
/** True when `ended` settles within `ms`. */
const within = (ended: Promise<void>, ms: number) =>
  Promise.race([ended.then(() => true), new Promise<boolean>((done) => setTimeout(() => done(false), ms))]);

describe('console sign-out ends the session on the server (two replicas, one Redis)', () => {
  it('a copied cookie is refused on every replica at once, its open streams end, other sessions stay', async () => {
    const api = client(a.url, TOKEN);
    const { body: ask } = await api.post('/v1/asks', askBody('run-logout'));
    const { body: later } = await api.post('/v1/asks', askBody('run-logout-other'));
    const copied = await login(a); // signed in on replica a; someone holds a copy of this cookie
    const other = await login(b);
    for (const app of [a, b])
      expect([await events(app, copied.cookie), await signedIn(app, copied.cookie)]).toEqual([200, true]);
    const streamA = await openSse(a.url, '/console/events', { cookie: copied.cookie });
    const streamB = await openSse(b.url, '/console/events', { cookie: copied.cookie });
    const otherStream = await openSse(b.url, '/console/events', { cookie: other.cookie });
    try {
      await Promise.all([streamA, streamB, otherStream].map((s) => s.next((e) => e.event === 'snapshot')));

      const out = await logout(a, copied.cookie);
      expect([out.status, String(out.headers['set-cookie'])]).toEqual([
        204,
        'askgate_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
      ]);

      // Refused at once on both replicas: the stream, an answer (with the right CSRF token), the session.
      for (const app of [a, b]) {
        expect(await events(app, copied.cookie)).toBe(401);
        expect(await skip(app, copied, ask.id)).toBe(401);
        expect(await signedIn(app, copied.cookie)).toBe(false);
      }
      expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');

      // Its open streams end: on this replica at once, on the other within one session check.
      expect(await within(streamA.ended, 500)).toBe(true);
      expect(await within(streamB.ended, SESSION_CHECK_MS + 1500)).toBe(true);

      // The other session is untouched, on both replicas, and its stream stays open.
      expect(await within(otherStream.ended, 200)).toBe(false);
      expect(await events(a, other.cookie)).toBe(200);
      expect(await skip(a, other, ask.id)).toBe(200);
      await otherStream.next((e) => e.event === 'ask' && e.data.id === ask.id && e.data.status === 'no_answer');
      expect(await skip(b, other, later.id)).toBe(200);

      // One key for the ended session, living as long as its cookie would have.
      const keys = await revokedKeys();
      expect(keys).toEqual([`${prefix}:console:revoked:${copied.cookie.split('=')[1]!.split('.')[0]}`]);
      const ttl = await peek.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan((SESSION_TTL_SECONDS - 60) * 1000);
      expect(ttl).toBeLessThanOrEqual(SESSION_TTL_SECONDS * 1000);

      // Signing out again, on either replica, is harmless.
      expect((await logout(b, copied.cookie)).status).toBe(204);
      expect(await revokedKeys()).toHaveLength(1);
    } finally {
      for (const s of [streamA, streamB, otherStream]) s.close();
    }
  });

  it('forged, foreign and expired cookies are refused; signing out with them writes nothing', async () => {
    const { cookie } = await login(a);
    const value = cookie.split('=')[1]!;
    const tampered = `askgate_session=${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    const foreign = `askgate_session=${new ConsoleAuth('some-other-token-0123456789', new MemoryConsoleSessions()).issue().cookie}`;
    const expiredAt = Date.now() - (SESSION_TTL_SECONDS + 60) * 1000; // issued 7 days and a minute ago
    const expired = `askgate_session=${new ConsoleAuth(TOKEN, new MemoryConsoleSessions(), { now: () => expiredAt }).issue().cookie}`;
    const hostile = [
      'askgate_session=',
      'askgate_session=../../x',
      `askgate_session=${'A'.repeat(24)}.9999999999.${'A'.repeat(43)}`,
      `askgate_session=${value}.x`,
    ];
    const before = await revokedKeys();
    for (const bad of [tampered, foreign, expired, ...hostile]) {
      for (const app of [a, b])
        expect([bad, await events(app, bad), await signedIn(app, bad)]).toEqual([bad, 401, false]);
      expect((await logout(a, bad)).status).toBe(204); // clears the browser's cookie, ends nothing
    }
    expect((await logout(b)).status).toBe(204); // no cookie at all
    expect(await revokedKeys()).toEqual(before);
    for (const app of [a, b]) expect(await events(app, cookie)).toBe(200); // the real session was not touched
  });

  it('a sign-out needs a same-origin Origin, so a cross-site page cannot end (or probe) a session', async () => {
    const { cookie } = await login(b);
    expect(
      (
        await raw(b.url, 'POST', '/console/logout', {
          cookie,
          origin: 'https://evil.example',
          host: new URL(b.url).host,
        })
      ).status,
    ).toBe(403);
    expect((await raw(b.url, 'POST', '/console/logout', { cookie })).status).toBe(403);
    expect(await signedIn(a, cookie)).toBe(true);
  });
});

describe('console session stores', () => {
  it('Redis: a revoked sid is seen by every store on the same prefix, and only there', async () => {
    const now = Date.parse('2026-03-01T00:00:00Z');
    const clock = { now: () => now };
    const one = new RedisConsoleSessions(peek, { prefix: `${prefix}x`, clock });
    const two = new RedisConsoleSessions(peek, { prefix: `${prefix}x`, clock });
    const elsewhere = new RedisConsoleSessions(peek, { prefix: `${prefix}y`, clock });
    await one.revoke('s1', now + 60_000);
    await one.revoke('s0', now - 1); // already expired: nothing to keep
    expect(await two.revoked(['s1', 's2', 's1', 's0', 'constructor'])).toEqual(new Set(['s1']));
    expect(await elsewhere.revoked(['s1'])).toEqual(new Set());
    expect(await peek.pttl(`${prefix}x:console:revoked:s1`)).toBeGreaterThan(59_000);
    expect(await peek.exists(`${prefix}x:console:revoked:s0`)).toBe(0);
  });

  it('memory: a revocation lasts until the cookie would expire, then is forgotten', async () => {
    let now = 1_000_000;
    const store = new MemoryConsoleSessions({ now: () => now });
    await store.revoke('s1', now + 1000);
    await store.revoke('toString', now + 5000);
    expect(await store.revoked(['s1', 'toString', 'constructor', 'hasOwnProperty'])).toEqual(
      new Set(['s1', 'toString']),
    );
    now += 1000;
    expect(await store.revoked(['s1', 'toString'])).toEqual(new Set(['toString']));
    await store.revoke('s2', now - 1);
    expect(await store.revoked(['s2'])).toEqual(new Set());
  });
});

describe('console sign-out while Redis is down', () => {
  it('answers 503 and keeps the cookie, so the sign-out can be retried; it works once Redis is back', async () => {
    const down = await startRedis();
    const app = await startTestApp(testEnv({ REDIS_URL: down.url, ASKGATE_API_TOKEN: TOKEN }));
    try {
      const { cookie } = await login(app);
      await down.stop();
      const out = await logout(app, cookie);
      expect([out.status, out.json().error.code, out.headers['set-cookie']]).toEqual([
        503,
        'store_unavailable',
        undefined,
      ]);
      expect((await raw(app.url, 'GET', '/console/session', { cookie })).status).toBe(503); // never "signed in" unchecked
      expect((await raw(app.url, 'GET', '/', { cookie })).status).toBe(200); // the page shell needs no session, so it still loads
      await down.restart();
      const again = await eventually(async () => {
        const res = await logout(app, cookie);
        return res.status === 204 && res;
      });
      expect(String(again.headers['set-cookie'])).toContain('Max-Age=0');
      expect(await signedIn(app, cookie)).toBe(false);
    } finally {
      await app.close();
      await down.dispose();
    }
  });
});

describe('console page while Redis is down (real browser)', () => {
  it('says so and retries; a sign-out it could not record keeps the session, and works once Redis is back', async () => {
    // The browser first: without chromium this fails before a redis-server is started (and left running).
    const browser = await launchBrowser();
    const down = await startRedis();
    const app = await startTestApp(testEnv({ REDIS_URL: down.url, ASKGATE_API_TOKEN: TOKEN }));
    const w = await openPage(browser);
    const { page } = w;
    try {
      await page.goto(app.url + '/');
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API token').press('Enter');
      await page.locator('#conn.live').waitFor();
      await down.stop();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForFunction(
        () =>
          document.getElementById('login-error')?.textContent ===
          'askgate could not end the session; reload and sign out again.',
      );
      expect(await w.context.cookies()).toHaveLength(1); // kept, so the sign-out can be retried
      await page.reload();
      await page.locator('#conn.offline').waitFor();
      expect(await page.locator('#conn').textContent()).toBe('askgate is unreachable; retrying…');
      await down.restart();
      await page.locator('#conn.live').waitFor({ timeout: 10_000 }); // no reload needed
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForFunction(() => document.getElementById('login-error')?.textContent === 'Signed out.');
      expect(await w.context.cookies()).toEqual([]);
    } finally {
      await w.context.close();
      await browser.close();
      await app.close();
      await down.dispose();
    }
    expect(w.dialogs).toEqual([]);
  });
});
