import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsk as newAsk } from '../../src/core/lifecycle.js';
import { AskRequestSchema } from '../../src/core/request-schemas.js';
import type { AskRecord, HistoryEntry } from '../../src/core/schemas.js';
import { AskRecordSchema, DeliverySchema, HistoryTypeSchema } from '../../src/core/schemas.js';
import { CorruptRecordError, encodeAsk, KnownValues, parseStoredAsk } from '../../src/store/ask-doc.js';
import {
  CHANNEL_TYPES,
  compactRecord,
  DELIVERY_STATUS_CODES,
  FINALIZED_CODES,
  HISTORY_TYPE_CODES,
} from '../../src/store/compact-record.js';
import { lengthenKeys, LONG_KEYS, SHORT_KEYS, shortenKeys } from '../../src/store/key-names.js';
import { StoreKeys } from '../../src/store/keys.js';
import { RedisAskStore } from '../../src/store/redis-store.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { answered, createAsk, delivered, ended, pendingAsk, uid } from './store.contract.js';

// How an ask is laid out in Redis: compact (a string, defaults left out).

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

/** Another store over the same keys (a cold cache: it reads and checks every value). */
const fresh2 = (prefix: string) => new RedisAskStore(redis, { prefix });

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

/** `record` as the schema reads its JSON: what every stored form must read back as. */
const schemaRead = (record: AskRecord): AskRecord => AskRecordSchema.parse(JSON.parse(JSON.stringify(record)));

describe('writes on one connection', () => {
  // A script's first run on a server is a refused EVALSHA and an EVAL: run each once first.
  beforeAll(async () => {
    const { store } = fresh();
    const a = await createAsk(store, `run-${uid(6)}`);
    expect(await store.commit(a, delivered(a), { ttlMs: HOUR, publish: false })).toBe('ok');
  });

  /** The commands askgate sent (not those its scripts ran) while `work` ran, from MONITOR. */
  async function sent(work: () => Promise<void>): Promise<string[]> {
    const monitor = await redis.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') seen.push(args.join(' '));
    });
    await work();
    await redis.ping();
    await new Promise((r) => setTimeout(r, 50));
    monitor.disconnect();
    return seen.filter((c) => !/^(ping|monitor)$/i.test(c));
  }

  it('a create is one script: the ask, its id mapping, the recent list and the sweep mark, all with TTLs', async () => {
    const { store, keys } = fresh();
    const a = apiAsk();
    const commands = await sent(async () => {
      const created = await store.create({
        ...{ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR },
        along: { mark: T0 + 5000 },
      });
      expect(created.status).toBe('created');
    });
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^eval(sha)? /);
    expect(await redis.get(keys.idMap(a.id))).toBe(a.runId);
    expect(await redis.zscore(keys.recent(), a.id)).toBe(String(Date.parse(a.createdAt)));
    expect(await redis.zscore(keys.sweep(), a.id)).toBe(String(T0 + 5000));
    for (const key of [keys.idMap(a.id), keys.recent(), keys.sweep()]) expect(await redis.pttl(key)).toBeGreaterThan(0);
    expect(await fresh2(keys.prefix).get(a.id)).toEqual(a);
  });

  it('a create that finds the ask or a moved run writes no mapping, list entry or mark', async () => {
    const { store, keys } = fresh();
    const a = apiAsk();
    const args = { record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR };
    expect((await store.create(args)).status).toBe('created');
    await redis.del(keys.idMap(a.id), keys.recent(), keys.sweep());
    expect((await store.create({ ...args, along: { mark: T0 } })).status).toBe('exists');
    const b = { ...apiAsk(), runId: a.runId, version: 1 };
    expect((await store.create({ ...args, record: b, along: { mark: T0 } })).status).toBe('conflict');
    expect(await redis.exists(keys.idMap(a.id), keys.idMap(b.id), keys.recent(), keys.sweep())).toBe(0);
  });

  it('a commit makes its along writes in its script, and none when it conflicts', async () => {
    const { store, keys } = fresh();
    const a = await createAsk(store, `run-${uid(6)}`);
    const conv = { channel: 'telegram', chat: '-100:42' };
    await store.indexes.addToConversation(conv, a.id, T0 + HOUR);
    await store.indexes.markForSweep(a.id, T0);
    const a1 = answered(a);
    const stale = await sent(async () => {
      const along = { unsweep: true, leave: [conv] };
      expect(await store.commit(a1, { ...a1, rev: a1.rev + 1 }, { ttlMs: HOUR, publish: true, along })).toBe(
        'conflict',
      );
    });
    expect(stale).toHaveLength(1);
    expect(await redis.zscore(keys.sweep(), a.id)).toBe(String(T0));
    expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([a.id]);
    const commands = await sent(async () => {
      const along = { unsweep: true, leave: [conv] };
      expect(await store.commit(a, a1, { ttlMs: HOUR, publish: true, along })).toBe('ok');
    });
    expect(commands).toHaveLength(1);
    expect(await redis.zscore(keys.sweep(), a.id)).toBeNull();
    expect(await store.indexes.pendingInConversation(conv, T0)).toEqual([]);
  });
});

