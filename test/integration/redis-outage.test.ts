import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let app: RunningAskgate;

beforeAll(async () => {
  redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }));
});

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

describe('Redis outage', () => {
  it('answers 503 quickly while Redis is down and recovers when it is back', async () => {
    const api = client(app.url);
    const { body: ask } = await api.post('/v1/asks', askBody('outage', { timeoutSeconds: 120 }));
    await redis.stop();

    for (const call of [
      () => api.post('/v1/asks', askBody('outage-2')),
      () => api.get(`/v1/asks/${ask.id}`),
      () => api.get('/readyz'),
    ]) {
      const started = Date.now();
      const res = await call();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
    }
    const res = await api.post('/v1/asks', askBody('outage-3'));
    expect(res.body.error.code).toBe('store_unavailable');

    await redis.restart();
    const back = await eventually(
      async () => {
        const r = await api.get(`/v1/asks/${ask.id}`);
        return r.status === 200 && r;
      },
      15_000,
      200,
    );
    expect(back.body.status).toBe('pending');
    const answered = await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
    expect(answered.status).toBe(200);
    expect((await api.get('/readyz')).status).toBe(200);
  });
});
