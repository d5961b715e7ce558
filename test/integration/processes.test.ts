import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testEnv } from '../helpers/app.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { askBody, client, eventually } from '../helpers/http.js';

let redis: TestRedis;
const children: AskgateProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill9()));
  await redis?.dispose();
});

async function spawnAskgate(env: Record<string, string>): Promise<AskgateProcess> {
  const child = await startAskgateProcess(env);
  children.push(child);
  return child;
}

describe('askgate as separate processes sharing one Redis', () => {
  it('a ?wait waiter on one process wakes when another process records the answer', async () => {
    const env = testEnv({ REDIS_URL: redis.url });
    const [a, b] = await Promise.all([spawnAskgate(env), spawnAskgate(env)]);
    const apiA = client(a.url);
    const apiB = client(b.url);
    const { body: ask } = await apiA.post('/v1/asks', askBody('proc-wait'));
    const started = Date.now();
    const waiting = apiB.get(`/v1/asks/${ask.id}?wait=20`);
    await new Promise((r) => setTimeout(r, 300));
    await apiA.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] }, by: 'bob' });
    const res = await waiting;
    expect(res.body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Staging'] },
      answeredBy: { userId: 'bob' },
    });
    // Woken by the event, not by the end of the 20 s wait.
    expect(Date.now() - started).toBeLessThan(10_000);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('after kill -9 a new process finds pending asks; their timeouts fire and answers work', async () => {
    const env = testEnv({ REDIS_URL: redis.url });
    const first = await spawnAskgate(env);
    const api1 = client(first.url);
    const { body: toAnswer } = await api1.post('/v1/asks', askBody('proc-crash-a', { timeoutSeconds: 60 }));
    const { body: toExpire } = await api1.post('/v1/asks', askBody('proc-crash-b', { timeoutSeconds: 3 }));
    await first.kill9();

    const second = await spawnAskgate(env);
    const api2 = client(second.url);
    expect((await api2.get(`/v1/asks/${toAnswer.id}`)).body.status).toBe('pending');
    const answered = await api2.post(`/v1/asks/${toAnswer.id}/answer`, { answers: { env: ['Production'] } });
    expect(answered.body.result.answers).toEqual({ env: ['Production'] });
    const expired = await api2.get(`/v1/asks/${toExpire.id}?wait=10`);
    expect(expired.body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    await second.stop();
  });

  it('the reconciler resolves an ask whose timeout job was lost while no worker ran', async () => {
    const env = testEnv({ REDIS_URL: redis.url });
    const first = await spawnAskgate(env);
    const { body: ask } = await client(first.url).post('/v1/asks', askBody('proc-lost-job', { timeoutSeconds: 1 }));
    await first.kill9();
    // Lose every BullMQ key of this instance (as after a Redis restart without AOF for the queue).
    const admin = new Redis(redis.url);
    const keys = await admin.keys(`{${env.ASKGATE_KEY_PREFIX}}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await admin.del(...keys);
    admin.disconnect();
    await new Promise((r) => setTimeout(r, 1500));

    const second = await spawnAskgate(env);
    const res = await eventually(async () => {
      const r = await client(second.url).get(`/v1/asks/${ask.id}`);
      return r.body.status !== 'pending' && r;
    });
    expect(res.body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    await second.stop();
  });
});

describe('embedded mode', () => {
  it('runs without REDIS_URL on the memory store and says so', async () => {
    const child = await spawnAskgate(testEnv());
    // stdout and stderr are separate pipes: wait for both lines rather than assume their order.
    await eventually(async () =>
      /store: memory \(embedded: pending asks do not survive a restart/.test(child.output()),
    );
    await eventually(async () => /listening on loopback only/.test(child.output()));
    const api = client(child.url);
    const { body: ask } = await api.post('/v1/asks', askBody('embedded'));
    const waiting = api.get(`/v1/asks/${ask.id}?wait=10`);
    await api.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
    expect((await waiting).body.result.status).toBe('answered');
    const { body: short } = await api.post('/v1/asks', askBody('embedded-timeout', { timeoutSeconds: 1 }));
    expect((await api.get(`/v1/asks/${short.id}?wait=5`)).body.result).toMatchObject({
      status: 'no_answer',
      reason: 'timeout',
    });
    await child.stop();
  });

  it('refuses an evicting Redis with a clear message', async () => {
    const evicting = await startRedis(['--maxmemory-policy', 'allkeys-lru']);
    try {
      await expect(spawnAskgate(testEnv({ REDIS_URL: evicting.url }))).rejects.toThrow(
        /maxmemory-policy is "allkeys-lru".*noeviction/,
      );
    } finally {
      await evicting.dispose();
    }
  });
});
