import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';
import { NO_AUDIT } from '../helpers/audit-keys.js';

let redis: TestRedis;
let app: RunningAskgate;
let channel: RecordingChannel;
let api: ReturnType<typeof client>;
/** Record reads made by the outbox work (deliver, finalize), by ask id. */
const workReads = new Map<string, number>();

beforeAll(async () => {
  redis = await startRedis();
  channel = new RecordingChannel();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url, ...NO_AUDIT }), [channel]);
  api = client(app.url);
  const store = app.store;
  const get = store.get.bind(store);
  store.get = (askId: string) => {
    if (new Error().stack?.includes('outbox-work')) workReads.set(askId, (workReads.get(askId) ?? 0) + 1);
    return get(askId);
  };
});

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

describe('in-process outbox jobs start from the record their commit wrote (redis)', () => {
  it('the delivery after the create and the outcome edit after the answer read no record', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('reads', { to: { channel: 'test', chat: 'reads-1' } }));
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].status === 'sent');
    const answered = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'carol' });
    expect(answered.status).toBe(200);
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].finalized === 'done');
    expect(channel.delivered.filter((d) => d.askId === ask.id)).toHaveLength(1);
    expect(channel.finalized).toHaveLength(1);
    expect(workReads.get(ask.id) ?? 0).toBe(0);
  });

  it('a job run again (the reconciler, a retry) reads the record and does nothing the second time', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('reads-2', { to: { channel: 'test', chat: 'reads-2' } }));
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].status === 'sent');
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'dave' });
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].finalized === 'done');
    const edits = channel.finalized.length;
    await app.ports.outbox.enqueue({ kind: 'deliver', askId: ask.id, index: 0 });
    await app.ports.outbox.enqueue({ kind: 'finalize', askId: ask.id, index: 0 });
    await eventually(async () => (workReads.get(ask.id) ?? 0) === 2);
    expect(channel.delivered.filter((d) => d.askId === ask.id)).toHaveLength(1);
    expect(channel.finalized).toHaveLength(edits);
  });
});
