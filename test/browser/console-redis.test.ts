import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';
import { openSse } from './raw-http.js';

let redis: TestRedis;
let a: RunningAskgate;
let b: RunningAskgate;

beforeAll(async () => {
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url });
  [a, b] = await Promise.all([startTestApp(env), startTestApp(env)]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.dispose();
});

describe('console live updates across replicas (Redis)', () => {
  it('a console on one replica sees asks created and answered on another', async () => {
    const other = client(b.url);
    const { body: earlier } = await other.post('/v1/asks', askBody('run-replica-earlier'));
    const stream = await openSse(a.url, '/console/events');
    try {
      const snapshot = await stream.next((e) => e.event === 'snapshot');
      expect(snapshot.data.asks.map((x: { id: string }) => x.id)).toContain(earlier.id);

      const { body: ask } = await other.post('/v1/asks', askBody('run-replica'));
      await stream.next((e) => e.event === 'ask' && e.data.id === ask.id && e.data.status === 'pending');
      await other.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Production'] }, by: 'dave' });
      const answered = await stream.next(
        (e) => e.event === 'ask' && e.data.id === ask.id && e.data.status === 'answered',
      );
      expect(answered.data.outcome).toMatchObject({
        text: 'Answered: Production — via API',
        by: 'dave',
        channel: 'api',
      });
      expect(answered.data.history.map((h: { type: string }) => h.type)).toEqual(['created', 'answered']);
    } finally {
      stream.close();
    }
  });
});
