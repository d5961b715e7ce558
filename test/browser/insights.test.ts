import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { movableClock, seedWeek, type SeededWeek } from '../helpers/insights-seed.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';
import { CHARTS_AVAILABLE } from '../../src/console/insights/page.js';
import { ARTIFACTS, launchBrowser, openPage, type WatchedPage } from './browser.js';

// The seeded week is in 2030 (askgate's clock is the test's): the page is opened on that period.
const END = Date.parse('2030-03-09T15:00:00Z');
const PERIOD = '/console/insights?from=2030-03-03&to=2030-03-09';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let app: RunningAskgate;
let browser: Browser;
let seeded: SeededWeek;
let w: WatchedPage;

beforeAll(async () => {
  const clock = movableClock(END - 8 * 86_400_000);
  [app, browser] = await Promise.all([
    startTestApp(testEnv({ ASKGATE_TIMEOUT_MAX_SECONDS: '864000' }), [new RecordingChannel('test')], { clock }),
    launchBrowser(),
  ]);
  seeded = await seedWeek(app, clock, END);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

afterEach(async () => {
  expect(w.errors).toEqual([]);
  await w.context.close();
});

/** Opens the page and waits for its figures. */
async function open(viewport: { width: number; height: number }, locale: string, path = PERIOD) {
  w = await openPage(browser, viewport, { locale, timezoneId: 'UTC' });
  await w.page.goto(app.url + path);
  await w.page.locator('#figures .figure').first().waitFor();
  return w.page;
}

const figures = (page: WatchedPage['page']) =>
  page
    .locator('#figures .figure')
    .evaluateAll((cards) => cards.map((c) => [...c.querySelectorAll('p')].map((p) => p.textContent ?? '')));

/** True when nothing sticks out sideways (the page fits its viewport). */
const fits = (page: WatchedPage['page']) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe('the Insights page', () => {
  it('desktop, English: the figures with their denominators, tables and charts', async () => {
    const page = await open(DESKTOP, 'en-GB');
    const answered = seeded.outcomes.answered!;
    const pct = (n: number, of: number) =>
      new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 }).format(n / of);
    expect(await figures(page)).toEqual([
      ['Asks ended', String(seeded.asks)],
      ['Answered', String(answered), `${answered} of ${seeded.asks} (${pct(answered, seeded.asks)})`],
      ['Median time to answer', expect.stringMatching(/min|hr|h/), `of ${answered} answered`],
      ['95th percentile time to answer', expect.stringMatching(/hr|h|day/), `of ${answered} answered`],
      ['Pending now', '2', 'of all pending'],
      ['Oldest wait', '50 min'],
    ]);
    const outcomes = await page.locator('#outcomes tr').allTextContents();
    expect(outcomes).toHaveLength(7);
    expect(outcomes).toContain(
      `Cancelled${seeded.outcomes.cancelled} of ${seeded.asks} (${pct(seeded.outcomes.cancelled!, seeded.asks)})`,
    );
    expect(await page.locator('#approvals tr').first().textContent()).toBe(
      `Approvals${seeded.approvals} of ${seeded.asks} (${pct(seeded.approvals, seeded.asks)})`,
    );
    expect(await page.locator('#people tr').allTextContents()).toContain(
      `api:alice${seeded.perPerson['api:alice']} of ${answered} (${pct(seeded.perPerson['api:alice']!, answered)})`,
    );
    expect(await page.locator('#delays tr').allTextContents()).toContain('Pending for: Under 1 h2 of 2 (100%)');
    // uPlot draws on canvases; without the package the tables alone carry the figures.
    expect(await page.locator('.uplot canvas').count()).toBe(CHARTS_AVAILABLE ? 4 : 0);
    expect(await fits(page)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-desktop.png'), fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT)
      copyFileSync(join(ARTIFACTS, 'insights-desktop.png'), resolve(import.meta.dirname, '../../docs/insights.png'));
  });

  it('phone, German: one column that fits, German words and numbers', async () => {
    const page = await open(PHONE, 'de-DE');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.locator('h1').textContent()).toBe('askgate · Auswertung');
    const cards = await figures(page);
    expect(cards[1]).toEqual([
      'Beantwortet',
      String(seeded.outcomes.answered),
      expect.stringMatching(new RegExp(`^${seeded.outcomes.answered} von ${seeded.asks} \\(\\d+,\\d.%\\)$`)),
    ]);
    expect(cards[5]).toEqual(['Längste Wartezeit', '50 Min.']);
    expect(await page.locator('#outcomes tr th').allTextContents()).toContain('Zeit abgelaufen');
    expect(await fits(page)).toBe(true);
    const panels = await page.locator('section.panel').evaluateAll((s) => s.map((e) => e.getBoundingClientRect().x));
    expect(new Set(panels).size).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-phone-de.png'), fullPage: true });
  });

  it('filters by an agent and says what a refused period is', async () => {
    const page = await open(DESKTOP, 'en-GB');
    await page.locator('#dim').selectOption('agent');
    await page.locator('#value').fill('billing-bot');
    await page.locator('#controls button[type=submit]').click();
    await page.waitForURL(/agent=billing-bot/);
    await expect
      .poll(async () => (await figures(page))[0])
      .toEqual(['Asks ended', String(seeded.perAgent['billing-bot'])]);
    await page.locator('#from').fill('2030-03-10');
    await page.locator('#controls button[type=submit]').click();
    await expect
      .poll(() => page.locator('#status.error').textContent())
      .toContain('query parameter from: must not be after to');
    // The browser logs the refused request itself; nothing else went wrong.
    expect(w.errors).toEqual([expect.stringContaining('400 (Bad Request)')]);
    w.errors.length = 0;
  });

  it('the console links to it', async () => {
    w = await openPage(browser, DESKTOP, { locale: 'en-GB', timezoneId: 'UTC' });
    await w.page.goto(app.url + '/');
    await w.page.locator('a.insights').click();
    await w.page.waitForURL(/\/console\/insights/);
    expect(await w.page.locator('h1').textContent()).toBe('askgate · Insights');
  });
});
