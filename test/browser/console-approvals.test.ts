// Approvals in the web console (issue 36), in a real Chromium: the card shows the action whole
// (summary, action, arguments, preview, hash), each decision offered is one button, reasons and
// edits go through askgate's answer route and its checks (a refusal beside the field, what was
// typed kept), and the history shows the decision, who and what runs, never the reason.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
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

async function openConsole(): Promise<WatchedPage> {
  w = await openPage(browser);
  await w.page.goto(app.url + '/');
  await w.page.locator('#conn.live').waitFor();
  return w;
}

const hashOf = (action: string, args: object) =>
  `sha256:${createHash('sha256')
    .update(canonicalize({ action, arguments: args })!)
    .digest('hex')}`;

const email = {
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report', body: 'Hello finance,\n'.repeat(40) },
  summary: 'Send the Q3 report to finance',
  preview: '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-10\n+12',
};
const schema = {
  type: 'object',
  properties: { to: { type: 'string', pattern: '@' }, subject: { type: 'string', maxLength: 40 } },
  required: ['to', 'subject'],
};

/** Creates an approval and waits for its card. */
async function approval(runId: string, body: object, extra: object = {}): Promise<{ id: string; card: Locator }> {
  const { status, body: created } = await api.post('/v1/asks', { runId, approval: body, ...extra });
  expect(status, JSON.stringify(created)).toBe(201);
  const card = w.page.locator(`#runs [data-ask="${created.id}"]`);
  await card.waitFor();
  return { id: created.id, card };
}

const button = (card: Locator, decision: string) => card.locator(`button[data-decision="${decision}"]`);
const field = (card: Locator) => card.locator('form.decide textarea');
const problem = (card: Locator) => card.locator('form.decide .error');
const send = (card: Locator) => card.locator('form.decide button[type=submit]');
/** The browser logs each refused answer (a 400) as a failed load: expected here, then cleared. */
function expectRefusals(count: number) {
  expect(w.errors).toEqual(Array(count).fill(expect.stringMatching(/status of 400/)));
  w.errors.length = 0;
}
/** The finished ask in the history, opened. */
async function past(id: string): Promise<Locator> {
  const item = w.page.locator(`#history-list [data-ask="${id}"]`);
  await item.locator('summary').click();
  return item;
}

