import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { launchBrowser, openPage } from './browser.js';
import { encodeAsk, parseStoredAsk } from '../../src/store/ask-doc.js';

let redis: TestRedis;
let peek: Redis;
let prefix: string;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let browser: Browser;

beforeAll(async () => {
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url });
  prefix = env.ASKGATE_KEY_PREFIX!;
  [app, browser] = await Promise.all([startTestApp(env), launchBrowser()]);
  api = client(app.url);
  peek = new Redis(redis.url);
});

afterAll(async () => {
  await browser?.close();
  peek?.disconnect();
  await app?.close();
  await redis?.dispose();
});

const HEADER = 'Constructor settings'; // 20 characters: chats show "Constructor…"
/** Question ids, labels and run ids named like Object.prototype's members. */
const PROTO_QUESTIONS = [
  {
    id: 'constructor',
    header: HEADER,
    question: 'Which constructor?',
    options: [{ label: 'toString' }, { label: 'valueOf' }],
  },
  { id: 'value_of', question: 'Which getter?', options: [{ label: '__defineGetter__' }, { label: 'hasOwnProperty' }] },
];

/**
 * Rewrites a stored record as another writer could have left it: its answer leaving `constructor`
 * out (askgate reads it as a value it did not write, parsed and checked).
 */
async function dropConstructorAnswer(runId: string, askId: string): Promise<void> {
  const key = `${prefix}:{${runId}}:ask:${askId}`;
  const doc = parseStoredAsk((await peek.get(key))!, key, { id: askId, runId }) as any;
  delete doc.result.answers.constructor;
  expect(Object.keys(doc.result.answers)).toEqual(['value_of']);
  await peek.set(key, encodeAsk(doc), 'KEEPTTL');
}

describe('console with prototype-named ids (real browser, Redis)', () => {
  it('a stored answer without its "constructor" question breaks neither the snapshot nor the live feed; such asks are answered from the console', async () => {
    const { body: old } = await api.post('/v1/asks', { runId: 'constructor', questions: PROTO_QUESTIONS });
    expect(
      (
        await api.post(`/v1/asks/${old.id}/answer`, {
          answers: { constructor: ['toString'], value_of: ['hasOwnProperty'] },
        })
      ).status,
    ).toBe(200);
    await dropConstructorAnswer('constructor', old.id);
    const { body: pending } = await api.post('/v1/asks', { runId: 'hasOwnProperty', questions: PROTO_QUESTIONS });
    const { body: plain } = await api.post('/v1/asks', askBody('run-plain'));

    const w = await openPage(browser);
    const { page } = w;
    try {
      await page.goto(app.url + '/');
      const card = (id: string) => page.locator(`#runs [data-ask="${id}"]`);
      await card(plain.id).waitFor({ timeout: 5000 }); // the snapshot arrived despite the broken record
      await card(pending.id).waitFor();
      await page.locator('#conn.live').waitFor();
      expect(await page.locator('#runs [data-run="hasOwnProperty"] h3').textContent()).toBe('hasOwnProperty');

      // The header is shortened as in the chats; the whole one is the chip's tooltip.
      const chip = card(pending.id).locator('.chip').first();
      expect([await chip.textContent(), await chip.getAttribute('title')]).toEqual(['Constructor…', HEADER]);
      expect(await card(plain.id).locator('.chip').getAttribute('title')).toBeNull(); // "Deploy" is not cut

      // The feed stays live: the broken record changes (its history notice goes out), then a new ask arrives.
      await peek.publish(`${prefix}:history`, `${old.id} constructor`);
      const { body: live } = await api.post('/v1/asks', askBody('run-live-after'));
      await card(live.id).waitFor({ timeout: 5000 });

      // Answer the prototype-named ask through the stepper.
      const c = card(pending.id);
      await c.getByRole('radio', { name: 'toString' }).check();
      await c.getByRole('button', { name: 'Next' }).click();
      await c.getByRole('radio', { name: '__defineGetter__' }).check();
      await c.getByRole('button', { name: 'Submit answers' }).click();
      await c.waitFor({ state: 'detached' });
      const { body: answered } = await api.get(`/v1/asks/${pending.id}`);
      expect(answered.result).toMatchObject({ status: 'answered', answeredBy: { channel: 'web' } });
      expect(answered.result.answers).toEqual({ constructor: ['toString'], value_of: ['__defineGetter__'] });
      const past = page.locator(`#history-list [data-ask="${pending.id}"]`);
      await past.locator('summary').click();
      const text = await past.textContent();
      expect(text).toContain('1. Constructor…: toString');
      expect(text).toContain('2. Which getter?: __defineGetter__');

      // A reload (a fresh snapshot) still works, and the plain ask is answered with one click.
      await page.reload();
      await card(plain.id).getByRole('button', { name: 'Staging' }).click();
      await card(plain.id).waitFor({ state: 'detached' });
      expect((await api.get(`/v1/asks/${plain.id}`)).body.result.answers).toEqual({ env: ['Staging'] });
    } finally {
      await w.context.close();
    }
    expect(w.errors).toEqual([]);
    expect(w.dialogs).toEqual([]);
  });
});
