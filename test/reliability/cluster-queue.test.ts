import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { BullTimeoutScheduler, TIMEOUT_QUEUE } from '../../src/queue/bull-timeouts.js';
import { redisFactoryFromCluster, type RedisFactory } from '../../src/queue/connections.js';
import { outboxContract, queuePrefix, timeoutSchedulerContract } from '../contracts/queue.contract.js';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';

// The queue contract of test/contracts/queue.contract.ts on a 3-primary Redis Cluster through
// askgate's own cluster connection factory and a hash-tagged BullMQ prefix.

let cluster: TestCluster;
let connect: RedisFactory;

beforeAll(async () => {
  cluster = await startCluster();
  connect = redisFactoryFromCluster({ nodes: cluster.seeds });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('BullMQ queues on a Redis Cluster', () => {
  let scheduler: BullTimeoutScheduler | null = null;
  afterEach(async () => {
    await scheduler?.close({ force: true });
  });

  it('the factory builds Cluster connections, and every key of a queue shares its hash slot', async () => {
    const p = queuePrefix();
    scheduler = new BullTimeoutScheduler({ connect, prefix: p, onError: () => {} });
    await scheduler.start(async () => {});
    await scheduler.schedule('askSlot1', Date.now() + 60_000);
    const probe = connect('worker');
    try {
      expect(probe).toBeInstanceOf(Cluster);
      await probe.ping();
      const keys: string[] = [];
      for (const node of (probe as Cluster).nodes('master')) keys.push(...(await node.keys(`${p}:${TIMEOUT_QUEUE}:*`)));
      expect(keys.length).toBeGreaterThan(2);
      const slots = new Set(await Promise.all(keys.map((k) => (probe as Cluster).cluster('KEYSLOT', k))));
      expect(slots.size).toBe(1);
    } finally {
      await probe.quit();
    }
  });
});

timeoutSchedulerContract('3-primary Redis Cluster', () => connect);
outboxContract('3-primary Redis Cluster', () => connect);
