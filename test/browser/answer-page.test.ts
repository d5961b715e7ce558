import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';
import { ARTIFACTS, launchBrowser } from './browser.js';

// The answer page (issue 38) in a real Chromium: keyboard only and without JavaScript, on a phone
// (360×740, nothing wider than the screen), a right-to-left question, an approval's reject with a
// reason, and a typed value refused by askgate then fixed.

const PUBLIC = 'https://askgate.example.com';
const SECRET = 'browser-link-secret-0123456789abcdefgh';

let app: RunningAskgate;
let api: ReturnType<typeof client>;
let browser: Browser;
const channel = new RecordingChannel('test');

beforeAll(async () => {
  [app, browser] = await Promise.all([
    startTestApp(testEnv({ ASKGATE_PUBLIC_URL: PUBLIC, ASKGATE_LINK_SECRET: SECRET }), [channel]),
    launchBrowser(),
  ]);
  api = client(app.url);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

let runs = 0;
/** Creates an ask to the test channel and returns its id and its page's local URL. */
async function ask(extra: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const created = await api.post(
    '/v1/asks',
    askBody(`browser-page-${++runs}`, { to: { channel: 'test', chat: 'c1' }, timeoutSeconds: 600, ...extra }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const link = await api.post(`/v1/asks/${created.body.id}/links`, {});
  expect(link.status).toBe(200);
  return { id: created.body.id, url: app.url + (link.body.url as string).slice(PUBLIC.length) };
}

/** A fresh context: no JavaScript unless asked (the page must work without it). */
async function open(
  url: string,
  opts: { js?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    javaScriptEnabled: opts.js ?? false,
    viewport: opts.viewport ?? { width: 1000, height: 900 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  const page = await context.newPage();
  await page.goto(url);
  return { context, page };
}

const result = async (id: string) => (await api.get(`/v1/asks/${id}`)).body.result;

describe('the answer page in Chromium', () => {
  it('a choice answered with the keyboard only, JavaScript off', async () => {
    const { id, url } = await ask({});
    const { context, page } = await open(url);
    try {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('c0-0');
      await page.keyboard.press('ArrowDown'); // moves to and selects "Production"
      expect(await page.isChecked('#c0-1')).toBe(true);
      await page.keyboard.press('Tab'); // own words
      await page.keyboard.press('Tab'); // Send
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Send');
      await Promise.all([page.waitForURL(url), page.keyboard.press('Enter')]);
      await page.getByText('Thank you').waitFor();
      expect(await result(id)).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
      await eventually(async () => channel.finalized.some((f) => f.outcome.text.includes('Production')));
    } finally {
      await context.close();
    }
  });

  it('on a 360×740 phone nothing is wider than the screen (screenshot for the README)', async () => {
    const { url } = await ask({
      questions: [
        {
          id: 'env',
          header: 'Deploy',
          question:
            'Deploy build 4f2a9c1 (release-2026-12-07-hotfix-for-the-very-long-branch-name) to which environment?',
          options: [
            { label: 'Staging', description: 'safe: no customer traffic' },
            { label: 'Production', description: 'live traffic in eu-west-1 and us-east-1' },
          ],
        },
        { id: 'when', question: 'When should it start?', kind: 'datetime' },
        { id: 'note', question: 'Anything the on-call person should know?', kind: 'text', maxLength: 500 },
      ],
    });
    const { context, page } = await open(url, { js: true, viewport: { width: 360, height: 740 } });
    try {
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      expect(await page.locator('input[type="datetime-local"]').count()).toBe(1);
      expect(await page.locator('textarea#o2').getAttribute('maxlength')).toBe('500');
      // docs/answer-page.png is a copy of this one.
      await page.screenshot({ path: resolve(ARTIFACTS, 'answer-page-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('a right-to-left question reads right to left; the page around it stays left to right', async () => {
    const { id, url } = await ask({
      locale: 'en',
      questions: [{ id: 'q', question: 'هل ننشر الإصدار الآن؟', options: [{ label: 'نعم' }, { label: 'لا' }] }],
    });
    const { context, page } = await open(url, { js: true });
    try {
      const direction = (selector: string) =>
        page
          .locator(selector)
          .first()
          .evaluate((el) => getComputedStyle(el).direction);
      expect(await direction('legend span[dir="auto"]')).toBe('rtl');
      expect(await direction('label[for="c0-0"] span')).toBe('rtl');
      expect(await direction('h1')).toBe('ltr');
      await page.click('label[for="c0-0"]');
      await Promise.all([page.waitForURL(url), page.click('button[type="submit"]:not([name])')]);
      await page.getByText('Thank you').waitFor();
      expect(await result(id)).toMatchObject({ answers: { q: ['نعم'] } });
    } finally {
      await context.close();
    }
  });

  it('an approval: the full arguments and hash shown; Reject needs a reason, then ends the ask', async () => {
    const created = await api.post('/v1/asks', {
      runId: `browser-approval-${++runs}`,
      to: { channel: 'test', chat: 'c1' },
      timeoutSeconds: 600,
      approval: {
        action: 'payments.refund',
        arguments: { order: 'A-1001', amount: 120.5, notify: { email: true, sms: false } },
        summary: 'Refund order A-1001',
        preview: 'Refund €120.50 to the card ending 4242',
        decisions: ['approve', 'reject', 'request_changes', 'edit'],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const link = await api.post(`/v1/asks/${id}/links`, {});
    const url = app.url + (link.body.url as string).slice(PUBLIC.length);
    const { context, page } = await open(url);
    try {
      const text = await page.locator('main').innerText();
      expect(text).toContain('Refund order A-1001');
      expect(text).toContain('"sms": false');
      expect(text).toContain('Refund €120.50');
      const hash = (await api.get(`/v1/asks/${id}`)).body.approval.actionHash as string;
      expect(text).toContain(hash);
      expect(await page.locator('textarea#arguments').inputValue()).toContain('"order": "A-1001"');
      await Promise.all([page.waitForURL(url), page.click('button[value="reject"]')]);
      await page.locator('.problem').waitFor();
      expect(await page.locator('.problem').innerText()).toContain('Say why');
      expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
      await page.fill('#reason', 'the customer already got a voucher');
      await Promise.all([page.waitForURL(url), page.click('button[value="reject"]')]);
      await page.getByText('Rejected by').waitFor();
      expect(await result(id)).toMatchObject({ status: 'answered', decision: 'reject' });
    } finally {
      await context.close();
    }
  });

  it('a typed number: the browser holds an out-of-range value; one askgate refuses is shown beside its field, then fixed', async () => {
    const { id, url } = await ask({
      questions: [{ id: 'n', question: 'How many replicas?', kind: 'number', min: 1, max: 9, integer: true }],
    });
    const { context, page } = await open(url, { js: true });
    try {
      expect(await page.getAttribute('#o0', 'type')).toBe('number');
      expect(await page.getAttribute('#o0', 'min')).toBe('1');
      expect(await page.getAttribute('#o0', 'max')).toBe('9');
      await page.fill('#o0', '42');
      await page.click('button[type="submit"]:not([name])');
      // The browser's own check stops it: nothing was sent.
      expect(
        await page.evaluate(() => (document.querySelector('#o0') as HTMLInputElement).validity.rangeOverflow),
      ).toBe(true);
      expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
      // A browser without that check: askgate refuses it beside the field, keeping what was typed.
      await page.$eval('form', (form) => ((form as HTMLFormElement).noValidate = true));
      await Promise.all([page.waitForURL(url), page.click('button[type="submit"]:not([name])')]);
      await page.locator('#p0').waitFor();
      expect(await page.locator('#p0').innerText()).toMatch(/9/);
      expect(await page.inputValue('#o0')).toBe('42');
      expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
      await page.fill('#o0', '3');
      await Promise.all([page.waitForURL(url), page.click('button[type="submit"]:not([name])')]);
      await page.getByText('Thank you').waitFor();
      expect(await result(id)).toMatchObject({ answers: { n: ['3'] } });
    } finally {
      await context.close();
    }
  });
});
