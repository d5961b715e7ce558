import { afterAll, beforeAll } from 'vitest';
import { redisFactoryFromUrl, type RedisFactory } from '../../src/queue/connections.js';
import { outboxContract } from '../contracts/queue.contract.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

let redis: TestRedis;
let connect: RedisFactory;

beforeAll(async () => {
  redis = await startRedis();
  connect = redisFactoryFromUrl(redis.url);
});

afterAll(async () => {
  await redis?.dispose();
});

outboxContract('standalone redis-server', () => connect);
