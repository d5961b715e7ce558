import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { ChannelError } from '../../src/core/ports.js';
import type { Responder } from '../../src/core/schemas.js';
import type { RunningAskgate } from '../../src/main.js';
import { ARTIFACTS, launchBrowser, openPage, type WatchedPage } from './browser.js';

// The ask policies (issue 16) in the web console: where an ask went, its reminders, escalation
// steps and agreement tally on the pending card, the default taken and the responses in the history.
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let browser: Browser;
let w: WatchedPage;
const test = new RecordingChannel('test');
const other = new RecordingChannel('other');

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(testEnv(), [test, other]), launchBrowser()]);
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

async function openConsole(): Promise<WatchedPage> {
  w = await openPage(browser);
  await w.page.goto(app.url + '/');
  await w.page.locator('#conn.live').waitFor();
  return w;
}

const card = (id: string): Locator => w.page.locator(`#runs [data-ask="${id}"]`);
const policyText = async (id: string) => (await card(id).locator('ul.policy').innerText()).split('\n');
/** Waits until the card's policy list has a line matching `pattern`. */
const policyLine = (id: string, pattern: RegExp) =>
  eventually(async () => (await policyText(id)).find((l) => pattern.test(l)));

const HOSTILE = '<img src=x onerror=alert(1)>\u202Eevil';
const question = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
};
const person = (channel: string, userId: string, name?: string): Responder => ({
  channel,
  userId,
  ...(name ? { name } : {}),
});
/** A time as the console shows it (the page runs in UTC, en-GB): hh:mm today, else dd/mm/yyyy hh:mm. */
const hhmm = (iso: string) => {
  const at = new Date(iso).toISOString();
  const time = at.slice(11, 16);
  if (at.slice(0, 10) === new Date().toISOString().slice(0, 10)) return time;
  return `${at.slice(8, 10)}/${at.slice(5, 7)}/${at.slice(0, 4)} ${time}`;
};

/** The ask once `count` deliveries left the pending state. */
const settled = (id: string, count: number) =>
  eventually(async () => {
    const r = await api.get(`/v1/asks/${id}`);
    return r.body.deliveries.length === count && r.body.deliveries.every((d: any) => d.status !== 'pending') && r.body;
  });

