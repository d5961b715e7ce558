import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisFormDrafts } from '../../src/store/form-drafts.js';
import { MemoryFormDrafts } from '../../src/store/memory-form-drafts.js';
import { newDraft } from '../../src/core/drafts.js';
import type { Draft } from '../../src/core/form-draft-store.js';
import type { DraftKey, FormDraftStore } from '../../src/core/ports.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';

let redis: TestRedis;
let conn: Redis;
let cluster: TestCluster;
let clusterConn: Cluster;
let now = 1_000_000;
const clock = { now: () => now };
const RETENTION_MS = 60_000;
let seq = 0;

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startCluster()]);
  conn = new Redis(redis.url);
  clusterConn = new Cluster(cluster.seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
});

afterAll(async () => {
  conn?.disconnect();
  clusterConn?.disconnect();
  await redis?.dispose();
  await cluster?.stop();
});

const questions = [
  { multiSelect: false, options: [1, 2] },
  { multiSelect: true, options: [1, 2, 3] },
];
const user = { channel: 'telegram', userId: '42', username: 'alice' };
const draft = (extra: Partial<Draft> = {}): Draft => ({
  ...newDraft(questions, { askId: 'DraftAsk00001', version: 1, user, now, expiresAt: now + 30_000 }),
  ...extra,
});
const keyOf = (chat = '-100'): DraftKey => ({
  askId: `DraftAsk${String(++seq).padStart(5, '0')}`,
  chat,
  messageId: '7',
});

const stores: [string, () => FormDraftStore][] = [
  [
    'Redis (real redis-server)',
    () => new RedisFormDrafts(conn, { prefix: `t${seq}`, clock, retentionMs: RETENTION_MS }),
  ],
  [
    'Redis Cluster (3 primaries: every script on one key)',
    () => new RedisFormDrafts(clusterConn, { prefix: `c${seq}`, clock, retentionMs: RETENTION_MS }),
  ],
  ['memory', () => new MemoryFormDrafts({ clock, retentionMs: RETENTION_MS })],
];

describe.each(stores)('FormDraftStore: %s', (_name, make) => {
  it('writes by compare-and-set: the first write needs rev 0, a stale rev is a conflict', async () => {
    const store = make();
    const key = keyOf();
    expect(await store.get(key)).toBeNull();
    expect(await store.put(key, 0, draft())).toBe(1);
    expect(await store.put(key, 0, draft({ step: 1 }))).toBe('conflict');
    expect(await store.put(key, 1, draft({ step: 1 }))).toBe(2);
    expect(await store.get(key)).toEqual({ rev: 2, draft: draft({ step: 1 }), closed: false });
  });

  it('ten writers at once on an empty draft: exactly one wins', async () => {
    const store = make();
    const key = keyOf();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.put(key, 0, draft({ holder: { ...user, userId: String(i) } }))),
    );
    expect(results.filter((r) => r === 1)).toHaveLength(1);
    expect(results.filter((r) => r === 'conflict')).toHaveLength(9);
    const winner = results.indexOf(1);
    expect((await store.get(key))!.draft!.holder.userId).toBe(String(winner));
  });

  it('a closed draft takes no more writes; closing a message without a draft creates nothing', async () => {
    const store = make();
    const key = keyOf();
    await store.put(key, 0, draft());
    await store.close(key);
    expect(await store.get(key)).toMatchObject({ rev: 1, closed: true });
    expect(await store.put(key, 1, draft({ step: 1 }))).toBe('closed');
    const empty = keyOf();
    await store.close(empty);
    expect(await store.get(empty)).toBeNull();
    expect(await store.put(empty, 0, draft())).toBe(1);
  });

  it('drafts of different messages are apart', async () => {
    const store = make();
    const a = keyOf();
    await store.put(a, 0, draft());
    expect(await store.get({ ...a, messageId: '8' })).toBeNull();
    expect(await store.get({ ...a, chat: '-101' })).toBeNull();
    expect(await store.get(a)).toMatchObject({ rev: 1 });
  });

  it('own-words pointers lead back to their draft; unknown prompts lead nowhere', async () => {
    const store = make();
    const key = keyOf('12345');
    await store.pointOwn('12345', '99', key, now + 30_000);
    expect(await store.ownOf('12345', '99')).toEqual(key);
    expect(await store.ownOf('12345', '98')).toBeNull();
    expect(await store.ownOf('1234', '599')).toBeNull();
  });
});

describe('RedisFormDrafts keys', () => {
  it('every key expires with the ask (its end plus retention), never later', async () => {
    const store = new RedisFormDrafts(conn, { prefix: 'ttl', clock, retentionMs: RETENTION_MS });
    const key = keyOf();
    await store.put(key, 0, draft({ expiresAt: now + 30_000 }));
    const ttl = await conn.pttl(store.key(key));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000 + RETENTION_MS);
    await store.pointOwn(key.chat, '5', key, now + 30_000);
    const pointer = await conn.pttl(store.ownKey(key.chat, '5'));
    expect(pointer).toBeGreaterThan(0);
    expect(pointer).toBeLessThanOrEqual(30_000 + RETENTION_MS);
    // Closing keeps the TTL it had.
    await store.close(key);
    expect(await conn.pttl(store.key(key))).toBeLessThanOrEqual(ttl);
  });

  it('hostile chat and message ids cannot break the one hash tag (Redis Cluster: one slot per script)', () => {
    const store = new RedisFormDrafts(conn, { prefix: 'tag', clock, retentionMs: RETENTION_MS });
    const k = store.key({ askId: 'DraftAsk00009', chat: '{evil}:x', messageId: '}{:1' });
    expect(k.match(/[{}]/g)).toEqual(['{', '}']);
    expect(k).toContain('{DraftAsk00009}');
    expect(store.key({ askId: 'a', chat: 'b:c', messageId: 'd' })).not.toBe(
      store.key({ askId: 'a', chat: 'b', messageId: 'c:d' }),
    );
  });

  it('a stored document that does not parse reads as no draft (the revision stays for the next write)', async () => {
    const store = new RedisFormDrafts(conn, { prefix: 'bad', clock, retentionMs: RETENTION_MS });
    const key = keyOf();
    await conn.hset(store.key(key), 'rev', '3', 'doc', '{"askId":"x","parts":"__proto__"}');
    expect(await store.get(key)).toEqual({ rev: 3, draft: null, closed: false });
    expect(await store.put(key, 3, draft())).toBe(4);
  });
});

describe('MemoryFormDrafts expiry', () => {
  it('forgets a draft and a pointer once the ask and its retention are over', async () => {
    const store = new MemoryFormDrafts({ clock, retentionMs: RETENTION_MS });
    const key = keyOf();
    await store.put(key, 0, draft({ expiresAt: now + 1000 }));
    await store.pointOwn(key.chat, '1', key, now + 1000);
    now += 1000 + RETENTION_MS;
    expect(await store.get(key)).toBeNull();
    expect(await store.ownOf(key.chat, '1')).toBeNull();
  });
});
