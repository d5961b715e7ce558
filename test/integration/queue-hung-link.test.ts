import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullOutbox } from '../../src/queue/bull-outbox.js';
import { BullStepScheduler } from '../../src/queue/bull-steps.js';
import { redisFactoryFromUrl, SOCKET_TIMEOUT_MS } from '../../src/queue/connections.js';
import { queuePrefix } from '../contracts/queue.contract.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { eventually } from '../helpers/http.js';
import { silentLogger } from '../helpers/logs.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait.js';

// askgate's queue workers behind a link that is cut while it is blackholed: every reconnect made
// then reaches a peer that accepted the connection and never answers (a hung proxy or load
// balancer, a half-open path), and stays that way after the network heals. Neither ioredis nor
// BullMQ time out a handshake, and BullMQ's worker waits for its blocking connection to be ready
// before it fetches again, so without a socket timeout the workers never took another job
// (found as a reliability row whose outcome edit waited in the queue for good).

let redis: TestRedis;
let proxy: FaultProxy;
const open: { close(opts?: { force?: boolean }): Promise<void> }[] = [];

beforeAll(async () => {
  redis = await startRedis();
  proxy = await FaultProxy.start(redis.port);
});

afterAll(async () => {
  await Promise.all(open.map((o) => o.close({ force: true })));
  await proxy?.close();
  await redis?.dispose();
});

/** Retries `work` until it is accepted: the producer may itself be reconnecting right after the heal. */
const accepted = (work: () => Promise<void>) =>
  eventually(() =>
    work().then(
      () => true,
      () => false,
    ),
  );

describe('queue workers after a reconnect that was accepted and never answered', () => {
  it('the outbox and step workers take jobs again once the link heals', async () => {
    const connect = redisFactoryFromUrl(proxy.redisUrl);
    const outbox = new BullOutbox({ connect, prefix: queuePrefix(), logger: silentLogger });
    const steps = new BullStepScheduler({ connect, prefix: queuePrefix(), logger: silentLogger });
    open.push(outbox, steps);
    const ran: string[] = [];
    const fired: string[] = [];
    await outbox.start({ run: async (job) => void ran.push(job.askId), giveUp: async () => {} });
    await steps.start({ timeout: async (askId) => void fired.push(askId) });
    await outbox.enqueue({ kind: 'finalize', askId: 'before', index: 0 });
    await steps.schedule('before', 'timeout', Date.now());
    await eventually(async () => ran.includes('before') && fired.includes('before'));

    proxy.set({ blackhole: true });
    proxy.cutAll();
    await sleep(1500);
    proxy.heal();
    await accepted(() => outbox.enqueue({ kind: 'finalize', askId: 'after', index: 0 }));
    await accepted(() => steps.schedule('after', 'timeout', Date.now()));
    // The hung handshakes are given up after the workers' socket timeout, then reconnect.
    await eventually(
      async () => ran.includes('after') && fired.includes('after'),
      SOCKET_TIMEOUT_MS.worker + 10_000,
      50,
    );
    expect([ran.filter((id) => id === 'after').length, fired.filter((id) => id === 'after').length]).toEqual([1, 1]);
  });
});
