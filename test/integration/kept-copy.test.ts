import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { encodeToken } from '../../src/core/token.js';
import type { RunningAskgate } from '../../src/main.js';
import { NO_AUDIT } from '../helpers/audit-keys.js';

/**
 * An answer or tap in the process that last wrote an ask starts from the copy it kept
 * (`store.peek`) instead of reading the record: two askgate processes on one Redis, where the
 * other process changes the ask in between, so the kept copy is stale.
 */
let redis: TestRedis;
let a: RunningAskgate;
let b: RunningAskgate;
const channelA = new RecordingChannel('test');
const channelB = new RecordingChannel('test');
let apiA: ReturnType<typeof client>;
let apiB: ReturnType<typeof client>;
/** Record reads (`store.get`) of process A, by ask id. */
const readsA = new Map<string, number>();
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url, ...NO_AUDIT });
  a = await startTestApp(env, [channelA]);
  b = await startTestApp(env, [channelB]);
  apiA = client(a.url);
  apiB = client(b.url);
  const get = a.store.get.bind(a.store);
  a.store.get = (askId: string) => {
    readsA.set(askId, (readsA.get(askId) ?? 0) + 1);
    return get(askId);
  };
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.dispose();
});

const carol = { channel: 'test', userId: 'U1', username: 'carol' };
const dave = { channel: 'test', userId: 'U2', username: 'dave' };

/** An ask created and delivered by process A in chat `chat`. */
async function deliveredByA(chat: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { status, body } = await apiA.post(
    '/v1/asks',
    askBody(`kept-${++run}`, { to: { channel: 'test', chat }, ...extra }),
  );
  expect(status).toBe(201);
  await eventually(async () => (await apiA.get(`/v1/asks/${body.id}`)).body.deliveries[0].status === 'sent');
  return body.id;
}

/** Taps the first option (Staging) through process A's channel. */
function tapStagingOnA(askId: string, chat: string, user = carol) {
  const token = encodeToken({ askId, version: 1, choice: { kind: 'option', index: 0 } });
  return channelA.sink!.button({ channel: 'test', token, user, chat });
}

describe('answers start from the copy this process kept (redis, two processes)', () => {
  it('a tap on an ask this process delivered reads no record: the commit is its only round trip', async () => {
    const id = await deliveredByA('kept-1');
    readsA.clear();
    expect(await tapStagingOnA(id, 'kept-1')).toMatchObject({ kind: 'recorded' });
    expect(readsA.get(id) ?? 0).toBe(0);
    const { body } = await apiB.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
  });

  it('an API answer through the process that created the ask reads no record either', async () => {
    const id = await deliveredByA('kept-2');
    readsA.clear();
    const answered = await apiA.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] }, by: 'erin' });
    expect(answered.status).toBe(200);
    expect(answered.body.result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    expect(readsA.get(id) ?? 0).toBe(0);
  });

  it('an ask the other process answered: the tap here reports it answered and changes nothing', async () => {
    const id = await deliveredByA('kept-3');
    const first = await apiB.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] }, by: 'frank' });
    expect(first.status).toBe(200);
    expect(a.store.peek(id)?.status).toBe('pending'); // A's copy is stale now
    expect(await tapStagingOnA(id, 'kept-3')).toMatchObject({ kind: 'already_resolved' });
    const stored = await b.store.get(id);
    expect(stored?.result).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    expect(stored?.history.filter((h) => h.type === 'answered')).toHaveLength(1);
  });

  it('an API answer here after the other process answered is a 409 with the first result', async () => {
    const id = await deliveredByA('kept-4');
    await apiB.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] }, by: 'frank' });
    const late = await apiA.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] }, by: 'gina' });
    expect(late.status).toBe(409);
    expect(late.body.error.result).toMatchObject({ answers: { env: ['Production'] } });
  });

  it('an ask whose record is gone is a 404, though this process still keeps it as answered', async () => {
    const id = await deliveredByA('kept-7');
    await apiA.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] }, by: 'ivan' });
    // The answer's follow-up write (the message's outcome edit, committed in-process) may still be in
    // flight when the API call returns, and the kept copy is withheld while a write of the ask is.
    expect(await eventually(async () => a.store.peek(id)?.status)).toBe('answered');
    const admin = new Redis(redis.url);
    const keys = await admin.keys(`*${id}*`);
    expect(keys.length).toBeGreaterThan(0);
    await admin.del(...keys);
    admin.disconnect();
    const late = await apiA.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] }, by: 'judy' });
    expect(late.status).toBe(404);
  });

  it('agree: 2: a response the other process recorded since is kept, and the tap here completes the agreement', async () => {
    const id = await deliveredByA('kept-5', { agree: 2 });
    const first = await apiB.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] }, by: 'hank' });
    expect(first.body.status).toBe('pending');
    readsA.clear();
    expect(await tapStagingOnA(id, 'kept-5', dave)).toMatchObject({ kind: 'recorded' });
    expect(readsA.get(id)).toBe(1); // the stale copy's commit was refused: one fresh read, then the commit
    const { body } = await apiA.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    expect(body.result.responses).toHaveLength(2);
  });

  it('a tap the kept copy would turn away is judged on a fresh read', async () => {
    const id = await deliveredByA('kept-6');
    await apiB.post(`/v1/asks/${id}/cancel`, {});
    readsA.clear();
    // A chat the ask was never delivered to: refused, but only after reading the record.
    expect(await tapStagingOnA(id, 'elsewhere')).toMatchObject({ kind: 'not_found' });
    expect(readsA.get(id)).toBe(1);
    // From its own chat: the kept copy says pending, the commit is refused, the record says cancelled.
    expect(await tapStagingOnA(id, 'kept-6')).toMatchObject({ kind: 'already_resolved' });
    const { body } = await apiA.get(`/v1/asks/${id}`);
    expect(body.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });
  });
});
