import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { freePort, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import {
  channelFor,
  deliveredRef,
  keyboardRows,
  memoryLogger,
  newUser,
  showsButton,
  tapLabel,
  visible,
} from './telegram-world.js';
import type { RunningAskgate } from '../../src/main.js';
import { MemoryFormDrafts } from '../../src/store/memory-form-drafts.js';
import type { FormDraftStore } from '../../src/core/form-draft-store.js';

let redis: TestRedis;
const apps: RunningAskgate[] = [];
const fakes: FakeTelegramApi[] = [];
const logger = memoryLogger();

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const app of apps) await app.close().catch(() => {});
  for (const fake of fakes) await fake.close();
  await redis?.dispose();
});

const checks = {
  id: 'checks',
  header: 'Checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
};
const env = {
  id: 'env',
  question: 'Where?',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};

async function start(fake: FakeTelegramApi, vars: Record<string, string>, minSendIntervalMs = 50) {
  const app = await startTestApp(vars, [channelFor(fake, logger, { minSendIntervalMs })]);
  apps.push(app);
  return { app, api: client(app.url) };
}

async function ask(api: ReturnType<typeof client>, chat: number, questions: unknown[]) {
  const body = askBody(`tgr-${chat}`, {
    to: { channel: 'telegram', chat: String(chat) },
    questions,
    timeoutSeconds: 60,
  });
  const created = await api.post('/v1/asks', body);
  expect(created.status).toBe(201);
  return { id: created.body.id as string, ref: await deliveredRef(api, created.body.id) };
}

const answered = (api: ReturnType<typeof client>, id: string) =>
  eventually(async () => {
    const r = await api.get(`/v1/asks/${id}`);
    return r.body.deliveries[0].finalized === 'done' ? r.body : undefined;
  });

/** askgate in webhook mode on the shared Redis, with its fake Telegram and channel (and `drafts` instead of Redis's). */
async function webhookApp(drafts?: FormDraftStore) {
  const fake = await FakeTelegramApi.start();
  fakes.push(fake);
  const port = await freePort();
  const channel = channelFor(fake, logger, {
    webhookUrl: `http://127.0.0.1:${port}/telegram/webhook`,
    webhookSecret: 'drafts_secret-0123456789',
  });
  const app = await startTestApp(testEnv({ REDIS_URL: redis.url, PORT: String(port) }), [channel], {
    ...(drafts ? { drafts } : {}),
  });
  apps.push(app);
  return { fake, channel, api: client(app.url) };
}

/** Memory drafts whose reads take `delayMs()` ms (the store of this one app). */
function slowDrafts(delayMs: () => number): FormDraftStore {
  const inner = new MemoryFormDrafts({ retentionMs: 60_000 });
  return {
    get: async (key) => {
      await new Promise((r) => setTimeout(r, delayMs()));
      return inner.get(key);
    },
    put: (key, rev, draft) => inner.put(key, rev, draft),
    close: (key) => inner.close(key),
    pointOwn: (chat, promptId, key, expiresAt) => inner.pointOwn(chat, promptId, key, expiresAt),
    ownOf: (chat, promptId) => inner.ownOf(chat, promptId),
  };
}

