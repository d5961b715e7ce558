import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsk as newAsk } from '../../src/core/lifecycle.js';
import { AskRequestSchema } from '../../src/core/request-schemas.js';
import type { AskRecord } from '../../src/core/schemas.js';
import { CorruptRecordError, encodeAsk, parseStoredAsk } from '../../src/store/ask-doc.js';
import { StoreKeys } from '../../src/store/keys.js';
import { RedisAskStore } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { answered, createAsk, delivered, ended, pendingAsk, uid } from './store.contract.js';

// How an ask is laid out in Redis: compact (a string, defaults left out) and readable across the
// upgrade from the hash of `rev`, `status`, `doc` that askgate wrote before.

const HOUR = 3_600_000;
let server: TestRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.dispose();
});

function fresh() {
  const prefix = `f-${uid(8)}`;
  return { store: new RedisAskStore(redis, { prefix }), keys: new StoreKeys(prefix), prefix };
}

/** Writes a pending ask with raw commands, as the create script before the string form did. */
async function writeOldFormat(keys: StoreKeys, record: AskRecord): Promise<void> {
  const ask = keys.ask(record.runId, record.id);
  await redis.set(keys.idMap(record.id), record.runId, 'PX', HOUR);
  await redis.hset(ask, 'rev', record.rev, 'status', record.status, 'doc', JSON.stringify(record));
  await redis.pexpire(ask, HOUR);
  await redis.hset(keys.run(record.runId), 'version', record.version, 'current', record.id);
  await redis.pexpire(keys.run(record.runId), HOUR);
  await redis.lpush(keys.asks(record.runId), record.id);
  await redis.pexpire(keys.asks(record.runId), HOUR);
}

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
/** An ask made by core as `POST /v1/asks` without a chat target makes it. */
function apiAsk(): AskRecord {
  const request = AskRequestSchema.parse({
    runId: `run-${uid(6)}`,
    questions: [
      { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
    ],
    timeoutSeconds: 600,
  });
  return newAsk(request, uid(14), 1, 600, T0).record;
}

describe('asks stored before the string form (upgrade)', () => {
  it('reads a pending ask by id, by run and in the run history', async () => {
    const { store, keys } = fresh();
    const a = pendingAsk(`run-${uid(6)}`, 1);
    await writeOldFormat(keys, a);
    expect(await store.get(a.id)).toEqual(a);
    expect(await store.getRun(a.runId)).toEqual({ current: a, version: 1 });
    expect(await store.history(a.runId, 10)).toEqual([a]);
  });

  it('getMany reads it among asks stored as strings, on a store that knows none of them', async () => {
    const { store, keys, prefix } = fresh();
    const old = pendingAsk(`run-${uid(6)}`, 1);
    await writeOldFormat(keys, old);
    const a = apiAsk();
    await store.create({ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR });
    const cold = new RedisAskStore(redis, { prefix });
    expect(await cold.getMany([a.id, old.id, 'nope'])).toEqual([a, old, null]);
  });

  it('answers it with one compare-and-set (a stale rev conflicts), then stores it as a string with its TTL', async () => {
    const { store, keys } = fresh();
    const a = pendingAsk(`run-${uid(6)}`, 1);
    await writeOldFormat(keys, a);
    expect(await store.commit({ ...a, rev: 5 }, { ...answered(a), rev: 6 }, { ttlMs: HOUR, publish: true })).toBe(
      'conflict',
    );
    const b = delivered(a);
    expect(await store.commit(a, b, { ttlMs: HOUR, publish: false })).toBe('ok');
    const c = answered(b);
    expect(await store.commit(b, c, { ttlMs: 2 * HOUR, publish: true })).toBe('ok');
    expect(await store.get(a.id)).toEqual(c);
    const key = keys.ask(a.runId, a.id);
    expect(await redis.type(key)).toBe('string');
    expect(await redis.pttl(key)).toBeGreaterThan(HOUR);
    expect(await new RedisAskStore(redis, { prefix: fresh().prefix }).get(a.id)).toBeNull();
  });

  it('expires it (timeout) and finds an ask id that exists when created again', async () => {
    const { store, keys } = fresh();
    const a = pendingAsk(`run-${uid(6)}`, 1);
    await writeOldFormat(keys, a);
    const exists = await store.create({
      record: a,
      expectedVersion: 1,
      supersede: null,
      ttlMs: HOUR,
      retentionMs: HOUR,
    });
    expect(exists).toEqual({ status: 'exists', record: a });
    expect(await store.commit(a, ended(a, 'timeout'), { ttlMs: HOUR, publish: true })).toBe('ok');
    expect((await store.get(a.id))?.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
  });

  it('supersedes it by a new ask on the run; the history holds both', async () => {
    const { store, keys } = fresh();
    const a = pendingAsk(`run-${uid(6)}`, 1);
    await writeOldFormat(keys, a);
    const b = await createAsk(store, a.runId);
    expect(b.version).toBe(2);
    expect((await store.get(a.id))?.result).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    expect((await store.history(a.runId, 10)).map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await store.getRun(a.runId)).current?.id).toBe(b.id);
    expect(await redis.hgetall(keys.run(a.runId))).toEqual({ version: '2', '2': b.id });
  });
});

describe('creating an ask on one connection', () => {
  it('writes the id mapping before the create script runs', async () => {
    const { store, keys } = fresh();
    const monitor = await redis.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') seen.push(args.join(' '));
    });
    const a = apiAsk();
    await store.create({ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR });
    await redis.ping();
    await new Promise((r) => setTimeout(r, 50));
    monitor.disconnect();
    const mapping = seen.findIndex((c) => c.startsWith(`set ${keys.idMap(a.id)}`));
    const script = seen.findIndex((c) => /^eval(sha)? /.test(c) && c.includes(keys.ask(a.runId, a.id)));
    expect(mapping).toBeGreaterThanOrEqual(0);
    expect(script).toBeGreaterThan(mapping);
    expect(await store.get(a.id)).toEqual(a);
  });
});