describe('the stored form of a run', () => {
  it('keeps its history in its listpack hash, trimmed to the 50 newest', async () => {
    const { store, keys } = fresh();
    const runId = `run-${uid(6)}`;
    for (let i = 0; i < 53; i++) await createAsk(store, runId);
    const all = await store.history(runId, 500);
    expect(all.map((r) => r.version)).toEqual(Array.from({ length: 50 }, (_, i) => 53 - i));
    expect(await redis.object('ENCODING', keys.run(runId))).toBe('listpack');
    expect(await redis.hlen(keys.run(runId))).toBe(51);

    const fresh2 = fresh();
    const a = await createAsk(fresh2.store, `run-${uid(6)}`);
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
    expect(value.startsWith('0 pending ~{')).toBe(true);
    const json = JSON.parse(lengthenKeys(value.slice('0 pending ~'.length))) as Record<string, unknown>;
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
            reached: 'read',
          },
          { channel: 'discord', chat: 'G1', status: 'failed', finalized: 'no', error: 'gone', step: 1, reminded: 2 },
        ],
      },
    ],
  ];

  it.each(shapes)('round-trips losslessly: %s', (_name, record) => {
    const raw = encodeAsk(record);
    const ids = { id: record.id, runId: record.runId };
    expect(parseStoredAsk(raw, 'k', ids)).toStrictEqual(schemaRead(record));
    expect(parseStoredAsk(raw, 'k', ids)).toEqual(record);
    expect(parseStoredAsk(raw, 'k', ids, true)).toEqual(record);
  });

  it.each(shapes)('stores its coded JSON with short keys after a ~: %s', (_n, r) => {
    const raw = encodeAsk(r);
    const head = `${r.rev} ${r.status} `;
    const coded = compactRecord(r);
    expect(raw).toBe(`${head}~${shortenKeys(coded)}`);
    expect(raw.length).toBeLessThan(head.length + coded.length);
    expect(lengthenKeys(raw.slice(head.length + 1))).toBe(coded);
    for (const k of SHORT_KEYS.keys()) expect(raw).not.toContain(`"${k}":`);
  });

  it.each([
    ['a field of the wrong type', '0 pending ~{"O":1,"P":"600","Q":[]}'],
    ['a short body that is not JSON', '0 pending ~{"Q":'],
    ['an empty short body', '0 pending ~'],
    ['an unterminated string', '0 pending ~{"Q":[],"O":1,"P":6,"Z":"abc'],
    ['a stray backslash', '0 pending ~{"Q":[],"O":1,"P":6,"!\\":"x\\"}'],
  ])('a corrupt short-key value (%s) is a CorruptRecordError', (_name, raw) => {
    expect(() => parseStoredAsk(raw, 'k', { id: 'a', runId: 'r' })).toThrow(CorruptRecordError);
  });

  it.each([
    ['no header', '{"createdAt":1'],
    ['no ~', '0 pending {"createdAt":1,"timeoutSeconds":6,"questions":[]}'],
    ['not JSON', '0 pending ~{"createdAt":'],
    ['not an object', '0 pending ~[]'],
    ['a field of the wrong type', '0 pending ~{"createdAt":1,"timeoutSeconds":"600","questions":[]}'],
    ['a history that is not a list', '0 pending ~{"createdAt":1,"timeoutSeconds":6,"questions":[],"later":"x"}'],
    [
      'a delivery that is not an object',
      '0 pending ~{"createdAt":1,"timeoutSeconds":6,"questions":[],"deliveries":[5]}',
    ],
    ['an unknown status', '0 sleeping ~{"createdAt":1,"timeoutSeconds":6,"questions":[]}'],
  ])('a corrupt value (%s) is a CorruptRecordError', (_name, raw) => {
    const tilde = raw.indexOf('~') + 1;
    const short = tilde > 0 ? raw.slice(0, tilde) + shortenKeys(raw.slice(tilde)) : raw;
    expect(() => parseStoredAsk(short, 'k', { id: 'a', runId: 'r' })).toThrow(CorruptRecordError);
  });

  it("reading back the value this process just wrote returns the record it wrote, unparsed; another writer's value is parsed", async () => {
    const { store, keys, prefix } = fresh();
    const a = await createAsk(store, `run-${uid(6)}`);
    expect(await store.get(a.id)).toBe(a);
    const a1 = delivered(a);
    expect(await store.commit(a, a1, { ttlMs: HOUR, publish: false })).toBe('ok');
    expect(await store.get(a.id)).toBe(a1);
    expect((await store.getRun(a.runId)).current).toBe(a1);
    // Another replica answers: its value is read, parsed and equal to what it wrote, not a1.
    const a2 = answered(a1);
    expect(await fresh2(prefix).commit(a1, a2, { ttlMs: HOUR, publish: true })).toBe('ok');
    const read = await store.get(a.id);
    expect(read).not.toBe(a2);
    expect(read).toEqual(a2);
    // Read again, the same parsed record comes back.
    expect(await store.get(a.id)).toBe(read);
    expect(await redis.get(keys.ask(a.runId, a.id))).toMatch(/^2 answered ~/);
  });

  it('a value changed by another writer after a read is checked again', async () => {
    const { store, keys } = fresh();
    const a = apiAsk();
    await store.create({ record: a, expectedVersion: 0, supersede: null, ttlMs: HOUR, retentionMs: HOUR });
    expect(await store.get(a.id)).toEqual(a);
    await redis.set(keys.ask(a.runId, a.id), `0 pending ~${shortenKeys('{"version":"one"}')}`);
    await expect(store.get(a.id)).rejects.toThrow(CorruptRecordError);
  });
});

