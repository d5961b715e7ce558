import { describe, expect, it } from 'vitest';
import { BullStepScheduler } from '../../src/queue/bull-steps.js';
import { redisFactoryFromUrl } from '../../src/queue/connections.js';
import { stepSchedulerContract } from '../contracts/queue.contract.js';
import { silentLogger } from '../helpers/logs.js';
import { redisForFile } from '../helpers/redis-file.js';
import { startRedis } from '../helpers/redis-server.js';

const shared = redisForFile();

stepSchedulerContract('standalone redis-server', () => shared.connect);

describe('BullStepScheduler: Redis unavailable', () => {
  it('fails fast when Redis was never reachable, went away, or hangs', async () => {
    const never = new BullStepScheduler({
      connect: redisFactoryFromUrl('redis://127.0.0.1:1'),
      producerDeadlineMs: 500,
      logger: silentLogger,
    });
    let started = Date.now();
    await expect(never.schedule('askG1', 'timeout', Date.now() + 1000)).rejects.toThrow(/timed out/);
    expect(Date.now() - started).toBeLessThan(1500);
    await never.close();

    const own = await startRedis();
    const s = new BullStepScheduler({
      connect: redisFactoryFromUrl(own.url, { commandTimeoutMs: 300 }),
      logger: silentLogger,
    });
    try {
      await s.schedule('askG2', 'timeout', Date.now() + 60_000);
      process.kill(own.pid(), 'SIGSTOP');
      started = Date.now();
      await expect(s.schedule('askG3', 'timeout', Date.now() + 60_000)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1500);
      process.kill(own.pid(), 'SIGCONT');
      await own.stop();
      started = Date.now();
      await expect(s.schedule('askG4', 'timeout', Date.now() + 60_000)).rejects.toThrow();
      await s.cancel('askG4', 'timeout'); // best effort: never throws
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      try {
        process.kill(own.pid(), 'SIGCONT');
      } catch {
        // already exited
      }
      await s.close();
      await own.dispose();
    }
  });
});