describe('Telegram drafts across restarts, in memory mode, in webhook mode, and under flood control', () => {
  it('a draft survives a restart: a new askgate on the same Redis continues it', async () => {
    const fake = await FakeTelegramApi.start();
    fakes.push(fake);
    const vars = testEnv({ REDIS_URL: redis.url });
    const first = await start(fake, vars);
    const user = newUser(fake, 'Restart', 'restart');
    const { id, ref } = await ask(first.api, user.id, [checks, env]);
    expect(await tapLabel(fake, ref, '☐ lint', user)).toBe('');
    await showsButton(fake, ref, '☑ lint');
    await first.app.close();

    const second = await start(fake, vars);
    expect(await tapLabel(fake, ref, '☐ e2e', user)).toBe('');
    await showsButton(fake, ref, '☑ e2e');
    expect(visible(fake, ref).buttons.map((b) => b.label)).toContain('☑ lint');
    expect(await tapLabel(fake, ref, 'Next »', user)).toBe('');
    expect(await tapLabel(fake, ref, 'Production', user)).toBe('Answer recorded');
    const done = await answered(second.api, id);
    expect(done.result).toMatchObject({
      status: 'answered',
      answers: { checks: ['lint', 'e2e'], env: ['Production'] },
    });
  });

  it('memory mode answers with drafts too', async () => {
    const fake = await FakeTelegramApi.start();
    fakes.push(fake);
    const { api } = await start(fake, testEnv());
    const user = newUser(fake, 'Memory', 'memory');
    const { id, ref } = await ask(api, user.id, [env, checks]);
    expect(await tapLabel(fake, ref, 'Staging', user)).toBe('');
    expect(await tapLabel(fake, ref, '☐ tests', user)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Answer recorded');
    expect((await answered(api, id)).result.answers).toEqual({ env: ['Staging'], checks: ['tests'] });
  });

  it('fast taps coalesce into few edits that end on the last state; flood control (429 retry_after) is waited out', async () => {
    const fake = await FakeTelegramApi.start({ flood: { max: 1, windowMs: 1000, retryAfterSeconds: 1 } });
    fakes.push(fake);
    const { api } = await start(fake, testEnv({ REDIS_URL: redis.url }), 300);
    const user = newUser(fake, 'Fast', 'fast');
    const { id, ref } = await ask(api, user.id, [checks]);
    const data = (label: string) => visible(fake, ref).buttons.find((b) => b.label === label)!.data;
    const [lint, tests, e2e] = [data('☐ lint'), data('☐ tests'), data('☐ e2e')];
    const taps = [lint, tests, e2e, lint, tests, lint, e2e].map((d) => fake.tap(ref.chat, ref.messageId, d, user));
    for (const q of taps) expect((await fake.answerOf(q))?.text).toBe('');
    // lint toggled three times (on), tests and e2e twice (off).
    await eventually(async () => (keyboardRows(fake, ref)[0]?.[0] === '☑ lint' ? true : undefined));
    expect(keyboardRows(fake, ref).slice(0, 3)).toEqual([['☑ lint'], ['☐ tests'], ['☐ e2e']]);
    const edits = () => fake.callsOf('editMessageReplyMarkup').filter((c) => String(c.params.chat_id) === ref.chat);
    expect(edits().length).toBeLessThan(taps.length);
    // One more tap right away: its edit falls inside the flood window, gets 429 and is drawn after retry_after.
    expect(await tapLabel(fake, ref, '☐ tests', user)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    expect(fake.floods.length).toBeGreaterThan(0);
    const all = fake.calls.filter((c) => String(c.params.chat_id) === ref.chat && c.method !== 'answerCallbackQuery');
    for (const flood of fake.floods.filter((f) => String(f.chat) === ref.chat)) {
      // After a 429 nothing was sent to the chat before retry_after had passed.
      const next = all.find((c) => c.at > flood.at && c.ok);
      if (next) expect(next.at - flood.at).toBeGreaterThanOrEqual(1000);
    }
    expect(await tapLabel(fake, ref, 'Submit', user)).toBe('Answer recorded');
    expect((await answered(api, id)).result.answers).toEqual({ checks: ['lint', 'tests'] });
  });
  it('webhook mode: each tap is answered on the webhook reply, the keyboard by an API edit; own words by reply', async () => {
    const { fake, api } = await webhookApp();
    const user = newUser(fake, 'Hook', 'hook');
    const { id, ref } = await ask(api, user.id, [checks, env]);
    expect(await tapLabel(fake, ref, '☐ tests', user)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    expect(fake.webhookReplies.map((r) => r.method)).toEqual(['answerCallbackQuery']);
    expect(fake.callsOf('editMessageReplyMarkup').some((c) => c.ok)).toBe(true);
    expect(await tapLabel(fake, ref, 'Next »', user)).toBe('');
    await showsButton(fake, ref, 'Question 2 of 2');
    expect(await tapLabel(fake, ref, 'Other…', user)).toBe('');
    const prompt = await eventually(async () =>
      fake
        .chatMessages(ref.chat)
        .find((m) => m.from.is_bot && m.text.includes('Question 2 · Reply with your answer in your own words')),
    );
    fake.say(ref.chat, 'Canary first', user, prompt.message_id);
    const done = await answered(api, id);
    expect(done.result.answers).toEqual({ checks: ['tests'], env: ['Canary first'] });
  });
  it('webhook mode: a tap handled after the webhook was answered (a slow store) is answered by an API call', async () => {
    // Slower than the bot's hold on an update (its middleware returns while the tap's work goes on).
    const { fake, api } = await webhookApp(slowDrafts(() => 400));
    const user = newUser(fake, 'Late', 'late');
    const { ref } = await ask(api, user.id, [checks, env]);
    expect(await tapLabel(fake, ref, '☐ tests', user)).toBe('');
    await showsButton(fake, ref, '☑ tests');
    expect(fake.webhookReplies).toEqual([]);
    expect(fake.callsOf('answerCallbackQuery').filter((c) => c.ok)).toHaveLength(1);
  });
  it('a draft store slower than the 1.5 s answer budget: the Submit tap is answered empty in time, the outcome follows as a reply', async () => {
    const fake = await FakeTelegramApi.start();
    fakes.push(fake);
    // Reads of the drafts are slow while `slow` is on.
    let slow = false;
    const app = await startTestApp(testEnv(), [channelFor(fake, logger)], {
      drafts: slowDrafts(() => (slow ? 1700 : 0)),
    });
    apps.push(app);
    const api = client(app.url);
    const user = newUser(fake, 'Slow', 'slow');
    const { id, ref } = await ask(api, user.id, [checks]);
    const query = fake.tap(
      ref.chat,
      ref.messageId,
      visible(fake, ref).buttons.find((b) => b.label === '☐ e2e')!.data,
      user,
    );
    const answer = (await fake.answerOf(query))!;
    expect(answer.text).toBe('');
    await showsButton(fake, ref, '☑ e2e');
    slow = true;
    const submitted = fake.tap(
      ref.chat,
      ref.messageId,
      visible(fake, ref).buttons.find((b) => b.label === 'Submit')!.data,
      user,
    );
    expect((await fake.answerOf(submitted))!.text).toBe('');
    slow = false;
    const told = await eventually(async () =>
      fake
        .chatMessages(ref.chat)
        .find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId) && m.text === 'Answer recorded'),
    );
    expect(told).toBeDefined();
    expect((await answered(api, id)).result.answers).toEqual({ checks: ['e2e'] });
  });
});
