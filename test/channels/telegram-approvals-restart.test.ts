// Approvals on Telegram across a crash (issue 36, reliability row): askgate serve is killed (-9)
// between a tap and the message's edit. After Reject… the force-reply prompt is all the bookkeeping
// (its first line names the decision, its binding to the ask is in Redis), so a new process takes
// the reply; after Approve the decision is committed before the edit, so a new process edits.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { client, eventually } from '../helpers/http.js';
import { deliveredRef, newUser, tapLabel, visible } from './telegram-world.js';

let redis: TestRedis;
let fake: FakeTelegramApi;
const processes: AskgateProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeTelegramApi.start();
});
afterEach(async () => {
  for (const p of processes.splice(0)) await p.stop();
});
afterAll(async () => {
  await fake?.close();
  await redis?.dispose();
});

let env: Record<string, string>;
/** askgate serve on the shared Redis and fake (one environment: the same key prefix for every process). */
async function serve(): Promise<AskgateProcess> {
  env ??= testEnv({ REDIS_URL: redis.url, TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.url });
  const started = await startAskgateProcess(env);
  processes.push(started);
  return started;
}

const approval = { action: 'deploy', arguments: { service: 'billing', replicas: 3 }, summary: 'Deploy billing' };

async function ask(url: string, chat: number, runId: string) {
  const api = client(url);
  const created = await api.post('/v1/asks', { runId, to: { channel: 'telegram', chat: String(chat) }, approval });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  return { id, ref: await deliveredRef(api, id), hash: (created.body.approval.actionHash as string).slice(7, 15) };
}

const finalized = (url: string, id: string) =>
  eventually(async () => {
    const r = await client(url).get(`/v1/asks/${id}`);
    return r.body.deliveries[0].finalized === 'done' ? r.body : undefined;
  }, 30_000);

describe('Telegram approvals across kill -9 (askgate serve as a child process)', () => {
  it('kill -9 after Reject… asked why: the new process takes the reply to the prompt as the reason', async () => {
    const first = await serve();
    const alice = newUser(fake, 'Alice', 'alice_crash_reject');
    const { id, ref } = await ask(first.url, alice.id, 'tga-crash-reject');
    await tapLabel(fake, ref, 'Reject…', alice);
    const prompt = await eventually(async () =>
      fake.chatMessages(ref.chat).find((m) => m.from.is_bot && m.reply_to === Number(ref.messageId)),
    );
    // Killed once the prompt is bound to the ask (the binding follows the send).
    const keys = new Redis(redis.url);
    await eventually(async () =>
      (await keys.keys('*msg:telegram:*')).some((k) => k.endsWith(`:${prompt.message_id}`)) ? true : undefined,
    );
    keys.disconnect();
    await first.kill9();

    const second = await serve();
    fake.say(ref.chat, 'not before the audit', alice, prompt.message_id);
    const done = await finalized(second.url, id);
    expect(done.result).toMatchObject({ status: 'answered', decision: 'reject', reason: 'not before the audit' });
    expect(visible(fake, ref).text.endsWith('Rejected by @alice_crash_reject')).toBe(true);
  }, 60_000);

  it('kill -9 between the Approve tap and the message edit: the new process edits the outcome', async () => {
    const first = await serve();
    const bob = newUser(fake, 'Bob', 'bob_crash_approve');
    const { id, ref, hash } = await ask(first.url, bob.id, 'tga-crash-approve');
    // The first edit is refused for a while (429, retry after 3 s): the decision is committed, the edit is not done.
    fake.rateLimitNext('editMessageText', 3);
    const edits = fake.callsOf('editMessageText').length;
    await tapLabel(fake, ref, 'Approve', bob);
    await eventually(async () => (fake.callsOf('editMessageText').length > edits ? true : undefined));
    const committed = await client(first.url).get(`/v1/asks/${id}`);
    expect(committed.body.result).toMatchObject({ decision: 'approve' });
    expect(visible(fake, ref).text).not.toContain('Approved by');
    await first.kill9();
    const killedAt = Date.now();

    const second = await serve();
    await finalized(second.url, id);
    // The edit that went through is the new process's (the first was refused, then its process died).
    expect(fake.callsOf('editMessageText').some((c) => c.ok && c.at > killedAt)).toBe(true);
    expect(visible(fake, ref).text.endsWith(`Approved by @bob_crash_approve (#${hash})`)).toBe(true);
    expect(visible(fake, ref).buttons).toEqual([]);
  }, 60_000);
});
