import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { ARTIFACTS, launchBrowser, openPage, type WatchedPage } from './browser.js';

let app: RunningAskgate;
let api: ReturnType<typeof client>;
let browser: Browser;
let w: WatchedPage;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(testEnv()), launchBrowser()]);
  api = client(app.url);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

afterEach(async () => {
  expect(w.errors).toEqual([]);
  expect(w.dialogs).toEqual([]);
  await w.context.close();
});

/** Opens the console and waits until its event stream is live. */
async function openConsole(viewport?: { width: number; height: number }, base = app.url): Promise<WatchedPage> {
  w = await openPage(browser, viewport);
  await w.page.goto(base + '/');
  await w.page.locator('#conn.live').waitFor();
  return w;
}

const card = (id: string): Locator => w.page.locator(`#runs [data-ask="${id}"]`);

const THREE_QUESTIONS = {
  questions: [
    {
      id: 'target',
      header: 'Target',
      question: 'Which environment?',
      options: [
        { label: 'Staging (Recommended)', description: 'mirrors production data' },
        { label: 'Production', description: 'live traffic' },
      ],
    },
    {
      id: 'checks',
      header: 'Checks',
      question: 'Which checks should run first?',
      multiSelect: true,
      options: [
        { label: 'Unit tests' },
        { label: 'Smoke tests' },
        { label: 'Load test', description: 'takes 20 minutes' },
      ],
    },
    {
      id: 'window',
      header: 'Window',
      question: 'When may I deploy?',
      options: [{ label: 'Now' }, { label: 'After 18:00' }],
    },
  ],
};

