import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { BullStepScheduler, STEP_QUEUE } from '../../src/queue/bull-steps.js';
import { redisFactoryFromCluster, type RedisFactory } from '../../src/queue/connections.js';
import { outboxContract, queuePrefix, stepSchedulerContract } from '../contracts/queue.contract.js';
import { silentLogger } from '../helpers/logs.js';
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
  let scheduler: BullStepScheduler | null = null;
  afterEach(async () => {
    await scheduler?.close({ force: true });
  });

  it('the factory builds Cluster connections, and every key of a queue shares its hash slot', async () => {
    const p = queuePrefix();
    scheduler = new BullStepScheduler({ connect, prefix: p, logger: silentLogger });
    await scheduler.start({ timeout: async () => {} });
    await scheduler.schedule('askSlot1', 'timeout', Date.now() + 60_000);
    const probe = connect('worker');
    try {
      expect(probe).toBeInstanceOf(Cluster);
      await probe.ping();
      const keys: string[] = [];
      for (const node of (probe as Cluster).nodes('master')) keys.push(...(await node.keys(`${p}:${STEP_QUEUE}:*`)));
      expect(keys.length).toBeGreaterThan(2);
      const slots = new Set(await Promise.all(keys.map((k) => (probe as Cluster).cluster('KEYSLOT', k))));
      expect(slots.size).toBe(1);
    } finally {
      await probe.quit();
    }
  });
});

stepSchedulerContract('3-primary Redis Cluster', () => connect);
outboxContract('3-primary Redis Cluster', () => connect);
