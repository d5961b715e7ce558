import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
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

/** Opens the console (an English browser in UTC unless told) and waits until its event stream is live. */
async function openConsole(where?: { locale: string; timezoneId: string }): Promise<WatchedPage> {
  w = await openPage(browser, undefined, where);
  await w.page.goto(app.url + '/');
  await w.page.locator('#conn.live').waitFor();
  return w;
}

/** Creates an ask and waits for its card. */
async function ask(runId: string, questions: object[], extra: object = {}): Promise<{ id: string; card: Locator }> {
  const { status, body } = await api.post('/v1/asks', { runId, questions, ...extra });
  expect(status).toBe(201);
  const card = w.page.locator(`#runs [data-ask="${body.id}"]`);
  await card.waitFor();
  return { id: body.id, card };
}

/** A field's tag and the attributes an input's constraints set (absent ones left out). */
async function attributes(field: Locator): Promise<Record<string, string>> {
  return field.evaluate((node) => {
    const out: Record<string, string> = { tag: node.tagName.toLowerCase() };
    for (const name of ['type', 'min', 'max', 'step', 'minlength', 'maxlength'])
      if (node.hasAttribute(name)) out[name] = node.getAttribute(name)!;
    return out;
  });
}

/** The visible step's field, its hint and the text beside it. */
const field = (card: Locator) => card.locator('fieldset:not([hidden]) .field').locator('input, textarea');
const hint = (card: Locator) => card.locator('fieldset:not([hidden]) .hint');
const beside = (card: Locator) => card.locator('fieldset:not([hidden]) .unit');
const problem = (card: Locator) => card.locator('fieldset:not([hidden]) .error');
const next = (card: Locator) => card.locator('.actions button[type=submit]');
/** The browser logs each refused answer (a 400) as a failed load: expected here, then cleared. */
function expectRefusals(count: number) {
  expect(w.errors).toEqual(Array(count).fill(expect.stringMatching(/status of 400/)));
  w.errors.length = 0;
}