describe('web console: approvals (real browser)', () => {
  it('shows the summary first, the action, every argument whole, the preview and the hash; Approve decides', async () => {
    await openConsole();
    const { id, card } = await approval('run-approve', email);
    const full = hashOf(email.action, email.arguments);
    expect(await card.locator('.approval > *').first().textContent()).toBe(email.summary);
    expect(await card.locator('.action code').first().textContent()).toBe('send_email');
    const hash = card.locator('.action .hash');
    expect(await hash.textContent()).toBe('#' + full.slice(7, 15));
    expect(await hash.getAttribute('title')).toBe(full);
    // Flat arguments as a key/value list, whole (the 600-character body is not cut).
    expect(await card.locator('dl.args dt').allTextContents()).toEqual(['to', 'subject', 'body']);
    expect(await card.locator('dl.args dd').allTextContents()).toEqual([
      'finance@example.com',
      'Q3 report',
      email.arguments.body,
    ]);
    expect(await card.locator('pre.preview').textContent()).toBe(email.preview);
    // The default decisions, no Edit (not offered).
    expect(await card.locator('button[data-decision]').allTextContents()).toEqual([
      'Approve',
      'Reject',
      'Request changes',
    ]);
    await w.page.screenshot({ path: join(ARTIFACTS, 'console-approval.png'), fullPage: true });

    await w.page.locator('#operator').fill('alice');
    await button(card, 'approve').click();
    await card.waitFor({ state: 'detached' });
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({
      status: 'answered',
      decision: 'approve',
      effectiveHash: full,
      answeredBy: { channel: 'web', userId: 'alice' },
    });
    const item = await past(id);
    expect(await item.locator('.badge').textContent()).toBe('Approved');
    expect(await item.locator('.outcome').textContent()).toBe('Approved by alice (#' + full.slice(7, 15) + ')');
    expect(await item.locator('dl.facts').textContent()).toContain('What runs#' + full.slice(7, 15));
  });

  it('shows nested arguments as formatted JSON, and the decision a timeout states', async () => {
    await openConsole();
    const args = { to: ['a@example.com', 'b@example.com'], options: { priority: 'high' } };
    const { card } = await approval(
      'run-nested',
      { action: 'send_email', arguments: args },
      { onTimeout: { decision: 'reject' } },
    );
    expect(await card.locator('pre.args').textContent()).toBe(JSON.stringify(args, null, 2));
    await expect(card.locator('dl.args').count()).resolves.toBe(0);
    expect(await card.locator('.on-timeout').textContent()).toBe('On timeout: Reject');
    // Without a summary the action names the buttons' group.
    expect(await card.getByRole('group', { name: /^Action send_email #[0-9a-f]{8}$/ }).count()).toBe(1);
  });

  it('a timeout with a stated decision is listed as expired, with what it states, never as a decision', async () => {
    await openConsole();
    const { body: ask } = await api.post('/v1/asks', {
      runId: 'run-timeout',
      approval: email,
      timeoutSeconds: 1,
      onTimeout: { decision: 'approve' },
    });
    const item = w.page.locator(`#history-list [data-ask="${ask.id}"]`);
    await item.waitFor();
    await expect(item.locator('.badge').textContent()).resolves.toBe('Expired');
    await item.locator('summary').click();
    const facts = await item.locator('dl.facts').innerText();
    expect(facts).toContain('On timeout\nApprove');
    expect(facts).not.toMatch(/Decision|What runs/);
  });

  it('Reject needs a reason: an empty one is refused in the page; the reason is never shown in the history', async () => {
    await openConsole();
    const { id, card } = await approval('run-reject', email);
    await button(card, 'reject').click();
    expect(await card.locator('form.decide label').textContent()).toBe('Why do you reject it?');
    await field(card).fill('   ');
    await send(card).click();
    expect(await problem(card).textContent()).toBe('Say why first.');
    expect(await field(card).getAttribute('aria-invalid')).toBe('true');
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');

    await field(card).fill('Wrong recipient: finance is on leave 4711');
    await send(card).click();
    await card.waitFor({ state: 'detached' });
    const { body } = await api.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ decision: 'reject', reason: 'Wrong recipient: finance is on leave 4711' });
    const item = await past(id);
    expect(await item.locator('.badge').textContent()).toBe('Rejected');
    expect(await item.locator('.outcome').textContent()).toBe('Rejected by web');
    expect(await w.page.locator('body').textContent()).not.toContain('4711');
  });

  it('Edit submits the edited arguments; invalid JSON and arguments against the schema are refused beside the field, the typed JSON kept', async () => {
    await openConsole();
    const { id, card } = await approval('run-edit', {
      ...email,
      decisions: ['approve', 'reject', 'request_changes', 'edit'],
      argumentsSchema: schema,
    });
    await button(card, 'edit').click();
    // Prefilled with the arguments.
    expect(JSON.parse(await field(card).inputValue())).toEqual(email.arguments);

    await field(card).fill('{"to": "finance@example.com",');
    await send(card).click();
    expect(await problem(card).textContent()).toBe('Write the arguments as one JSON object.');
    expect(await field(card).inputValue()).toBe('{"to": "finance@example.com",');

    const tooLong = JSON.stringify({ to: 'finance@example.com', subject: 'x'.repeat(41) }, null, 2);
    await field(card).fill(tooLong);
    await send(card).click();
    await expect
      .poll(() => problem(card).textContent())
      .toMatch(
        /^askgate did not accept these arguments: does not match the schema: subject must NOT have more than 40 characters$/,
      );
    expectRefusals(1);
    expect(await field(card).inputValue()).toBe(tooLong);
    await card.screenshot({ path: join(ARTIFACTS, 'console-approval-edit.png') });
    expect(await field(card).getAttribute('aria-invalid')).toBe('true');
    expect((await api.get(`/v1/asks/${id}`)).body.status).toBe('pending');

    const edited = { to: 'treasury@example.com', subject: 'Q3 report' };
    await field(card).fill(JSON.stringify(edited));
    await send(card).click();
    await card.waitFor({ state: 'detached' });
    const { body } = await api.get(`/v1/asks/${id}`);
    const effective = hashOf(email.action, edited);
    expect(body.result).toMatchObject({ decision: 'edit', arguments: edited, effectiveHash: effective });
    const item = await past(id);
    expect(await item.locator('.badge').textContent()).toBe('Approved with changes');
    expect(await item.locator('dl.facts').textContent()).toContain('What runs#' + effective.slice(7, 15));
    // The edited arguments stay out of the shared history (only their hash).
    expect(await w.page.locator('body').textContent()).not.toContain('treasury@');
  });

  it('Request changes sends its reason; switching decisions starts the field anew', async () => {
    await openConsole();
    const { id, card } = await approval('run-changes', email);
    await button(card, 'reject').click();
    await field(card).fill('not this one');
    await button(card, 'request_changes').click();
    expect(await card.locator('form.decide label').textContent()).toBe('What should change?');
    expect(await field(card).inputValue()).toBe('');
    await field(card).fill('Attach the signed PDF');
    await send(card).click();
    await card.waitFor({ state: 'detached' });
    expect((await api.get(`/v1/asks/${id}`)).body.result).toMatchObject({
      decision: 'request_changes',
      reason: 'Attach the signed PDF',
    });
    expect(await (await past(id)).locator('.outcome').textContent()).toBe('Changes requested by web');
  });

  it('an approval that needs two approvers lists each response by its decision', async () => {
    await openConsole();
    const { id, card } = await approval('run-agree', email, { agree: 2 });
    expect((await api.post(`/v1/asks/${id}/answer`, { decision: 'approve', by: 'bob' })).status).toBe(200);
    await button(card, 'approve').click();
    await card.waitFor({ state: 'detached' });
    const responses = (await past(id)).locator('ul.responses li');
    await expect(responses.count()).resolves.toBe(2);
    for (const text of await responses.allTextContents()) expect(text).toMatch(/: Approved /);
  });
});