describe('the stored form of a run', () => {
  it('keeps its history in its listpack hash (no list), trimmed to the 50 newest after an upgrade too', async () => {
    const { store, keys } = fresh();
    const runId = `run-${uid(6)}`;
    for (let v = 1; v <= 3; v++) {
      const old = { ...pendingAsk(runId, v), status: v < 3 ? ('no_answer' as const) : ('pending' as const) };
      await writeOldFormat(keys, old);
    }
    expect(await redis.llen(keys.asks(runId))).toBe(3);
    for (let i = 0; i < 50; i++) await createAsk(store, runId);
    const all = await store.history(runId, 500);
    expect(all.map((r) => r.version)).toEqual(Array.from({ length: 50 }, (_, i) => 53 - i));
    expect(await redis.object('ENCODING', keys.run(runId))).toBe('listpack');
    expect(await redis.hlen(keys.run(runId))).toBe(51);

    const fresh2 = fresh();
    const a = await createAsk(fresh2.store, `run-${uid(6)}`);
    expect(await redis.exists(fresh2.keys.asks(a.runId))).toBe(0);
    expect(await redis.object('ENCODING', fresh2.keys.run(a.runId))).toBe('listpack');
  });
});

describe('the stored form of an ask', () => {
  it('is a string whose JSON leaves out what the key and header say and every default', async () => {
    const { store, keys } = fresh();
    const a = apiAsk();
    await store.create({ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR });
    const key = keys.ask(a.runId, a.id);
    expect(await redis.type(key)).toBe('string');
    const value = (await redis.get(key))!;
    expect(value.startsWith('0 pending {')).toBe(true);
    const json = JSON.parse(value.slice('0 pending '.length)) as Record<string, unknown>;
    expect(value).not.toContain(a.id);
    expect(value).not.toContain(a.runId);
    expect(Object.keys(json).sort()).toEqual(['createdAt', 'questions', 'timeoutSeconds']);
    expect(json.createdAt).toBe(T0);
    expect(json.questions).toEqual([
      { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
    ]);
    expect(await store.get(a.id)).toEqual(a);
  });

  const full = pendingAsk('run-1', 3, 'ask-1');
  const shapes: Array<[string, AskRecord]> = [
    ['an API ask (defaults everywhere)', apiAsk()],
    ['a chat ask with every optional field', full],
    ['targets absent (written before fan-out)', (({ targets: _t, ...r }) => r)({ ...full, targets: [] })],
    ['several targets', { ...full, targets: [full.to!, { channel: 'slack', chat: 'C1' }] }],
    [
      'a sent delivery, finalized',
      { ...delivered(full), deliveries: [{ ...delivered(full).deliveries[0]!, finalized: 'done' }] },
    ],
    ['answered', answered(delivered(full))],
    ['ended without answer', ended(full, 'timeout')],
    ['multi-select only', { ...full, questions: full.questions.map((q) => ({ ...q, multiSelect: true })) }],
    [
      'a policy, agreement and responses',
      {
        ...full,
        policy: {
          remindAfterSeconds: [60],
          escalate: [{ afterSeconds: 120, to: [{ channel: 'slack', chat: 'C2' }] }],
          agree: 2,
        },
        reminded: 1,
        escalated: 0,
        partials: { 'telegram:1': { env: ['Prod'] } },
        responses: [{ answers: { env: ['Prod'] }, answeredBy: { channel: 'telegram', userId: '1' }, answeredAt: 'x' }],
        locale: 'de',
        timeZone: 'Europe/Berlin',
        push: { format: 'a2a-1.0', token: 't' },
      },
    ],
    ['empty history, no result, empty partial', { ...full, history: [], partial: {} }],
    ['a history that no longer starts with its creation', { ...full, history: [{ type: 'delivered', at: 'x' }] }],
    [
      'a created entry of another time or channel',
      {
        ...full,
        history: [
          { type: 'created', at: full.createdAt, channel: 'slack' },
          { type: 'answered', at: 'y' },
        ],
      },
    ],
    ['a deadline moved from createdAt + timeout', { ...full, expiresAt: '2031-01-01T00:00:00.000Z' }],
    ['times that are not ISO times', { ...full, createdAt: 'later', expiresAt: 'never', history: [] }],
    [
      'times that are not in the canonical ISO form',
      { ...full, createdAt: '2030-01-01T00:00:00Z', history: [{ type: 'created', at: '2030-01-01T01:00:00+01:00' }] },
    ],
    ['a later version', { ...full, version: 7 }],
    ['`to` other than the first target', { ...full, targets: [{ channel: 'slack', chat: 'C1' }] }],
    ['`to` null beside targets', { ...full, to: null, targets: [full.to!] }],
    [
      'deliveries to their targets, elsewhere and by escalation',
      {
        ...full,
        targets: [full.to!, { channel: 'slack', chat: 'C1', users: ['U1'] }],
        deliveries: [
          {
            ...full.deliveries[0]!,
            users: ['1001'],
            status: 'sent',
            message: { chat: '-100:42', messageId: '7', thread: '7' },
          },
          {
            channel: 'slack',
            chat: 'C1',
            status: 'sent',
            finalized: 'done',
            message: { chat: 'D9', messageId: '1.2' },
          },
          { channel: 'discord', chat: 'G1', status: 'failed', finalized: 'no', error: 'gone', step: 1, reminded: 2 },
        ],
      },
    ],
  ];

  it.each(shapes)('round-trips losslessly: %s', (_name, record) => {
    const raw = encodeAsk(record);
    const ids = { id: record.id, runId: record.runId };
    expect(parseStoredAsk(raw, 'k', ids)).toStrictEqual(parseStoredAsk(JSON.stringify(record), 'k', ids));
    expect(parseStoredAsk(raw, 'k', ids)).toEqual(record);
    expect(parseStoredAsk(raw, 'k', ids, true)).toEqual(record);
  });

  it.each([
    ['no header', '{"createdAt":1'],
    ['not JSON', '0 pending {"createdAt":'],
    ['not an object', '0 pending []'],
    ['a field of the wrong type', '0 pending {"createdAt":1,"timeoutSeconds":"600","questions":[]}'],
    ['a history that is not a list', '0 pending {"createdAt":1,"timeoutSeconds":6,"questions":[],"later":"x"}'],
    [
      'a delivery that is not an object',
      '0 pending {"createdAt":1,"timeoutSeconds":6,"questions":[],"deliveries":[5]}',
    ],
    ['an unknown status', '0 sleeping {"createdAt":1,"timeoutSeconds":6,"questions":[]}'],
  ])('a corrupt value (%s) is a CorruptRecordError', (_name, raw) => {
    expect(() => parseStoredAsk(raw, 'k', { id: 'a', runId: 'r' })).toThrow(CorruptRecordError);
  });

  it('a value changed by another writer after a read is checked again', async () => {
    const { store, keys } = fresh();
    const a = apiAsk();
    await store.create({ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR });
    expect(await store.get(a.id)).toEqual(a);
    await redis.set(keys.ask(a.runId, a.id), '0 pending {"version":"one"}');
    await expect(store.get(a.id)).rejects.toThrow(CorruptRecordError);
  });
});
