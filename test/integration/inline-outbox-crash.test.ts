import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { deliveredRef, newUser } from '../channels/telegram-world.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
const processes: AskgateProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
});

afterAll(async () => {
  for (const p of processes) await p.kill9().catch(() => {});
  await fake?.close();
  await redis?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The platform call in flight when askgate is killed: held, then failed, so it leaves nothing on screen. */
const HELD_MS = 1_500;
const badGateway = { error_code: 502, description: 'Bad Gateway' };

/**
 * Outbox jobs run in-process (no BullMQ job exists while they run): a kill -9 in the middle of
 * one leaves only the write-ahead sweep mark, and the reconciler of the next process re-drives it.
 */
describe('kill -9 during an in-process outbox job (askgate serve as child processes, Telegram through the fake)', () => {
  const env = () =>
    testEnv({
      REDIS_URL: redis.url,
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.url,
      LOG_LEVEL: 'warn',
    });
  const start = async (e: Record<string, string>) => {
    const p = await startAskgateProcess(e);
    processes.push(p);
    return { process: p, api: client(p.url) };
  };

  it('a delivery cut off by the crash is made once after the restart', async () => {
    const e = env();
    const user = newUser(fake, 'Dana', 'dana');
    const first = await start(e);
    fake.delayNext('sendMessage', HELD_MS);
    fake.failNext('sendMessage', badGateway);
    const { body: ask } = await first.api.post(
      '/v1/asks',
      askBody('crash-deliver', { to: { channel: 'telegram', chat: String(user.id) } }),
    );
    await sleep(300); // the inline delivery's sendMessage is held by the fake
    await first.process.kill9();
    await sleep(HELD_MS);
    expect(fake.chatMessages(user.id)).toEqual([]);

    const second = await start(e);
    await deliveredRef(second.api, ask.id, 15_000);
    await sleep(1_000); // a second run would have sent by now
    expect(fake.chatMessages(user.id)).toHaveLength(1);
    const events = JSON.stringify((await second.api.get(`/v1/asks/${ask.id}/events`)).body);
    expect(events.match(/"delivered"/g)).toHaveLength(1);
    await second.process.stop();
  });

  it('an outcome edit cut off by the crash is made once after the restart', async () => {
    const e = env();
    const user = newUser(fake, 'Eli', 'eli');
    const first = await start(e);
    const { body: ask } = await first.api.post(
      '/v1/asks',
      askBody('crash-finalize', { to: { channel: 'telegram', chat: String(user.id) } }),
    );
    const ref = await deliveredRef(first.api, ask.id);
    const edits = () =>
      fake
        .callsOf('editMessageText')
        .filter((c) => c.ok && String(c.params.chat_id) === ref.chat && String(c.params.message_id) === ref.messageId);
    fake.delayNext('editMessageText', HELD_MS);
    fake.failNext('editMessageText', badGateway);
    const answered = await first.api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
    expect(answered.status).toBe(200);
    await sleep(300); // the inline finalize's editMessageText is held by the fake
    await first.process.kill9();
    await sleep(HELD_MS);
    expect(edits()).toEqual([]);

    const second = await start(e);
    const done = await eventually(async () => {
      const r = await second.api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries?.[0]?.finalized === 'done' && r.body;
    }, 15_000);
    expect(done.result).toMatchObject({ status: 'answered' });
    await sleep(1_000);
    expect(edits()).toHaveLength(1);
    expect(fake.message(ref.chat, ref.messageId)?.reply_markup).toBeUndefined();
    await second.process.stop();
  });
});
