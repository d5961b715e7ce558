import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BullOutbox, OUTBOX_QUEUE } from '../../src/queue/bull-outbox.js';
import { QUEUE_EVENTS_MAX } from '../../src/queue/bull-steps.js';
import { queuePrefix } from '../contracts/queue.contract.js';
import { redisForFile } from '../helpers/redis-file.js';
import { silentLogger } from '../helpers/logs.js';
import { waitFor } from '../helpers/wait.js';

// Each pending ask with a chat delivery adds outbox events; BullMQ keeps 10 000 of them by default
// (some 80 B per pending ask at 10 000 asks). askgate reads none, so the stream is capped.

const shared = redisForFile();
let admin: Redis;
const open: BullOutbox[] = [];

beforeAll(() => {
  admin = new Redis(shared.redis.url);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close({ force: true })));
});
afterAll(() => {
  admin?.disconnect();
});

describe('BullOutbox: events stream', () => {
  it('keeps the events stream of the outbox queue to about QUEUE_EVENTS_MAX entries', async () => {
    const prefix = queuePrefix();
    const outbox = new BullOutbox({ connect: shared.connect, prefix, logger: silentLogger });
    open.push(outbox);
    const total = QUEUE_EVENTS_MAX + 500;
    for (let i = 0; i < total; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => outbox.enqueue({ kind: 'deliver', askId: `askE${i + j}`, index: 0 })),
      );
    const events = `${prefix}:${OUTBOX_QUEUE}:events`;
    expect(await admin.xlen(events)).toBeGreaterThan(0);
    expect(await admin.xlen(events)).toBeLessThanOrEqual(QUEUE_EVENTS_MAX + 100);

    // The worker's events (active, completed, removed) are trimmed alike.
    let ran = 0;
    await outbox.start({ run: async () => void ran++, giveUp: async () => {} });
    await waitFor(() => ran === total, 20_000);
    expect(await admin.xlen(events)).toBeLessThanOrEqual(QUEUE_EVENTS_MAX + 100);
  });
});
