import { afterAll, beforeAll } from 'vitest';
import { redisFactoryFromUrl, type RedisFactory } from '../../src/queue/connections.js';
import { startRedis, type TestRedis } from './redis-server.js';

/**
 * A private redis-server for one test file: started before its tests, disposed of after them.
 * `connect` builds askgate's queue connections to it. Read the fields in tests and hooks only.
 */
export function redisForFile(extraArgs: string[] = []): { readonly redis: TestRedis; readonly connect: RedisFactory } {
  let redis: TestRedis | undefined;
  let connect: RedisFactory | undefined;
  beforeAll(async () => {
    redis = await startRedis(extraArgs);
    connect = redisFactoryFromUrl(redis.url);
  });
  afterAll(async () => {
    await redis?.dispose();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('redisForFile: used before its beforeAll ran');
    return value;
  };
  return {
    get redis() {
      return started(redis);
    },
    get connect() {
      return started(connect);
    },
  };
}
