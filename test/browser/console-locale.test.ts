import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { launchBrowser, openPage, type WatchedPage } from './browser.js';

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

const SAO_PAULO = { locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' };
/** "HH:MM" of an instant as a browser in São Paulo writes it. */
const saoPauloTime = (iso: string) =>
  new Date(iso).toLocaleTimeString('pt-BR', { hour: '2-digit', minute: '2-digit', timeZone: 'America/Sao_Paulo' });

describe('web console in a Portuguese browser in São Paulo', () => {
  it('speaks Portuguese from the first byte, shows times in the browser time zone, answers in Portuguese', async () => {
    w = await openPage(browser, undefined, SAO_PAULO);
    const response = await w.page.goto(app.url + '/');
    expect(response?.headers()['vary']).toContain('accept-language');
    await w.page.locator('#conn.live').waitFor();
    expect(await w.page.evaluate(() => document.documentElement.lang)).toBe('pt-BR');
    expect(await w.page.locator('#conn').textContent()).toBe('Ao vivo');
    expect(await w.page.locator('#pending-title').textContent()).toMatch(/^Pendentes/);
    expect(await w.page.locator('#lang').inputValue()).toBe('pt-BR');

    // An ask with no locale: the console's own words follow the browser, not the ask.
    const { body: ask } = await api.post('/v1/asks', askBody('run-pt'));
    const card = w.page.locator(`#runs [data-ask="${ask.id}"]`);
    await card.waitFor();
    expect(await card.locator('.meta').textContent()).toContain(`perguntada às ${saoPauloTime(ask.createdAt)}`);
    expect(await card.locator('button.skip').textContent()).toBe('Pular');
    expect(await card.locator('form.own label').textContent()).toBe('Ou responda com suas palavras');
    expect(await card.locator('form.own button[type=submit]').textContent()).toBe('Enviar');

    await card.locator('button.choice', { hasText: 'Staging' }).click();
    await card.waitFor({ state: 'detached' });
    const past = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await past.waitFor();
    expect(await past.locator('.badge').textContent()).toBe('Respondida');
    await past.locator('summary').click();
    expect(await past.locator('.outcome').textContent()).toMatch(/^Respondida: Staging — /);
    expect((await past.locator('.facts dt').allTextContents()).slice(0, 3)).toEqual([
      'Execução',
      'Perguntada',
      'Respondida',
    ]);

    // No English word of the console's own is left on the page (agent strings aside).
    const shown = await w.page.evaluate(() => document.body.innerText);
    for (const english of ['Pending', 'History', 'Skip', 'Answered', 'Live', 'Answer as', 'Asked', 'Events'])
      expect([english, shown.includes(english)]).toEqual([english, false]);
  });

  it('an answer askgate refuses is explained in the console’s words, not in the API’s English', async () => {
    w = await openPage(browser, undefined, SAO_PAULO);
    await w.page.goto(app.url + '/');
    await w.page.locator('#conn.live').waitFor();
    const { body: ask } = await api.post('/v1/asks', askBody('run-pt-refused'));
    const card = w.page.locator(`#runs [data-ask="${ask.id}"]`);
    await card.waitFor();
    // The request leaves without answers (as a stale or altered page might send it): askgate itself answers 400.
    await w.page.route('**/console/asks/*/answer', (route) => route.continue({ postData: '{"answers":{}}' }));
    await card.locator('button.choice', { hasText: 'Staging' }).click();
    await expect.poll(() => card.locator('.error').textContent()).toBe('askgate não aceitou esta resposta.');
    expect((await api.get(`/v1/asks/${ask.id}`)).body.status).toBe('pending');
    // The browser logs the refused request itself; nothing else went wrong.
    expect(w.errors).toEqual([expect.stringMatching(/status of 400/)]);
    w.errors.length = 0;
  });

  it('the switch changes the language, and the choice stays in this browser', async () => {
    w = await openPage(browser, undefined, SAO_PAULO);
    await w.page.goto(app.url + '/');
    await w.page.locator('#conn.live').waitFor();
    await Promise.all([w.page.waitForEvent('load'), w.page.locator('#lang').selectOption('de')]);
    await w.page.locator('#conn.live').waitFor();
    expect(await w.page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await w.page.locator('#conn').textContent()).toBe('Live');
    expect(await w.page.locator('#pending-title').textContent()).toMatch(/^Offen/);
    expect(await w.page.title()).toMatch(/askgate-Konsole$/);
    await w.page.reload();
    await w.page.locator('#conn.live').waitFor();
    expect(await w.page.locator('#lang').inputValue()).toBe('de');
  });
});