describe('web console: typed questions (real browser)', () => {
  it('draws each kind with its HTML input, constraints and expected sentence', async () => {
    await openConsole();
    const first = await ask('run-typed-a', [
      { id: 'subject', kind: 'text', question: 'Subject line?', minLength: 3, maxLength: 80 },
      { id: 'notes', kind: 'text', question: 'Release notes?' },
      { id: 'disk', kind: 'number', question: 'Disk size?', min: 1, max: 10, integer: true, unit: 'GB' },
    ]);
    let c = first.card;
    expect(await attributes(field(c))).toEqual({
      tag: 'input',
      type: 'text',
      minlength: '3',
      maxlength: '80',
    });
    expect(await hint(c).textContent()).toBe('Please answer in your own words, 3 to 80 characters.');
    await field(c).fill('Release 4.2');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'textarea', maxlength: '1000' });
    expect(await hint(c).textContent()).toBe('Please answer in your own words, at most 1000 characters.');
    await field(c).fill('Fixes the login loop.');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'number', min: '1', max: '10', step: '1' });
    expect(await beside(c).textContent()).toBe('GB');
    expect(await hint(c).textContent()).toBe(
      'Please answer with a whole number in GB between 1 and 10, for example 10 GB.',
    );
    // The field is named by its question and described by its unit and hint.
    expect(await field(c).getAttribute('aria-describedby')).toMatch(/-beside .*-hint .*-problem$/);
    await expect(c.getByRole('spinbutton', { name: 'Disk size?' }).count()).resolves.toBe(1);

    const second = await ask('run-typed-b', [
      { id: 'ratio', kind: 'number', question: 'Ratio?' },
      { id: 'day', kind: 'date', question: 'Which day?', min: '2026-12-01', max: '2026-12-31' },
      { id: 'at', kind: 'time', question: 'What time?', min: '09:00', max: '17:00' },
    ]);
    c = second.card;
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'number', step: 'any' });
    await field(c).fill('0.5');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'date', min: '2026-12-01', max: '2026-12-31' });
    expect(await hint(c).textContent()).toBe(
      'Please answer with a date between 2026-12-01 and 2026-12-31, for example 2026-12-01.',
    );
    await field(c).fill('2026-12-08');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'time', min: '09:00', max: '17:00' });

    const third = await ask(
      'run-typed-c',
      [
        { id: 'when', kind: 'datetime', question: 'When?', min: '2026-12-01T09:00:00Z', max: '2026-12-31T17:00:00Z' },
        { id: 'mail', kind: 'email', question: 'Which address?' },
        { id: 'link', kind: 'url', question: 'Which page?' },
      ],
      { timeZone: 'Europe/Berlin' },
    );
    c = third.card;
    // The bounds as wall times in the ask's zone (Berlin is UTC+1 in December), the zone beside.
    expect(await attributes(field(c))).toEqual({
      tag: 'input',
      type: 'datetime-local',
      min: '2026-12-01T10:00',
      max: '2026-12-31T18:00',
    });
    expect(await beside(c).textContent()).toBe('time zone Europe/Berlin');
    await field(c).fill('2026-12-08T14:30');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'email' });
    expect(await hint(c).textContent()).toBe('Please answer with an email address, for example name@example.com.');
    await w.page.screenshot({ path: join(ARTIFACTS, 'console-typed.png'), fullPage: true });
    await field(c).fill('ops@example.com');
    await next(c).click();
    expect(await attributes(field(c))).toEqual({ tag: 'input', type: 'url' });
    await expect(next(c).textContent()).resolves.toBe('Submit answers');
  });

  it("an answer typed in the page reaches the ask's values; the history shows numbers and dates, never free text", async () => {
    await openConsole();
    const { id, card } = await ask(
      'run-typed-submit',
      [
        { id: 'disk', kind: 'number', question: 'Disk size?', min: 1, max: 10, integer: true, unit: 'GB' },
        { id: 'when', kind: 'datetime', question: 'When?' },
        { id: 'subject', kind: 'text', question: 'Subject line?', maxLength: 80 },
      ],
      { timeZone: 'America/Sao_Paulo' },
    );
    await field(card).fill('7');
    await w.page.keyboard.press('Enter'); // Enter in a field goes to the next step
    await field(card).fill('2026-12-08T14:30');
    await next(card).click();
    await field(card).fill('Secret subject 1234');
    await next(card).click();
    await card.waitFor({ state: 'detached' });

    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.status).toBe('answered');
    expect(body.result.values).toEqual({
      disk: 7,
      when: '2026-12-08T14:30:00-03:00', // the wall time read in the ask's time zone
      subject: 'Secret subject 1234',
    });
    expect(body.result.answeredBy).toMatchObject({ channel: 'web', userId: 'web' });

    const past = w.page.locator(`#history-list [data-ask="${id}"]`);
    await past.locator('summary').click();
    const outcome = await past.locator('.outcome').textContent();
    expect(outcome).toContain('7 GB');
    expect(outcome).toContain('their own words');
    expect(await w.page.locator('body').textContent()).not.toContain('Secret subject');
  });

  it('a refused value shows askgate’s message beside the field, keeps what was typed and the ask pending', async () => {
    await openConsole();
    const { id, card } = await ask('run-typed-refused', [
      { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
      { id: 'subject', kind: 'text', question: 'Subject line?', maxLength: 80 },
      { id: 'disk', kind: 'number', question: 'Disk size?', min: 1, max: 10, integer: true, unit: 'GB' },
    ]);
    await card.getByRole('radio', { name: 'Staging' }).check();
    await next(card).click();
    await next(card).click();
    expect(await problem(card).textContent()).toBe('Type an answer first.'); // nothing sent
    await field(card).fill('Keep me');
    await next(card).click();
    await field(card).fill('99');
    await next(card).click();
    await expect
      .poll(() => problem(card).textContent())
      .toBe(
        'That answer is outside the allowed range. Please answer with a whole number in GB between 1 and 10, for example 10 GB.',
      );
    expect(await field(card).getAttribute('aria-invalid')).toBe('true');
    expect(await hint(card).isHidden()).toBe(true); // the refusal ends with the same sentence
    await card.screenshot({ path: join(ARTIFACTS, 'console-typed-refused.png') });
    expect(await field(card).inputValue()).toBe('99');
    expect(await w.page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('number');
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');

    // The earlier step kept its text; a fixed value goes through.
    await card.getByRole('button', { name: 'Back' }).click();
    expect(await field(card).inputValue()).toBe('Keep me');
    await next(card).click();
    await field(card).fill('8');
    expect(await problem(card).textContent()).toBe(''); // editing clears the refusal
    expect(await hint(card).isVisible()).toBe(true);
    await next(card).click();
    await card.waitFor({ state: 'detached' });
    // A choice and typed questions in one answer: labels in `answers`, typed values in `values`.
    expect((await api.get(`/v1/asks/${id}`)).body.result.values).toEqual({
      env: ['Staging'],
      subject: 'Keep me',
      disk: 8,
    });
    expectRefusals(1);
  });

  it('refusals come in the page’s language, and a time the clocks skip says so', async () => {
    await openConsole({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    const { id, card } = await ask(
      'run-typed-de',
      [
        { id: 'mail', kind: 'email', question: 'Welche Adresse?' },
        { id: 'when', kind: 'datetime', question: 'Wann?' },
      ],
      { timeZone: 'Europe/Berlin' },
    );
    expect(await hint(card).textContent()).toBe(
      'Bitte antworte mit einer E-Mail-Adresse, zum Beispiel name@example.com.',
    );
    await field(card).fill('nicht-eine-adresse');
    await next(card).click();
    await expect(beside(card).textContent()).resolves.toBe('Zeitzone Europe/Berlin');
    await field(card).fill('2026-03-29T02:30'); // Berlin's clocks jump from 02:00 to 03:00
    await next(card).click();
    // Both refused: the first refused step is shown, each message beside its own field.
    await expect
      .poll(() => problem(card).textContent())
      .toBe(
        'Diese Antwort konnte ich nicht lesen. Bitte antworte mit einer E-Mail-Adresse, zum Beispiel name@example.com.',
      );
    await next(card).click(); // the email step is still the same value: on to the datetime step
    expect(await problem(card).textContent()).toMatch(/^Diese Uhrzeit gibt es in Europe\/Berlin nicht/);
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expectRefusals(1);
  });

  it('skip works for a typed question', async () => {
    await openConsole();
    const { id, card } = await ask('run-typed-skip', [{ id: 'day', kind: 'date', question: 'Which day?' }]);
    await expect(next(card).textContent()).resolves.toBe('Submit answer');
    await field(card).fill('2026-12-08');
    await card.getByRole('button', { name: 'Skip' }).click();
    await card.waitFor({ state: 'detached' });
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });
});
