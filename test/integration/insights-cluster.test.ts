import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { RedisAskStore } from '../../src/store/redis-store.js';
import type { AskRecord } from '../../src/core/schemas.js';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';
import { askRecord, iso, T0 } from '../helpers/records.js';
import { eventually } from '../helpers/http.js';

// On a Cluster a day's counters live in their own slot: the commit that ends an ask sends the
// rollup right after it (as the pending index's removal), instead of inside the commit script.
let cluster: TestCluster;
let conn: Cluster;

beforeAll(async () => {
  cluster = await startCluster();
  conn = new Cluster(cluster.seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
}, 60_000);
afterAll(async () => {
  conn?.disconnect();
  await cluster?.stop();
});

const q = [{ id: 'env', header: 'Deploy', question: 'Where?', options: [{ label: 'A' }] }] as AskRecord['questions'];

describe('insights on Redis Cluster', () => {
  it('an ask ended by a commit is counted on its day; the pending figures come from the index', async () => {
    const store = new RedisAskStore(conn, { prefix: 'inscl', clock: { now: () => T0 + 120_000 } });
    const opts = { expectedVersion: 0, supersede: null, ttlMs: 3_600_000, retentionMs: 3_600_000 };
    const ended = askRecord(q, { id: 'EndedAsk00001', runId: 'run-a', agent: 'deploy-bot', rev: 0 });
    const waiting = askRecord(q, { id: 'Waiting000001', runId: 'run-b', rev: 0, createdAt: iso(T0 + 60_000) });
    expect((await store.create({ ...opts, record: ended })).status).toBe('created');
    expect((await store.create({ ...opts, record: waiting })).status).toBe('created');
    const next: AskRecord = {
      ...ended,
      rev: 1,
      status: 'answered',
      result: {
        status: 'answered',
        answers: { env: ['A'] },
        answeredBy: { channel: 'api', userId: 'alice' },
        answeredAt: iso(T0 + 90_000),
      },
    };
    expect(await store.commit(ended, next, { ttlMs: 3_600_000, publish: true })).toBe('ok');
    const day = iso(T0).slice(0, 10);
    const fields = await eventually(async () => (await store.insights.days([day])).get(day));
    expect(fields).toMatchObject({
      'n|*': 1,
      'o.answered|*': 1,
      'n|a:deploy-bot': 1,
      'n|c:telegram': 1,
      'n|p:api:alice': 1,
      '#a': 1,
    });
    await eventually(async () => (await store.insights.pending(T0 + 120_000)).count === 1);
    expect(await store.insights.pending(T0 + 120_000)).toEqual({
      count: 1,
      oldestCreatedMs: T0 + 60_000,
      ages: [1, 0, 0, 0, 0],
    });
  });
});
