import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { ChannelError } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.dispose();
});

const to = { channel: 'test', chat: 'room-1' };

describe.each(['redis', 'memory'] as const)('delivery and finalization through the outbox (%s)', (mode) => {
  let app: RunningAskgate;
  let channel: RecordingChannel;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    channel = new RecordingChannel();
    app = await startTestApp(testEnv({ REDIS_URL: mode === 'redis' ? redis.url : undefined }), [channel]);
    api = client(app.url);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('delivers, stores the message ref, and edits the message to the outcome', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody(`flow-${mode}`, { to }));
    expect(ask.deliveries).toEqual([{ channel: 'test', chat: 'room-1', status: 'pending', finalized: 'no' }]);
    const sent = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries[0].status === 'sent' && r.body;
    });
    const request = channel.delivered.find((d) => d.askId === ask.id)!;
    expect(request.view.buttons?.map((b) => b.label)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    expect(sent.deliveries[0].message).toEqual({ chat: 'room-1', messageId: expect.any(String) });

    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'carol' });
    const done = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries[0].finalized === 'done' && r.body;
    });
    const edit = channel.finalized.find((f) => f.ref.messageId === done.deliveries[0].message.messageId)!;
    expect(edit.outcome.text).toMatch(/^Answered: Staging/);
  });

  it('retries a transient failure after retry_after and then delivers', async () => {
    channel.failNext(new ChannelError('429 Too Many Requests', false, 150), new ChannelError('502', false));
    // Taken before the POST: the first attempt (and its 429) may happen before the POST returns.
    const started = Date.now();
    const { body: ask } = await api.post('/v1/asks', askBody(`flow-retry-${mode}`, { to }));
    await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].status === 'sent');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(channel.delivered.filter((d) => d.askId === ask.id)).toHaveLength(1);
  });

  it('a permanent failure ends the ask undelivered at once, and wakes the waiter', async () => {
    channel.failNext(new ChannelError('403 Forbidden: bot was blocked by the user', true));
    const res = await api.post('/v1/asks?wait=10', askBody(`flow-fail-${mode}`, { to }));
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
    expect(res.body.deliveries[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/blocked/) });
  });

  it('an ask cancelled before delivery is not sent', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody(`flow-cancel-${mode}`, { to }));
    await api.post(`/v1/asks/${ask.id}/cancel`);
    const final = await eventually(async () => {
      const r = await api.get(`/v1/asks/${ask.id}`);
      return r.body.deliveries[0].status !== 'pending' && r.body;
    });
    // Either it was sent just before the cancel (then edited) or never sent at all.
    if (final.deliveries[0].status === 'sent') {
      await eventually(async () => (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].finalized === 'done');
    } else expect(final.deliveries[0].error).toMatch(/ended before delivery/);
  });
});
