// A draft with typed steps survives a crash (issue 35): askgate serve is killed (-9) between two
// typed steps; the draft and the pointer from the second step's force-reply prompt are in Redis, so a
// new process takes the reply to that prompt and submits the draft.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { deliveredRef, showsButton, visible } from './telegram-world.js';
import { openStep, person, placeholderOf, replyTo } from './telegram-typed-world.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
const processes: AskgateProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
});
afterAll(async () => {
  for (const p of processes) await p.stop();
  await fake?.close();
  await redis?.dispose();
});

async function serve(env: Record<string, string>): Promise<AskgateProcess> {
  const started = await startAskgateProcess(env);
  processes.push(started);
  return started;
}

describe('Telegram typed draft steps across a crash (askgate serve as a child process)', () => {
  it('kill -9 between two typed steps: the new process takes the reply to the second step’s prompt and submits', async () => {
    const env = testEnv({ REDIS_URL: redis.url, TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.url });
    const first = await serve(env);
    const user = person(fake, 'Crash', 'de');
    const questions = [
      { id: 'n', header: 'Size', question: 'How many GB?', kind: 'number', unit: 'GB' },
      { id: 'at', header: 'When', question: 'At what time?', kind: 'time' },
    ];
    const to = { channel: 'telegram', chat: String(user.id) };
    const api1 = client(first.url);
    const created = await api1.post('/v1/asks', askBody('tg-typed-crash', { to, questions, timeoutSeconds: 60 }));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const ref = await deliveredRef(api1, id);
    const sizePrompt = await openStep(fake, ref, user);
    expect(sizePrompt.text).toMatch(/^Frage 1 · /);
    const timePrompt = await replyTo(fake, sizePrompt, user, '1,5 GB');
    expect(timePrompt.text).toMatch(/^Frage 2 · /);
    expect(placeholderOf(timePrompt)).toBeDefined();
    await showsButton(fake, ref, 'Question 2 of 2 · When');
    await first.kill9();

    const second = await serve(env);
    fake.say(ref.chat, '14.30 Uhr', user, timePrompt.message_id);
    const api2 = client(second.url);
    const done = await eventually(async () => {
      const r = await api2.get(`/v1/asks/${id}`);
      return r.body.deliveries[0].finalized === 'done' ? r.body : undefined;
    }, 20_000);
    expect(done.result).toMatchObject({
      status: 'answered',
      values: { n: 1.5, at: '14:30' },
      raw: { n: '1,5 GB', at: '14.30 Uhr' },
      answeredBy: { userId: String(user.id) },
    });
    expect(visible(fake, ref).message.reply_markup).toBeUndefined();
  });
});
