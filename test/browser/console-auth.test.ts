import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { launchBrowser, openPage } from './browser.js';

const TOKEN = 'console-browser-token-0123456789';
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN })), launchBrowser()]);
  api = client(app.url, TOKEN);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Status of a request made by the page itself (same origin, with its cookies). */
const pageFetch = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  `fetch(${JSON.stringify(path)}, ${JSON.stringify({ credentials: 'same-origin', ...init })}).then((r) => r.status)`;

describe('web console with ASKGATE_API_TOKEN (real browser)', () => {
  it('refuses access without the token and accepts it after login', async () => {
    const { body: ask } = await api.post(
      '/v1/asks',
      askBody('run-secret', {
        questions: [{ id: 'env', question: 'Secret question?', options: [{ label: 'Yes' }, { label: 'No' }] }],
      }),
    );
    const w = await openPage(browser);
    const { page, context } = w;
    try {
      await page.goto(app.url + '/');
      await page.locator('#login').waitFor();
      expect(await page.locator('#pending').isVisible()).toBe(false);
      expect(await page.content()).not.toContain('Secret question?');
      expect(await page.evaluate(pageFetch('/console/events'))).toBe(401);
      expect(
        await page.evaluate(
          pageFetch(`/console/asks/${ask.id}/answer`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"skip":true}',
          }),
        ),
      ).toBe(401);

      await page.getByLabel('API token').fill('not-the-token-at-all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('#login-error').textContent()).toBe('That is not the API token.');
      expect(await context.cookies()).toEqual([]);

      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API token').press('Enter');
      const c = page.locator(`#runs [data-ask="${ask.id}"]`);
      await c.waitFor();
      await page.locator('#conn.live').waitFor();
      expect(await c.textContent()).toContain('Secret question?');

      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({
        name: 'askgate_session',
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: false,
      });
      expect(cookies[0]!.value).not.toContain(TOKEN);
      expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: scripts cannot read it

      // Signed in, but a POST without the CSRF header is still refused.
      expect(
        await page.evaluate(
          pageFetch(`/console/asks/${ask.id}/answer`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"skip":true}',
          }),
        ),
      ).toBe(403);
      expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');

      // The session survives a reload: the token is asked once.
      await page.reload();
      await c.waitFor();
      expect(await page.locator('#login').isVisible()).toBe(false);

      const waiting = api.get(`/v1/asks/${ask.id}?wait=10`);
      await c.getByRole('button', { name: 'Yes' }).click();
      expect((await waiting).body.result).toMatchObject({
        status: 'answered',
        answers: { env: ['Yes'] },
        answeredBy: { channel: 'web', userId: 'web' },
      });

      const copied = await context.cookies(); // as if someone had copied the cookie out of this browser
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.locator('#login').waitFor();
      await expect(page.locator('#login-error').textContent()).resolves.toBe('Signed out.');
      expect(await page.evaluate(pageFetch('/console/events'))).toBe(401);
      expect(await context.cookies()).toEqual([]);

      // The copied cookie was ended on the server: another browser holding it gets the login page.
      const thief = await openPage(browser);
      try {
        await thief.context.addCookies(copied);
        await thief.page.goto(app.url + '/');
        await thief.page.locator('#login').waitFor({ timeout: 5000 });
        expect(await thief.page.locator('#pending').isVisible()).toBe(false);
        expect(await thief.page.evaluate(pageFetch('/console/events'))).toBe(401);
        expect(await thief.page.evaluate(pageFetch('/console/session'))).toBe(200);
        expect(
          await thief.page.evaluate('fetch("/console/session").then((r) => r.json()).then((j) => j.signedIn)'),
        ).toBe(false);
      } finally {
        await thief.context.close();
      }
    } finally {
      await context.close();
    }
    // The refused requests above log "Failed to load resource"; nothing else may go wrong.
    expect(w.errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
    expect(w.dialogs).toEqual([]);
  });
});