describe('short key names in the stored ask (key-names.ts)', () => {
  // A pending Telegram ask as stored (short keys, coded values: the delivery `sent`, the entry
  // `delivered` 484 ms after createdAt on the channel of `to`).
  const SHORT =
    '1 pending ~{"O":1796424944761,"P":3600,"R":[{"G":"telegram","H":"20000756","I":["20000756"]}],"S":[{"J":1,"K":{"L":"101"}}],"T":[{"M":1,"N":484,"L":"101"}],"Q":[{"B":"env","E":"Deploy","C":"Where should I deploy?","D":[{"A":"Staging"},{"A":"Production","F":"live traffic"}]}]}';
  /** {@link SHORT} as written before the questions came last (read the same). */
  const SHORT_BEFORE =
    '1 pending ~{"Q":[{"B":"env","E":"Deploy","C":"Where should I deploy?","D":[{"A":"Staging"},{"A":"Production","F":"live traffic"}]}],"O":1796424944761,"P":3600,"R":[{"G":"telegram","H":"20000756","I":["20000756"]}],"S":[{"J":1,"K":{"L":"101"}}],"T":[{"M":1,"N":484,"L":"101"}]}';

  it('keeps the codes it stored (a code, once given, names its field forever)', () => {
    expect([...SHORT_KEYS].map(([name, code]) => `${code}=${name}`).join(' ')).toBe(
      'A=label B=id C=question D=options E=header F=description G=channel H=chat I=users J=status K=message ' +
        'L=messageId M=type N=at O=createdAt P=timeoutSeconds Q=questions R=targets S=deliveries T=later ' +
        'U=thread V=finalized W=multiSelect X=history Y=result Z=answers 0=answeredBy 1=answeredAt 2=userId ' +
        '3=reason 4=partial 5=idempotencyKey 6=callbackUrl 7=locale 8=timeZone 9=username a=name b=error ' +
        'c=step d=reminded e=escalated f=policy g=remindAfterSeconds h=escalate i=afterSeconds j=to ' +
        'k=onTimeout l=default m=agree n=responses o=partials p=by q=defaults r=detail s=expiresAt ' +
        't=version u=push v=format w=token x=authorization y=agent z=values',
    );
  });

  it('writes a pending Telegram ask as pinned', () => {
    const ids = { id: uid(14), runId: 'run-1' };
    const record = parseStoredAsk(SHORT, 'k', ids);
    expect(record.deliveries[0]?.message).toEqual({ chat: '20000756', messageId: '101' });
    expect(record.history.map((e) => e.type)).toEqual(['created', 'delivered']);
    expect(encodeAsk(record)).toBe(SHORT);
    expect(parseStoredAsk(SHORT, 'k', ids)).toStrictEqual(record);
    expect(parseStoredAsk(SHORT, 'k', ids, true)).toEqual(record);
    expect(parseStoredAsk(SHORT_BEFORE, 'k', ids)).toStrictEqual(record);
  });

  /** Keys a user may choose (question ids, `<channel>:<userId>`, answer keys) and values, at their worst. */
  const HOSTILE_KEYS = [
    ...['A', 'Q', 'T', '0', '9', 'a', 'x', 'y', 'z', '!', '!A', '!!', '!!x', '!label', '!y', '~'],
    ...['label', 'questions', 'later', 'constructor', 'toString', 'hasOwnProperty', 'prototype'],
    ...['a"b', '"', '\\', '\\"', 'x":1,"y', '":', ',"questions":', '{', '}', ',', ':', '::', ':x', 'x:'],
    ...['', ' ', 'telegram:1', 'é', '🙂', '\u2028', '\n', '\u0000'],
  ];
  const HOSTILE_VALUES = [',"questions":', '"A":', '","label":"', '\\', '\\"', '{"Q":1}', '!A', '~', 'a,', ':x'];

  it('a cold read brings back every field, the ones added since the codes ran out included (agent, approval, partialRaw)', () => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const record: AskRecord = {
      ...delivered(full),
      agent: 'deploy-bot',
      questions: [],
      approval: {
        action: 'send',
        arguments: { to: 'x@y.co', A: 1, label: { '!': [null, true] } },
        decisions: ['approve', 'reject'],
        requestedBy: { channel: 'telegram', userId: '7' },
        actionHash: 'sha256:ab',
      },
      partialRaw: { q1: '3,5' },
    };
    const ids = { id: record.id, runId: record.runId };
    const raw = encodeAsk(record);
    expect(parseStoredAsk(raw, 'k', ids)).toEqual(record);
    expect(parseStoredAsk(raw, 'k', ids, true)).toEqual(record);
  });

  it('round-trips every key a user may choose and values that look like keys, exactly', () => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const values = (k: string) => [k, ...HOSTILE_VALUES];
    const hostile: AskRecord = {
      ...answered(delivered(full)),
      questions: HOSTILE_VALUES.map((v, i) => ({
        id: `q${i}`,
        header: v,
        question: v,
        options: [{ label: v, description: v }, { label: 'A' }],
        multiSelect: i % 2 === 0,
      })),
      partial: Object.fromEntries(HOSTILE_KEYS.map((k) => [k, values(k)])),
      partials: Object.fromEntries(HOSTILE_KEYS.map((k) => [k, Object.fromEntries(HOSTILE_KEYS.map((j) => [j, [k]]))])),
      result: {
        status: 'answered',
        answers: Object.fromEntries(HOSTILE_KEYS.map((k) => [k, values(k)])),
        answeredBy: { channel: ',"A":', userId: '"Q":', username: '!', name: 'label' },
        answeredAt: ',"at":',
      },
      policy: { onTimeout: { default: Object.fromEntries(HOSTILE_KEYS.map((k) => [k, [k]])) } },
      idempotencyKey: '","Q":[],"',
      history: [
        { type: 'created', at: full.createdAt },
        { type: 'reply_rejected', at: 'x', detail: '{"A":"\\"}', userId: '!!', reason: ':' },
      ],
    };
    const raw = encodeAsk(hostile);
    const ids = { id: hostile.id, runId: hostile.runId };
    // Compared as JSON text (order and all): toStrictEqual compares `constructor` properties, and
    // a user's key `constructor` makes that compare two arrays by identity.
    const text = (raw: string) => JSON.stringify(parseStoredAsk(raw, 'k', ids));
    expect(text(raw)).toBe(JSON.stringify(schemaRead(hostile)));
    expect(parseStoredAsk(raw, 'k', ids)).toEqual(hostile);
    expect(parseStoredAsk(raw, 'k', ids, true)).toEqual(hostile);
    expect(Object.keys(parseStoredAsk(raw, 'k', ids).partial)).toEqual(Object.keys(hostile.partial));
    expect(Object.keys(hostile.partial).length).toBe(HOSTILE_KEYS.length);
    // The long-name text of every key comes back exactly.
    const long = compactRecord(hostile);
    expect(lengthenKeys(shortenKeys(long))).toBe(long);
  });

  it.each([
    ['a field name becomes its code', '{"questions":[{"id":"q1","label":"x"}]}', '{"Q":[{"B":"q1","A":"x"}]}'],
    ['values stay, field names or not', '{"label":"label","at":["A","!x"]}', '{"A":"label","N":["A","!x"]}'],
    ['a key that is a code gets a !', '{"A":1,"Q":2,"0":3,"a":4}', '{"!A":1,"!Q":2,"!0":3,"!a":4}'],
    ['so does one that is a code not given yet', '{"y":1,"z":2}', '{"!y":1,"!z":2}'],
    ['and a key starting with !', '{"!":1,"!A":2,"!!":3,"!label":4}', '{"!!":1,"!!A":2,"!!!":3,"!!label":4}'],
    ['other keys stay', '{"q1":1,"env":2,"telegram:1":3,"":4,"~":5,"AB":6}', null],
    ['__proto__ and friends stay', '{"__proto__":1,"constructor":2,"toString":3}', null],
    ['a key with an escaped quote', '{"a\\"b":1,"x\\":1,\\"y":2,"\\\\":3}', null],
    ['a value holding a key', '{"chat":"x\\",\\"label\\":\\"y","at":1}', '{"H":"x\\",\\"label\\":\\"y","N":1}'],
    ['a value ending in a backslash', '{"chat":"\\\\","at":"\\\\\\\\","id":1}', '{"H":"\\\\","N":"\\\\\\\\","B":1}'],
    [
      'strings ending in , or { before one starting with :',
      '["a,",":x",{"at":"{",":y":1}]',
      '["a,",":x",{"N":"{",":y":1}]',
    ],
    ['a key ending in , or {', '{"k,":{"at":1},"{":{"id":2}}', '{"k,":{"N":1},"{":{"B":2}}'],
    ['nested objects and arrays', '[{"a":[{"label":{"A":{}}}]},[],{}]', '[{"!a":[{"A":{"!A":{}}}]},[],{}]'],
    ['text that is no object', '"label"', null],
    ['a number', '12', null],
  ])('shortenKeys / lengthenKeys: %s', (_name, long, short) => {
    const expected = short ?? long;
    expect(shortenKeys(long)).toBe(expected);
    expect(lengthenKeys(expected)).toBe(long);
    expect(JSON.parse(expected)).toBeDefined();
  });

  it.each(['{"Q":', '{"Q', '{"!', '"\\', '\\"', '{"a\\":', '', '~', '{"Q":"\\\\\\"}'])(
    'lengthenKeys never throws on text that is not JSON: %s',
    (text) => {
      expect(typeof lengthenKeys(text)).toBe('string');
      expect(typeof shortenKeys(text)).toBe('string');
    },
  );

  it('gives each name one code and no name is a code or starts with !', () => {
    expect(SHORT_KEYS.size).toBe(LONG_KEYS.size);
    expect(new Set(SHORT_KEYS.values()).size).toBe(SHORT_KEYS.size);
    for (const [name, code] of SHORT_KEYS) {
      expect(code).toMatch(/^[A-Za-z0-9]$/);
      expect(LONG_KEYS.get(code)).toBe(name);
      expect(name).toMatch(/^[A-Za-z]{2,}$/); // never a code (1 character), never needs a JSON escape
    }
  });

  // Every code is given: fields added after the last one (a typed question's kind and constraints,
  // the raw text of typed answers, an approval and its decision) are stored under their long names.
  it('has a code for every field name of the record schema but those listed', () => {
    const names = new Set<string>(['later']);
    const seen = new Set<unknown>();
    const walk = (schema: unknown): void => {
      if (!schema || seen.has(schema)) return;
      seen.add(schema);
      const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
      if (!def) return;
      if (def.type === 'object')
        for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) {
          names.add(k);
          walk(v);
        }
      for (const k of ['innerType', 'element', 'valueType', 'in', 'out']) walk(def[k]);
      for (const o of (def.options as unknown[] | undefined) ?? []) walk(o);
    };
    walk(AskRecordSchema);
    expect(names.size).toBeGreaterThan(50);
    expect([...names].filter((n) => !SHORT_KEYS.has(n)).sort()).toEqual([
      'action',
      'actionHash',
      'approval',
      'arguments',
      'argumentsSchema',
      'async',
      'days',
      'decision',
      'decisions',
      'effectiveHash',
      'extended',
      'from',
      'hours',
      'integer',
      'kind',
      'max',
      'maxLength',
      'min',
      'minLength',
      'partialRaw',
      'pattern',
      'preview',
      'raw',
      'reached',
      'remindEverySeconds',
      'requestedBy',
      'rev',
      'runId',
      'summary',
      'tool',
      'unit',
    ]);
  });

  it('round-trips random JSON with keys and values drawn from the worst cases (seeded)', () => {
    let seed = 19;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const pool = [...HOSTILE_KEYS, ...HOSTILE_VALUES, ...SHORT_KEYS.keys(), ...SHORT_KEYS.values()];
    const text = () => (rand() < 0.8 ? pick(pool) : pick(pool) + pick(pool));
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.3) return pick([text(), 1, -2.5, true, null]);
      if (r < 0.5) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 5); i > 0; i--) o[text()] = value(depth + 1);
      return o;
    };
    // The same mapping done on parsed objects: the reference the text rewrite must agree with.
    const codes = new Set([...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz']);
    const shortKey = (k: string) => SHORT_KEYS.get(k) ?? (k.startsWith('!') || codes.has(k) ? `!${k}` : k);
    const reference = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reference)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [shortKey(k), reference(x)]))
          : v;
    for (let i = 0; i < 2000; i++) {
      const v = value(0);
      const long = JSON.stringify(v);
      const short = shortenKeys(long);
      expect(JSON.parse(short)).toEqual(reference(v));
      expect(lengthenKeys(short)).toBe(long);
    }
  });
});

