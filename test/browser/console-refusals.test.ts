import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import type { RunningAskgate } from '../../src/main.js';
import { launchBrowser, openPage } from './browser.js';

// What the page does when askgate refuses it (issue 33): a throttled sign-in says so and when to
// retry; an event stream refused by the cap retries later by itself and goes live once there is room.

const TOKEN = 'console-refusal-token-0123456789';
let app: RunningAskgate;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([
    startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN, ASKGATE_CONSOLE_MAX_STREAMS: '1' })),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('console refusals (real browser)', () => {
  it('a second tab past the stream cap waits, then goes live when the first tab closes', async () => {
    const w = await openPage(browser);
    try {
      const first = w.page;
      await first.goto(app.url + '/');
      await first.getByLabel('API token').fill(TOKEN);
      await first.getByLabel('API token').press('Enter');
      await first.locator('#conn.live').waitFor();

      const second = await w.context.newPage(); // same cookies: the same session
      await second.goto(app.url + '/');
      await second.locator('#conn.offline').waitFor();
      await expect.poll(() => second.locator('#conn').textContent()).toBe('Disconnected; checking…');
      await first.close();
      await second.locator('#conn.live').waitFor({ timeout: 15_000 });
    } finally {
      await w.context.close();
    }
    // The refused streams log "Failed to load resource"; nothing else may go wrong.
    expect(w.errors.filter((e) => !/Failed to load resource|EventSource/.test(e))).toEqual([]);
  }, 30_000);

  it('a throttled sign-in says so on the page, with the wait', async () => {
    const w = await openPage(browser);
    try {
      await w.page.goto(app.url + '/');
      const token = w.page.getByLabel('API token');
      for (let i = 1; i <= 5; i++) {
        await token.fill(`wrong-token-${i}`);
        await token.press('Enter');
        await expect.poll(() => w.page.locator('#login-error').textContent()).toBe('That is not the API token.');
        await w.page.locator('#login-error').evaluate((e) => (e.textContent = ''));
      }
      await token.fill(TOKEN);
      await token.press('Enter');
      await expect
        .poll(() => w.page.locator('#login-error').textContent())
        .toBe('Too many failed sign-ins from this address; try again in 1 s.');
      expect(await w.page.locator('#pending').isVisible()).toBe(false);
    } finally {
      await w.context.close();
    }
  });
});
