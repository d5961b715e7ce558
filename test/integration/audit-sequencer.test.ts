// The audit sequencer's guarantees on a real Redis: the append is a compare-and-set (a second
// writer with a stale view appends nothing twice), a holder killed with SIGKILL mid-way loses
// nothing (its successor takes the lease when it expires), and the chain lives in one Cluster slot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisAuditChain, encodeCursor } from '../../src/store/audit-chain.js';
import { chainEntries, EMPTY_HEAD, type AuditEntry } from '../../src/core/audit/chain.js';
import type { AuditBody } from '../../src/core/audit/entry.js';
import { entryHash } from '../../src/audit/crypto.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { startAskgateProcess } from '../helpers/askgate-process.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startCluster } from '../helpers/redis-cluster.js';

const TOKEN = 'audit-seq-token-0123456789';
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

const body = (ask: string, n: number): AuditBody => ({
  id: `${ask}/${n}`,
  type: 'created',
  at: '2026-12-07T10:00:00.000Z',
  ask,
  run: 'r',
});

describe('the append script', () => {
  it('appends only on the head and cursors it was given: a stale writer appends nothing', async () => {
    const chain = new RedisAuditChain(new Redis(redis.url), 'cas');
    try {
      const first = chainEntries(EMPTY_HEAD, [body('a', 0), body('b', 0)], Date.now(), entryHash);
      const moves = [
        { askId: 'a', old: '', next: encodeCursor({ count: 1, last: 'x' }) },
        { askId: 'b', old: '', next: encodeCursor({ count: 1, last: 'y' }) },
      ];
      expect(await chain.append('', first.entries, moves, Date.now())).toBe('ok');
      // A second sequencer that read the empty chain before: the head moved.
      expect(await chain.append('', first.entries, moves, Date.now())).toBe('head_moved');
      // One that read the head again but not a's cursor: the cursor moved.
      const again = chainEntries(first.head, [body('a', 0)], Date.now(), entryHash);
      expect(await chain.append(first.head.hash, again.entries, [moves[0]!], Date.now())).toBe('cursor_moved');
      expect(await chain.head()).toEqual(first.head);
      const rows = await chain.range(0, Date.now() + 1000, 100);
      expect(rows.map(([, json]) => (JSON.parse(json) as AuditEntry).id)).toEqual(['a/0', 'b/0']);
      expect(await chain.cursors(['a', 'b', 'c'])).toEqual(['1 x', '1 y', null]);
    } finally {
      await chain.close();
    }
  });

  it('one lease holder at a time; a released lease is free at once', async () => {
    const chain = new RedisAuditChain(new Redis(redis.url), 'lease');
    try {
      expect(await chain.lease('one', 5000)).toBe(true);
      expect(await chain.lease('two', 5000)).toBe(false);
      expect(await chain.lease('one', 5000)).toBe(true);
      await chain.release('two'); // not its lease: nothing happens
      expect(await chain.lease('two', 5000)).toBe(false);
      await chain.release('one');
      expect(await chain.lease('two', 5000)).toBe(true);
    } finally {
      await chain.close();
    }
  });
});

describe('a sequencer killed with SIGKILL', () => {
  it('loses nothing and doubles nothing: the next holder takes the lease when it expires', async () => {
    const env = testEnv({ REDIS_URL: redis.url, ASKGATE_API_TOKEN: TOKEN });
    const child = await startAskgateProcess(env);
    const q = { questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] };
    const ids: string[] = [];
    let other: Awaited<ReturnType<typeof startTestApp>> | null = null;
    try {
      const api = client(child.url, TOKEN);
      // The child holds the lease (the only replica); some of its asks are appended, some not yet.
      await eventually(async () => (await api.get(`/v1/audit?from=2000-01-01T00:00:00Z`)).status === 200);
      const create = (from: number) =>
        Promise.all(
          Array.from({ length: 30 }, async (_, i) => {
            const made = await api.post('/v1/asks', { runId: `kill-${from + i}`, ...q });
            ids.push(made.body.id as string);
          }),
        );
      await create(0);
      await eventually(async () => {
        const text = (await api.call('GET', '/v1/audit?from=2000-01-01T00:00:00Z')).body as string;
        return text.split('\n').length > 2;
      });
      await create(30);
      await child.kill9();
      other = await startTestApp(env);
      const apiB = client(other.url, TOKEN);
      for (const id of ids.slice(0, 10)) await apiB.post(`/v1/asks/${id}/answer`, { answers: { q: ['Yes'] } });
      const entries = await eventually(async () => {
        const res = await fetch(`${other!.url}/v1/audit?from=2000-01-01T00:00:00Z`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        const lines = (await res.text()).split('\n').filter((l) => l !== '');
        const list = lines.slice(0, -1).map((l) => JSON.parse(l) as AuditEntry);
        const mine = (id: string) => list.filter((e) => e.ask === id).length;
        return ids.every((id, i) => mine(id) === (i < 10 ? 2 : 1)) ? list : undefined;
      }, 20_000);
      expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
      expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
      entries.forEach((e, i) => i > 0 && expect(e.prev).toBe(entries[i - 1]!.hash));
    } finally {
      await other?.close();
      await child.stop().catch(() => undefined);
    }
  });
});

describe('on a Redis Cluster', () => {
  it('the chain lives in one slot: asks on every primary end up in one valid chain', async () => {
    const cluster = await startCluster();
    const app = await startTestApp(
      testEnv({ REDIS_URL: cluster.url, REDIS_CLUSTER: 'true', ASKGATE_API_TOKEN: TOKEN }),
    );
    try {
      const api = client(app.url, TOKEN);
      const q = { questions: [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] };
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const made = await api.post('/v1/asks', { runId: `cluster-${i}`, ...q });
        expect(made.status, JSON.stringify(made.body)).toBe(201);
        ids.push(made.body.id as string);
        await api.post(`/v1/asks/${made.body.id}/answer`, { answers: { q: ['No'] } });
      }
      const entries = await eventually(async () => {
        const text = (await api.call('GET', '/v1/audit?from=2000-01-01T00:00:00Z')).body as string;
        const list = text
          .split('\n')
          .filter((l) => l !== '')
          .slice(0, -1)
          .map((l) => JSON.parse(l) as AuditEntry);
        return ids.every((id) => list.filter((e) => e.ask === id).length === 2) ? list : undefined;
      }, 20_000);
      expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
      entries.forEach((e, i) => i > 0 && expect(e.prev).toBe(entries[i - 1]!.hash));
    } finally {
      await app.close();
      await cluster.stop();
    }
  });
});