describe('coded values in the ~ form (compact-record.ts)', () => {
  const ids = { id: 'ask-1', runId: 'run-1' };
  /** The JSON of a stored `~` value with long key names (its values still coded). */
  const codedJson = (raw: string) => JSON.parse(lengthenKeys(raw.slice(raw.indexOf('~') + 1))) as Record<string, any>;
  /** Encodes, checks both reads against the schema's read and the record, and gives the coded JSON. */
  function roundTrip(record: AskRecord): Record<string, any> {
    const ids = { id: record.id, runId: record.runId };
    const raw = encodeAsk(record);
    const text = (r: AskRecord) => JSON.stringify(r);
    const checked = parseStoredAsk(raw, 'k', ids);
    // Same keys in the same order as the record read through the schema, trusted or checked.
    expect(text(checked)).toBe(text(schemaRead(record)));
    expect(text(parseStoredAsk(raw, 'k', ids, true))).toBe(text(checked));
    expect(checked).toEqual(record);
    return codedJson(raw);
  }
  /** The entry a new ask starts with (core/new-ask.ts). */
  const created = (r: AskRecord): HistoryEntry => ({ type: 'created', at: r.createdAt, channel: r.to!.channel });
  /** A pending Telegram ask (to: telegram) whose history is its creation and then `later`. */
  const telegramAsk = (later: HistoryEntry[], over: Partial<AskRecord> = {}): AskRecord => {
    const base = { ...pendingAsk('run-1', 1, 'ask-1'), ...over };
    return { ...base, history: [created(base), ...later] };
  };
  const at = (ms: number) => new Date(T0 + ms).toISOString();

  it('keeps the numbers it stored (a number, once given, names its value forever)', () => {
    const pin = (table: readonly string[]) => table.map((v, i) => `${i}=${v}`).join(' ');
    expect(pin(HISTORY_TYPE_CODES)).toBe(
      '0=created 1=delivered 2=delivery_failed 3=reply_rejected 4=hint_sent 5=partial 6=answered ' +
        '7=no_answer 8=finalized 9=finalize_failed 10=webhook_delivered 11=webhook_failed 12=reminded ' +
        '13=escalated 14=response 15=guard_blocked 16=delivery_status 17=extended',
    );
    expect(pin(DELIVERY_STATUS_CODES)).toBe('0=pending 1=sent 2=failed');
    expect(pin(FINALIZED_CODES)).toBe('0=no 1=done 2=failed');
    // Which types leave out the channel of `to`: what a missing channel means, so fixed too.
    expect([...CHANNEL_TYPES].sort().join(' ')).toBe(
      'answered delivered delivery_failed finalize_failed finalized hint_sent partial reply_rejected response',
    );
  });

  it('has a number for every value of the schema, each once', () => {
    for (const [table, values] of [
      [HISTORY_TYPE_CODES, HistoryTypeSchema.options],
      [DELIVERY_STATUS_CODES, DeliverySchema.shape.status.options],
      [FINALIZED_CODES, DeliverySchema.shape.finalized.unwrap().options],
    ] as const) {
      expect(new Set(table).size).toBe(table.length);
      expect([...table].sort()).toEqual([...values].sort());
    }
    for (const type of CHANNEL_TYPES) expect(HISTORY_TYPE_CODES).toContain(type);
  });

  it('questions come last, from a cache by identity: every record sharing the array, and only those, gets them', () => {
    const a = pendingAsk('run-1', 1, 'ask-1');
    const first = encodeAsk(a);
    const b = answered(delivered(a)); // the same questions array, as every transition keeps it
    expect(b.questions).toBe(a.questions);
    const other = { ...a, questions: [{ ...a.questions[0]!, question: 'Somewhere else?' }] };
    for (const r of [b, other, a]) {
      const value = encodeAsk(r);
      expect(value.endsWith(`,"Q":${shortenKeys(JSON.stringify(JSON.parse(compactRecord(r)).questions))}}`)).toBe(true);
      expect(parseStoredAsk(value, 'k', { id: r.id, runId: r.runId })).toEqual(r);
    }
    expect(encodeAsk(a)).toBe(first);
  });

  it('writes and reads a literal value with every coding (pinned)', () => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const record: AskRecord = {
      ...full,
      rev: 4,
      targets: [full.to!, { channel: 'slack', chat: 'C1' }],
      deliveries: [
        {
          ...full.deliveries[0]!,
          users: ['1001'],
          status: 'sent',
          message: { chat: '-100:42', messageId: '9' },
          finalized: 'done',
        },
        { channel: 'slack', chat: 'C1', status: 'failed', error: 'gone', finalized: 'no' },
      ],
      history: [
        created(full),
        { type: 'delivered', at: at(1500), channel: 'telegram', messageId: '9' },
        { type: 'delivery_failed', at: at(1500), channel: 'slack', detail: 'gone' },
        { type: 'hint_sent', at: at(-1000), reason: 'invalid_selection' },
        { type: 'webhook_failed', at: '2030-01-01T00:00:05Z', detail: 'HTTP 500' },
        { type: 'no_answer', at: 'soon', channel: 'telegram', reason: 'cancelled' },
        { type: 'finalized', at: at(90_000), channel: 'telegram' },
      ],
    };
    const QUESTIONS =
      '"Q":[{"B":"env","E":"Deploy","C":"Where to?","D":[{"A":"Staging","F":"safe"},' +
      '{"A":"Prod"}]},{"B":"q2","C":"Notes?","D":[{"A":"A"},{"A":"B"}],"W":true}]';
    const REST =
      '"O":1893456000000,' +
      '"6":"https://agent.example/hook","R":[{"G":"telegram","H":"-100:42","U":"7","I":["1001"]},{"G":"slack","H":"C1"}],' +
      '"4":{"q2":["A"]},"S":[{"J":1,"V":1,"K":{"L":"9"}},{"J":2,"b":"gone"}],' +
      '"T":[{"M":1,"N":1500,"L":"9"},{"M":2,"N":1500,"G":"slack","r":"gone"},' +
      '{"M":4,"N":-1000,"3":"invalid_selection","G":null},{"M":11,"N":"2030-01-01T00:00:05Z","r":"HTTP 500"},' +
      '{"M":7,"N":"soon","G":"telegram","3":"cancelled"},{"M":8,"N":90000}]';
    const VALUE = `4 pending ~{"P":900,"5":"key-1",${REST},${QUESTIONS}}`;
    expect(encodeAsk(record)).toBe(VALUE);
    // Written before the questions came last: read the same.
    expect(parseStoredAsk(`4 pending ~{"P":900,"5":"key-1",${QUESTIONS},${REST}}`, 'k', ids)).toEqual(record);
    expect(parseStoredAsk(VALUE, 'k', ids)).toEqual(record);
    expect(parseStoredAsk(VALUE, 'k', ids, true)).toEqual(record);
    roundTrip(record);
  });

  const TYPES = HistoryTypeSchema.options;
  it.each(TYPES)('an entry of type %s round-trips with the channel of `to`, another one or none', (type) => {
    const code = HISTORY_TYPE_CODES.indexOf(type);
    const elides = CHANNEL_TYPES.has(type);
    for (const [channel, stored] of [
      ['telegram', elides ? undefined : 'telegram'],
      ['slack', 'slack'],
      [undefined, elides ? null : undefined],
      ['null', 'null'],
      ['', ''],
    ] as const) {
      const entry: HistoryEntry = { type, at: at(7), ...(channel === undefined ? {} : { channel }), userId: '42' };
      const json = roundTrip(telegramAsk([entry]));
      expect(json.later).toEqual([
        { type: code, at: 7, ...(stored === undefined ? {} : { channel: stored }), userId: '42' },
      ]);
    }
  });

  it('an extended entry keeps both deadlines as given, and the record its count and async', () => {
    const entry: HistoryEntry = {
      type: 'extended',
      at: at(9),
      channel: 'api',
      userId: 'ops',
      from: '2030-01-01T14:15:00.000Z',
      to: '2030-01-08T14:15:00.000Z',
    };
    const record: AskRecord = { ...telegramAsk([entry]), async: true, extended: 1, expiresAt: entry.to! };
    const json = roundTrip(record);
    expect(json.later.at(-1)).toEqual({
      type: 17,
      at: 9,
      channel: 'api',
      userId: 'ops',
      from: entry.from,
      to: entry.to,
    });
    expect(json).toMatchObject({ async: true, extended: 1, expiresAt: entry.to });
  });

  it('a guard_blocked entry stores its number and the tool under its long name, any name round-tripping', () => {
    for (const tool of ['deploy', 'A', '!A', 'tool', 'T', '"M":1', '\\', 'déployer 🚀', 'x'.repeat(200)]) {
      const entry: HistoryEntry = { type: 'guard_blocked', at: at(9), tool };
      const json = roundTrip(telegramAsk([entry]));
      expect(json.later).toEqual([{ type: 15, at: 9, tool }]);
    }
  });

  it.each(TYPES)('an entry of type %s on an ask with `to` null (API) keeps its channel or none', (type) => {
    for (const channel of ['telegram', 'api', '', undefined]) {
      const a = apiAsk();
      const entry: HistoryEntry = {
        type,
        at: new Date(T0 + 12).toISOString(),
        ...(channel === undefined ? {} : { channel }),
      };
      const json = roundTrip({ ...a, history: [...a.history, entry] });
      expect(json.later).toEqual([
        { type: HISTORY_TYPE_CODES.indexOf(type), at: 12, ...(channel === undefined ? {} : { channel }) },
      ]);
    }
  });

  it('fan-out to several channels: only the channel of the first target is left out', () => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const targets = [full.to!, { channel: 'slack', chat: 'C1' }, { channel: 'discord', chat: 'G1' }];
    const record = telegramAsk(
      [
        { type: 'delivered', at: at(1), channel: 'telegram', messageId: '1' },
        { type: 'delivered', at: at(2), channel: 'slack', messageId: '2' },
        { type: 'delivery_failed', at: at(3), channel: 'discord', detail: 'no' },
        { type: 'answered', at: at(4), channel: 'slack', userId: 'U1' },
        { type: 'finalized', at: at(5), channel: 'telegram' },
        { type: 'finalized', at: at(6) },
      ],
      {
        targets,
        deliveries: targets.map((t, i) => ({
          ...t,
          status: i < 2 ? 'sent' : 'failed',
          finalized: i === 0 ? 'done' : 'no',
        })),
      },
    );
    const json = roundTrip(record);
    expect(json.later.map((e: Record<string, unknown>) => e.channel)).toEqual([
      undefined,
      'slack',
      'discord',
      'slack',
      undefined,
      null,
    ]);
    expect(json.deliveries).toEqual([{ status: 1, finalized: 1 }, { status: 1 }, { status: 2 }]);
  });

  it.each([
    ['484 ms after createdAt', undefined, at(484), 484],
    ['at createdAt', undefined, at(0), 0],
    ['before createdAt', undefined, at(-86_400_000), -86_400_000],
    ['years after createdAt', undefined, at(3e11), 3e11],
    ['not in the canonical ISO form', undefined, '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z'],
    ['with an offset', undefined, '2030-01-01T01:00:00.000+01:00', '2030-01-01T01:00:00.000+01:00'],
    ['finer than a ms', undefined, '2030-01-01T00:00:00.0001Z', '2030-01-01T00:00:00.0001Z'],
    ['not a time', undefined, 'x', 'x'],
    ['empty', undefined, '', ''],
    ['a time when createdAt is not canonical: after the epoch', '2030-01-01T00:00:00Z', at(5), T0 + 5],
    ['a time when createdAt is no time: after the epoch', 'later', at(5), T0 + 5],
    [
      'the earliest time, createdAt the latest',
      '+275760-09-13T00:00:00.000Z',
      '-271821-04-20T00:00:00.000Z',
      -1.728e16,
    ],
    // 1.728e16 - 1 is no float: the difference would not give `at` back.
    ['too far from createdAt to be exact', '-271821-04-20T00:00:00.001Z', '+275760-09-13T00:00:00.000Z', null],
  ])('an entry time %s', (_name, createdAt, entryAt, stored) => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const c = createdAt ?? full.createdAt;
    const record: AskRecord = {
      ...full,
      createdAt: c,
      expiresAt: 'never',
      history: [
        { type: 'created', at: c, channel: 'telegram' },
        { type: 'reminded', at: entryAt, detail: 'reminder 1' },
      ],
    };
    const json = roundTrip(record);
    expect(json.later).toEqual([{ type: 12, at: stored ?? entryAt, detail: 'reminder 1' }]);
  });

  it('a history not starting with its creation is coded the same (times after createdAt)', () => {
    const full = pendingAsk('run-1', 1, 'ask-1');
    const record: AskRecord = {
      ...full,
      history: [
        { type: 'created', at: at(-5), channel: 'telegram' },
        { type: 'delivered', at: at(5), channel: 'telegram', messageId: '1' },
        { type: 'no_answer', at: at(6), reason: 'timeout' },
      ],
    };
    expect(roundTrip(record).history).toEqual([
      { type: 0, at: -5, channel: 'telegram' },
      { type: 1, at: 5, messageId: '1' },
      { type: 7, at: 6, reason: 'timeout' },
    ]);
  });

  it('never codes what a user chose: values equal to codes, names or numbers stay', () => {
    const words = ['delivered', 'sent', 'done', 'no', 'failed', 'created', '0', '1', 'null', 'telegram', '~', '"M":1'];
    const hostile = telegramAsk(
      [
        { type: 'reply_rejected', at: at(1), channel: 'telegram', userId: 'delivered', reason: 'sent' },
        { type: 'partial', at: at(2), channel: 'telegram', userId: '1', questions: ['status', 'type', 'at'] },
        { type: 'answered', at: at(3), channel: 'telegram', userId: 'null', detail: '{"M":1,"G":null}' },
      ],
      {
        questions: words.map((w, i) => ({
          id: `q${i}`,
          header: w,
          question: w,
          options: [{ label: w }],
          multiSelect: false,
        })),
        partial: Object.fromEntries(words.map((w) => [w, [w]])),
        idempotencyKey: 'sent',
        result: {
          status: 'answered',
          answers: { type: ['delivered'], status: ['sent'], finalized: ['done'], at: ['1'] },
          answeredBy: { channel: 'telegram', userId: 'delivered' },
          answeredAt: at(3),
        },
        status: 'answered',
      },
    );
    const json = roundTrip(hostile);
    expect(json.questions.map((q: { header: string }) => q.header)).toEqual(words);
    expect(json.result.answers).toEqual({ type: ['delivered'], status: ['sent'], finalized: ['done'], at: ['1'] });
    expect(json.later[2]).toEqual({ type: 6, at: 3, userId: 'null', detail: '{"M":1,"G":null}' });
    // A Telegram ask whose channel name is itself odd.
    const odd = pendingAsk('run-1', 1, 'ask-1');
    for (const channel of ['', 'null', '0', '"', '\\', 'telegram\u0000']) {
      const to = { ...odd.to!, channel };
      const r: AskRecord = {
        ...odd,
        to,
        targets: [to],
        deliveries: [{ ...odd.deliveries[0]!, channel, status: 'sent', message: { chat: to.chat, messageId: '1' } }],
        history: [
          created({ ...odd, to }),
          { type: 'delivered', at: at(1), channel, messageId: '1' },
          { type: 'finalized', at: at(2) },
          { type: 'no_answer', at: at(3), channel },
        ],
      };
      expect(roundTrip(r).later).toEqual([
        { type: 1, at: 1, messageId: '1' },
        { type: 8, at: 2, channel: null },
        { type: 7, at: 3, channel },
      ]);
    }
  });

  it.each([
    ['an entry type without a value', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":18,"N":0}]}'],
    ['a negative entry type', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":-1,"N":0}]}'],
    ['a fractional entry type', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":1.5,"N":0}]}'],
    ['an entry type that is no value', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":"sent","N":0}]}'],
    ['a delivery status without a value', '0 pending ~{"Q":[],"O":1,"P":6,"S":[{"G":"t","H":"1","J":3}]}'],
    ['a finalized without a value', '0 pending ~{"Q":[],"O":1,"P":6,"S":[{"G":"t","H":"1","J":1,"V":3}]}'],
    ['a null channel on an ask without `to`', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":1,"N":0,"G":null}]}'],
    [
      'a null channel on a type that keeps its channel',
      '0 pending ~{"Q":[],"O":1,"P":6,"R":[{"G":"t","H":"1"}],"T":[{"M":7,"N":0,"G":null}]}',
    ],
    ['an entry time beyond the last date', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":1,"N":8.64e15}]}'],
    ['an entry time that is an object', '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":1,"N":{}}]}'],
    ['an entry that is no object', '0 pending ~{"Q":[],"O":1,"P":6,"T":[1]}'],
  ])('a corrupt coded value (%s) is a CorruptRecordError', (_name, raw) => {
    expect(() => parseStoredAsk(raw, 'k', { id: 'a', runId: 'r' })).toThrow(CorruptRecordError);
  });

  it('an entry key __proto__ sets no prototype', () => {
    const raw = '0 pending ~{"Q":[],"O":1,"P":6,"T":[{"M":12,"N":0,"__proto__":{"detail":"x"}}]}';
    const record = parseStoredAsk(raw, 'k', { id: 'a', runId: 'r' });
    expect(record.history[1]).toEqual({ type: 'reminded', at: '1970-01-01T00:00:00.001Z' });
    expect(record.history[1]?.detail).toBeUndefined();
  });
});

describe('KnownValues (what a store skips when it reads a value again)', () => {
  it('keeps the record only for the latest value of a key, and only for the newest keys', () => {
    const known = new KnownValues(3, 2);
    const r = (n: number) => ({ ...apiAsk(), rev: n });
    const [r1, r2, r3] = [r(1), r(2), r(3)];
    known.note('a', 'v1', r1);
    expect(known.record('a', 'v1')).toBe(r1);
    expect(known.record('a', 'v0')).toBeUndefined();
    known.note('a', 'v2', r2);
    expect(known.record('a', 'v1')).toBeUndefined();
    expect(known.has('a', 'v1')).toBe(false);
    known.note('b', 'w', r3);
    known.note('c', 'x', r3);
    // Records for the 2 newest keys, values for the 3 newest.
    expect(known.record('a', 'v2')).toBeUndefined();
    expect(known.has('a', 'v2')).toBe(true);
    expect(known.record('c', 'x')).toBe(r3);
    known.note('d', 'y', r1);
    expect(known.has('a', 'v2')).toBe(false);
    expect([known.has('b', 'w'), known.has('c', 'x'), known.has('d', 'y')]).toEqual([true, true, true]);
  });

  it('withholds the last value of a key while a write of it is in flight, failed writes included', async () => {
    const known = new KnownValues();
    known.note('a', 'v1', { ...apiAsk(), rev: 1 });
    let finish: () => void = () => {};
    const first = known.whileWriting('a', () => new Promise<void>((r) => (finish = r)));
    const second = known.whileWriting('a', () => Promise.reject(new Error('lost')));
    expect(known.last('a')).toBeUndefined();
    await expect(second).rejects.toThrow('lost');
    expect(known.last('a')).toBeUndefined(); // the first write is still out
    finish();
    await first;
    expect(known.last('a')).toBe('v1');
    expect(await known.whileWriting(null, async () => 7)).toBe(7);
  });
});