describe('web console: ask policies (real browser)', () => {
  it('shows a fan-out agree ask: every delivery (a failed one too), reminders, escalation, the tally; the console is one person', async () => {
    await openConsole();
    other.failNext(new ChannelError('chat not found', true));
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'pol-agree',
      questions: [question],
      to: [
        { channel: 'test', chat: 'agree-a' },
        { channel: 'other', chat: 'agree-b' },
      ],
      timeoutSeconds: 3600,
      remindAfterSeconds: [600, 1200],
      escalate: [{ afterSeconds: 1800, to: { channel: 'other', chat: 'esc-1' } }],
      onTimeout: { default: { env: ['Staging (Recommended)'] } },
      agree: 2,
    });
    expect(ask.id).toBeTruthy();
    await settled(ask.id, 2);
    const c = card(ask.id);
    await c.waitFor();
    await policyLine(ask.id, /failed\)$/);
    const created = Date.parse(ask.createdAt);
    expect(await policyText(ask.id)).toEqual([
      'Sent to test:agree-a, other:agree-b (failed)',
      `Reminded 0 of 2 · next reminder at ${hhmm(new Date(created + 600_000).toISOString())}`,
      `Escalates to other:esc-1 at ${hhmm(new Date(created + 1_800_000).toISOString())}`,
      'No answers yet — 2 matching answers needed',
      'Default on timeout: Deploy: Staging',
    ]);
    await expect(c.locator('ul.policy .failed').textContent()).resolves.toBe('other:agree-b (failed)');
    await expect(c.locator('.meta').textContent()).resolves.toContain('1 delivery failed');
    // A skip is nobody's answer: an agree ask has no Skip.
    await expect(c.getByRole('button', { name: /^Skip/ }).count()).resolves.toBe(0);

    // A chat person with a hostile name answers; the tally updates live, the name shown as text.
    const delivered = test.delivered.find((d) => d.askId === ask.id)!;
    const tapped = await test.sink!.button({
      channel: 'test',
      token: delivered.view.buttons![1]!.token,
      user: person('test', 'u-hostile', HOSTILE),
      chat: 'agree-a',
    });
    expect(tapped.kind).toBe('recorded');
    await policyLine(ask.id, /^Production 1 — 2 matching answers needed$/);
    const answered = await policyLine(ask.id, /^Answered: /);
    expect(answered).toContain('<img src=x onerror=alert(1)>');
    expect(answered).not.toContain('\u202E'); // bidi override dropped
    await expect(w.page.locator('img').count()).resolves.toBe(0);

    // The console answers twice under two names: it is one person, so its second answer replaces its first.
    await w.page.locator('#operator').fill('carol');
    await c.getByRole('button', { name: /^Staging/ }).click();
    await policyLine(ask.id, /^Production 1 · Staging 1 — 2 matching answers needed$/);
    await w.page.locator('#operator').fill('dave');
    await c.getByRole('button', { name: /^Production/ }).click();
    await c.waitFor({ state: 'detached' });

    const record = (await api.get(`/v1/asks/${ask.id}`)).body;
    expect(record.status).toBe('answered');
    expect(record.result.answers).toEqual({ env: ['Production'] });
    expect(
      record.result.responses.map((r: any) => [r.answeredBy.channel, r.answeredBy.userId, r.answeredBy.name]),
    ).toEqual([
      ['test', 'u-hostile', HOSTILE],
      ['web', 'web', 'dave'],
    ]);

    const past = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await past.locator('summary').click();
    const responses = await past.locator('ul.responses li').allInnerTexts();
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^<img src=x onerror=alert\(1\)>evil via test: Production \d\d:\d\d$/);
    expect(responses[1]).toMatch(/^dave via web: Production \d\d:\d\d$/);
    await expect(past.locator('dl.facts').innerText()).resolves.toContain('test:agree-a, other:agree-b (failed)');
    await expect(w.page.locator('img').count()).resolves.toBe(0);
    await w.page.screenshot({ path: join(ARTIFACTS, 'console-policies-history.png'), fullPage: true });
  });

  it('shows reminders and an escalation once they fired, with the escalated delivery', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'pol-steps',
      questions: [question],
      to: { channel: 'test', chat: 'steps-a' },
      timeoutSeconds: 600,
      remindAfterSeconds: [1],
      escalate: [{ afterSeconds: 2, to: [{ channel: 'other', chat: 'steps-b' }] }],
    });
    await card(ask.id).waitFor();
    await policyLine(ask.id, /^Escalated to other:steps-b at \d\d:\d\d$/);
    await policyLine(ask.id, /^Reminded 1 of 1$/); // no next reminder
    await policyLine(ask.id, /^Sent to test:steps-a, other:steps-b \(escalation 1\)$/);
    const record = await settled(ask.id, 2);
    expect(record.escalated).toBe(1);
    await w.page.screenshot({ path: join(ARTIFACTS, 'console-policies-pending.png'), fullPage: true });
    // The event history names the steps.
    const events = await card(ask.id).locator('ol.events').textContent(); // inside a closed <details>
    expect(events).toContain('Reminder posted');
    expect(events).toContain('Escalated');
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Production'] } });
    await card(ask.id).waitFor({ state: 'detached' });
  });

  it('lists a timeout with a default as "Default taken", never as an answer', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'pol-default',
      questions: [
        question,
        { ...question, id: 'when', header: 'When', options: [{ label: 'Now' }, { label: 'Later' }] },
      ],
      to: { channel: 'test', chat: 'default-a' },
      timeoutSeconds: 1,
      onTimeout: { default: { when: ['later'], env: ['production'] } },
    });
    const past = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await past.waitFor();
    await expect(past.locator('.badge').textContent()).resolves.toBe('Expired');
    await past.locator('summary').click();
    const facts = await past.locator('dl.facts').innerText();
    expect(facts).toContain('Default taken\nDeploy: Production; When: Later');
    expect(facts).not.toMatch(/\bBy\b/);
  });

  it('never shows a free-text response, in the tally or the history', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'pol-free',
      questions: [question],
      to: { channel: 'test', chat: 'free-a' },
      agree: 2,
    });
    const sent = await settled(ask.id, 1);
    const outcome = await test.sink!.text({
      channel: 'test',
      chat: 'free-a',
      replyTo: sent.deliveries[0].message.messageId,
      privateChat: false,
      user: person('test', 'u-free', 'Frida'),
      text: 'my secret plan',
    });
    expect(outcome.kind).toBe('recorded');
    await policyLine(ask.id, /^their own words 1 — 2 matching answers needed$/);
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['my secret plan'] }, by: 'ops' });
    const past = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await past.waitFor();
    await past.locator('summary').click();
    const responses = await past.locator('ul.responses li').allInnerTexts();
    expect(responses.map((r) => r.replace(/ \d\d:\d\d$/, ''))).toEqual([
      'Frida via test: their own words',
      'ops via api: their own words',
    ]);
    await expect(w.page.locator('body').innerText()).resolves.not.toContain('my secret plan');
  });
});