describe('web console (real browser)', () => {
  it('shows an ask created through the API live; clicking an option answers it and ?wait returns answered via web', async () => {
    await openConsole();
    await expect(w.page.locator('#pending-empty').isVisible()).resolves.toBe(true);
    const waiting = api.post('/v1/asks?wait=20', askBody('run-live'));
    const id = await w.page.locator('#runs .ask').first().getAttribute('data-ask', { timeout: 5000 });
    expect(id).toBeTruthy();
    await expect(card(id!).textContent()).resolves.toContain('Where should I deploy?');
    await expect(card(id!).textContent()).resolves.toContain('live traffic'); // the option's description
    await w.page.locator('#operator').fill('alice');
    await card(id!)
      .getByRole('button', { name: /^Production/ })
      .click();
    const waited = await waiting;
    expect(waited.body.status).toBe('answered');
    expect(waited.body.result).toMatchObject({
      answers: { env: ['Production'] },
      answeredBy: { channel: 'web', userId: 'alice' },
    });
    await card(id!).waitFor({ state: 'detached' });

    const past = w.page.locator(`#history-list [data-ask="${id}"]`);
    await past.locator('summary').click();
    const text = await past.textContent();
    expect(text).toContain('Answered: Production — by alice');
    expect(text).toContain('alice via web');
    expect(text).toContain('Answered by alice via web'); // the event history
    expect(text).toContain('Asked');
  });

  it('answers a three-question ask with a multi-select through the stepper, by keyboard and clicks', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', { runId: 'run-stepper', ...THREE_QUESTIONS });
    const c = card(ask.id);
    await c.waitFor();
    await expect(c.locator('.progress').textContent()).resolves.toBe('Question 1 of 3');
    await c.getByRole('button', { name: 'Next' }).click();
    await expect(c.locator('.error').textContent()).resolves.toBe('Choose an option, or write your own answer.');

    await c.getByRole('radio', { name: /^Staging/ }).check();
    await w.page.keyboard.press('Enter'); // submits the step from the radio
    await expect(c.locator('.progress').textContent()).resolves.toBe('Question 2 of 3');
    await expect(c.locator('fieldset:not([hidden]) legend').textContent()).resolves.toContain(
      'Which checks should run first?',
    );
    await c.getByRole('checkbox', { name: 'Unit tests' }).check();
    await c.getByRole('checkbox', { name: /^Load test/ }).check();
    await c.getByRole('button', { name: 'Next' }).click();
    await w.page.screenshot({ path: join(ARTIFACTS, 'console-stepper.png'), fullPage: true });

    await c.getByRole('button', { name: 'Back' }).click();
    await expect(c.getByRole('checkbox', { name: 'Unit tests' }).isChecked()).resolves.toBe(true); // kept
    await c.getByRole('button', { name: 'Next' }).click();
    await c.getByLabel('Other: your own words').last().fill('after the 16:00 standup');
    await expect(c.getByRole('button', { name: 'Submit answers' }).isVisible()).resolves.toBe(true);
    await c.getByRole('button', { name: 'Submit answers' }).click();
    await c.waitFor({ state: 'detached' });

    const { body } = await api.get(`/v1/asks/${ask.id}`);
    expect(body.result).toMatchObject({
      status: 'answered',
      answers: {
        target: ['Staging (Recommended)'],
        checks: ['Unit tests', 'Load test'],
        window: ['after the 16:00 standup'],
      },
      answeredBy: { channel: 'web', userId: 'web' },
    });
  });

  it('keeps a half-filled stepper when other asks change live', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', { runId: 'run-keep', ...THREE_QUESTIONS });
    await card(ask.id)
      .getByRole('radio', { name: /^Production/ })
      .check();
    await card(ask.id).getByRole('button', { name: 'Next' }).click();
    const { body: other } = await api.post('/v1/asks', askBody('run-keep-other'));
    await card(other.id).waitFor();
    await api.post(`/v1/asks/${other.id}/answer`, { answers: { env: ['Staging'] } });
    await card(other.id).waitFor({ state: 'detached' });
    await expect(card(ask.id).locator('.progress').textContent()).resolves.toBe('Question 2 of 3');
    await api.post(`/v1/asks/${ask.id}/cancel`);
  });

  it('sends free text and Skip', async () => {
    await openConsole();
    const { body: free } = await api.post('/v1/asks', askBody('run-free'));
    const { body: skipped } = await api.post('/v1/asks', askBody('run-skip'));
    await card(free.id).getByLabel('Or answer in your own words').fill('the canary cluster, please');
    await card(free.id).getByLabel('Or answer in your own words').press('Enter');
    await card(free.id).waitFor({ state: 'detached' });
    await card(skipped.id).getByRole('button', { name: 'Skip' }).click();
    await card(skipped.id).waitFor({ state: 'detached' });

    expect((await api.get(`/v1/asks/${free.id}`)).body.result).toMatchObject({
      answers: { env: ['the canary cluster, please'] },
      answeredBy: { channel: 'web' },
    });
    expect((await api.get(`/v1/asks/${skipped.id}`)).body.result).toMatchObject({
      status: 'no_answer',
      reason: 'skipped',
      by: { channel: 'web' },
    });
    const history = await w.page.locator('#history-list').textContent();
    expect(history).toContain('Skipped');
    expect(history).not.toContain('canary'); // free text is shown only as "their own words"
  });

  it('is usable with the keyboard alone', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', askBody('run-keys'));
    await card(ask.id).waitFor();
    const focused = () => w.page.evaluate(() => document.activeElement?.textContent ?? '');
    for (let i = 0; i < 10 && !(await focused()).startsWith('Staging'); i++) await w.page.keyboard.press('Tab');
    expect(await focused()).toBe('Staging');
    await w.page.keyboard.press('Enter');
    await card(ask.id).waitFor({ state: 'detached' });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result.answers).toEqual({ env: ['Staging'] });
  });

  it('removes an ask answered elsewhere live and lists it in the history', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', askBody('run-elsewhere'));
    await card(ask.id).getByRole('button', { name: 'Staging' }).focus();
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'bob' });
    await card(ask.id).waitFor({ state: 'detached' });
    await w.page.locator(`#history-list [data-ask="${ask.id}"]`).waitFor();
    expect(await w.page.locator(`#history-list [data-ask="${ask.id}"] summary`).textContent()).toContain('Answered');
    expect(await w.page.evaluate(() => document.activeElement?.id)).toBe('pending-title');
    await w.page.waitForFunction(
      () => document.getElementById('announce')?.textContent === 'run-elsewhere: Answered: Staging — via API',
    );
  });

  it('renders agent strings as text, never as HTML', async () => {
    await openConsole();
    const evil = '<img src=x onerror=alert(1)>';
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'run-xss',
      questions: [
        {
          header: '<b>hdr</b>',
          question: `Deploy ${evil}?`,
          options: [{ label: `<script>alert(2)</script>`, description: evil }, { label: 'Fine' }],
        },
        { question: evil, options: [{ label: 'a' }, { label: '<svg onload=alert(3)>' }] },
      ],
    });
    await card(ask.id).waitFor();
    await w.page.waitForTimeout(300);
    expect(await card(ask.id).locator('legend').first().textContent()).toContain(`Deploy ${evil}?`);
    expect(await w.page.locator('main img, main script, main svg, main b').count()).toBe(0);
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { q1: ['<script>alert(2)</script>'], q2: [evil] } });
    const past = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await past.locator('summary').click();
    expect(await past.textContent()).toContain(evil);
    expect(await w.page.locator('main img, main script, main svg, main b').count()).toBe(0);
  });

  it('writes screenshots of the pending list and the stepper', async () => {
    const fresh = await startTestApp(testEnv()); // an empty history for the README
    try {
      const agent = client(fresh.url);
      await openConsole({ width: 900, height: 1000 }, fresh.url);
      await agent.post('/v1/asks', {
        runId: 'release-2.4',
        questions: [
          {
            header: 'Deploy',
            question: 'Tests passed. Where should I deploy release 2.4?',
            options: [
              { label: 'Staging (Recommended)', description: 'mirrors production data; safe to try' },
              { label: 'Production', description: 'live traffic, 12 000 users' },
              { label: 'Nowhere yet', description: 'keep the build, I will decide later' },
            ],
          },
        ],
      });
      const { body: migration } = await agent.post('/v1/asks', { runId: 'db-migration-7', ...THREE_QUESTIONS });
      const { body: done } = await agent.post('/v1/asks', askBody('docs-refresh'));
      await w.page.locator('#operator').fill('alice');
      await card(done.id).getByRole('button', { name: 'Staging' }).click();
      const { body: skipped } = await agent.post('/v1/asks', askBody('nightly-cleanup'));
      await agent.post(`/v1/asks/${skipped.id}/answer`, { skip: true, by: 'bob' });
      await card(migration.id).waitFor();
      await w.page.locator(`#history-list [data-ask="${skipped.id}"]`).waitFor();
      await w.page.locator(`#history-list [data-ask="${done.id}"] summary`).click();
      await w.page.evaluate(() => window.scrollTo(0, 0));
      const pendingShot = join(ARTIFACTS, 'console-pending.png');
      await w.page.screenshot({ path: pendingShot, fullPage: true });
      expect(w.errors).toEqual([]);
      await w.context.close();

      await openConsole({ width: 390, height: 760 }, fresh.url);
      await card(migration.id)
        .getByRole('radio', { name: /^Staging/ })
        .check();
      await card(migration.id).getByRole('button', { name: 'Next' }).click();
      await card(migration.id).getByRole('checkbox', { name: 'Smoke tests' }).check();
      await card(migration.id).evaluate((node) => node.scrollIntoView());
      await w.page.screenshot({ path: join(ARTIFACTS, 'console-stepper-phone.png') });
      expect(existsSync(pendingShot)).toBe(true);

      // The README's screenshot is refreshed on request only, so test runs leave the tree clean.
      const docs = resolve(import.meta.dirname, '../../docs/console.png');
      if (process.env.UPDATE_DOCS_SCREENSHOT === '1' || !existsSync(docs)) copyFileSync(pendingShot, docs);
      expect(w.errors).toEqual([]);
    } finally {
      await w.context.close(); // before askgate stops, so the page does not log a refused reconnect
      await fresh.close();
    }
  });
});
