import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { Redis, Cluster } from 'ioredis';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { MemoryAskStore } from '../../src/store/memory-store.js';
import { MemoryResultBus } from '../../src/store/memory-bus.js';
import { RedisAskStore, CorruptRecordError } from '../../src/store/redis-store.js';
import { RedisResultBus } from '../../src/store/redis-bus.js';
import { INDEX_TTL_MS, StoreKeys } from '../../src/store/keys.js';
import { storeContract, createAsk, delivered, pendingAsk, uid, type StoreHarness } from './store.contract.js';

type Conn = Redis | Cluster;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** CRC16/XMODEM of the key's hash tag (or whole key), mod 16384: the Redis Cluster slot. */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

const nodesOf = (conn: Conn): Redis[] => (conn instanceof Cluster ? conn.nodes('master') : [conn]);

async function scanKeys(conn: Conn, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of nodesOf(conn)) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

async function quitAll(conns: Conn[]): Promise<void> {
  await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect())));
}

/** Connections to one server (or single-node cluster) shared by the tests; each test uses its own prefix. */
function redisHarnessFactory(connect: () => Conn) {
  const state: { main?: Conn; peers: Conn[]; subscriber?: Conn } = { peers: [] };
  const setup = () => {
    state.main = connect();
    state.peers = [connect(), connect()];
    state.subscriber = connect();
  };
  const teardown = () => quitAll([state.main!, ...state.peers, state.subscriber!].filter(Boolean));
  const factory = async (): Promise<StoreHarness> => {
    const prefix = `t-${uid(8)}`;
    const remoteBus = await RedisResultBus.create(state.subscriber!, state.peers[1]!, { prefix });
    return {
      store: new RedisAskStore(state.main!, { prefix }),
      peers: state.peers.map((p) => new RedisAskStore(p, { prefix })),
      remoteBus,
      elapse: sleep,
      async immortalKeys() {
        const keys = await scanKeys(state.main!, prefix);
        expect(keys.length).toBeGreaterThan(5);
        const ttls = await Promise.all(keys.map((k) => state.main!.pttl(k)));
        return keys.filter((_, i) => ttls[i]! <= 0);
      },
      close: () => remoteBus.close(),
    };
  };
  return { setup, teardown, factory, state };
}

let standalone: TestRedis;
let clusterNode: TestRedis;
const redisOpts = { maxRetriesPerRequest: 1 };
const single = redisHarnessFactory(() => new Redis(standalone.url, redisOpts));
const cluster = redisHarnessFactory(
  () => new Cluster([{ host: '127.0.0.1', port: clusterNode.port }], { redisOptions: redisOpts }),
);

beforeAll(async () => {
  [standalone, clusterNode] = await Promise.all([
    startRedis(),
    startRedis([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-announce-ip',
      '127.0.0.1',
    ]),
  ]);
  const admin = new Redis(clusterNode.url, redisOpts);
  await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  for (let i = 0; !String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok'); i++) {
    if (i > 200) throw new Error('single-node cluster did not become ready');
    await sleep(50);
  }
  await admin.quit();
  single.setup();
  cluster.setup();
});

afterAll(async () => {
  await Promise.all([single.teardown(), cluster.teardown()]);
  await Promise.all([standalone?.dispose(), clusterNode?.dispose()]);
});

storeContract('memory', async () => {
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const bus = new MemoryResultBus();
  const store = new MemoryAskStore(bus, clock);
  return {
    store,
    peers: [store, store],
    remoteBus: bus,
    elapse: async (ms) => {
      offset += ms;
    },
    async immortalKeys() {
      expect(store.size()).toBeGreaterThan(5);
      offset += 100 * 365 * 86_400_000;
      const left = store.size();
      return left === 0 ? [] : [`${left} entries never expire`];
    },
    close: () => bus.close(),
  };
});

storeContract('redis', single.factory);

// A single-node Redis Cluster rejects any script whose KEYS span hash slots (CROSSSLOT).
storeContract('redis cluster', cluster.factory);

describe('RedisAskStore specifics', () => {
  it('a corrupted record makes get() throw a clear error', async () => {
    const prefix = `t-${uid(8)}`;
    const main = single.state.main!;
    const store = new RedisAskStore(main, { prefix });
    const keys = new StoreKeys(prefix);
    const a = await createAsk(store, uid());
    const key = keys.ask(a.runId, a.id);
    await main.set(key, '0 pending ~{"id":');
    await expect(store.get(a.id)).rejects.toThrow(CorruptRecordError);
    await expect(new RedisAskStore(main, { prefix }).get(a.id)).rejects.toThrow(
      `corrupt ask record at ${key}: not JSON`,
    );
    await main.set(key, '0 bogus ~{}');
    await expect(store.get(a.id)).rejects.toThrow(/corrupt ask record .*status/s);
    await expect(store.getRun(a.runId)).rejects.toThrow(CorruptRecordError);
    await main.set(key, JSON.stringify(a).slice(1));
    await expect(store.get(a.id)).rejects.toThrow(/corrupt ask record .*header/s);
  });

  it('getMany parses a long batch a slice at a time, letting other work run in between', async () => {
    const prefix = `t-${uid(8)}`;
    const main = single.state.main!;
    const asks = await Promise.all(
      Array.from({ length: 60 }, () => createAsk(new RedisAskStore(main, { prefix }), uid())),
    );
    const cold = new RedisAskStore(main, { prefix });
    const parse = vi.spyOn(cold as unknown as { parse: (...a: unknown[]) => unknown }, 'parse');
    // What other work (a tap) would see of the batch each time it got the loop.
    const seen: number[] = [];
    let done = false;
    const watch = () => {
      seen.push(parse.mock.calls.length);
      if (!done) setImmediate(watch);
    };
    setImmediate(watch);
    const records = await cold.getMany(asks.map((a) => a.id));
    done = true;
    expect(records).toEqual(asks);
    expect(parse).toHaveBeenCalledTimes(60);
    // Parsed all in one go, no turn would fall between the first and the last record.
    expect(seen.filter((n) => n > 0 && n < 60).length).toBeGreaterThanOrEqual(2);
  });

  it('getMany rejects a long batch with a corrupt ask, with no rejection left unhandled', async () => {
    const prefix = `t-${uid(8)}`;
    const main = single.state.main!;
    const asks = await Promise.all(
      Array.from({ length: 300 }, () => createAsk(new RedisAskStore(main, { prefix }), uid())),
    );
    const bad = asks[0]!;
    const key = new StoreKeys(prefix).ask(bad.runId, bad.id);
    await main.set(key, '0 bogus ~{}', 'KEEPTTL');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const cold = new RedisAskStore(main, { prefix });
      await expect(cold.getMany(asks.map((a) => a.id))).rejects.toThrow(CorruptRecordError);
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('on Redis Cluster, create and commit scripts only touch keys of the run hash slot', async () => {
    const prefix = `t-${uid(8)}`;
    const conn = new Cluster([{ host: '127.0.0.1', port: clusterNode.port }], { redisOptions: redisOpts });
    const scripted: string[][] = [];
    const send = conn.sendCommand.bind(conn);
    conn.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
      if (command.name === 'evalsha' || command.name === 'eval') {
        const n = Number(command.args[1]);
        scripted.push(command.args.slice(2, 2 + n).map(String));
      }
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof conn.sendCommand;
    try {
      const store = new RedisAskStore(conn, { prefix });
      const runId = 'run.with-dots_1';
      const a = await createAsk(store, runId);
      const b = await createAsk(store, runId);
      expect(await store.commit(b, delivered(b), { ttlMs: 60_000, publish: true })).toBe('ok');
      const runSlot = keySlot(new StoreKeys(prefix).run(runId));
      const multiKey = scripted.filter((keys) => keys.length > 1);
      expect(multiKey.map((keys) => keys.length)).toEqual([2, 3, 2]);
      for (const keys of multiKey) for (const key of keys) expect(keySlot(key)).toBe(runSlot);
      expect(multiKey[1]).toContain(new StoreKeys(prefix).ask(runId, a.id));
      // Cross-check the test's CRC16 against the server's own slot computation.
      const node = new Redis(clusterNode.url, redisOpts);
      for (const key of multiKey.flat()) expect(await node.call('CLUSTER', 'KEYSLOT', key)).toBe(runSlot);
      expect(await node.call('CLUSTER', 'KEYSLOT', 'abc')).toBe(keySlot('abc'));
      await node.quit();
    } finally {
      await conn.quit();
    }
  });

  it('on Redis Cluster, along writes are refused: the indexes are in other hash slots', async () => {
    const store = new RedisAskStore(cluster.state.main!, { prefix: `t-${uid(8)}` });
    const a = await createAsk(store, uid());
    await expect(
      store.commit(a, delivered(a), { ttlMs: 60_000, publish: false, along: { unsweep: true } }),
    ).rejects.toThrow(/ordered connection/);
    const b = pendingAsk(uid(), 1);
    await expect(
      store.create({ record: b, expectedVersion: 0, supersede: null, ttlMs: 60_000, retentionMs: 60_000, along: {} }),
    ).rejects.toThrow(/ordered connection/);
  });

  it('the cluster node used by the contract really rejects cross-slot scripts', async () => {
    await expect(cluster.state.main!.eval('return 1', 2, '{a}x', '{b}y')).rejects.toThrow(/CROSSSLOT/);
  });

  it('index TTLs are read against the injected clock, not the system one', async () => {
    const prefix = `t-${uid(8)}`;
    const main = single.state.main!;
    const hour = 3_600_000;
    // A clock 100 h behind: an index member due 60 h after it must keep its key ~60 h + margin,
    // where the system clock would see it 40 h in the past and give only the minimum.
    const now = Date.now() - 100 * hour;
    const store = new RedisAskStore(main, { prefix, clock: { now: () => now } });
    await store.indexes.addToConversation({ channel: 'telegram', chat: '5' }, 'a1', now + 60 * hour);
    const pttl = await main.pttl(new StoreKeys(prefix).conv({ channel: 'telegram', chat: '5' }));
    expect(pttl).toBeGreaterThan(60 * hour + INDEX_TTL_MS / 2 - 60_000);
  });

  it('writes only the documented key families, all under the prefix', async () => {
    const prefix = `t-${uid(8)}`;
    const main = single.state.main!;
    const store = new RedisAskStore(main, { prefix });
    await store.claimIdempotencyKey('k', 'h', 'x', 60_000);
    const a = await createAsk(store, 'r1');
    await store.indexes.markForSweep(a.id, 1);
    await store.indexes.addToConversation({ channel: 'telegram', chat: '5' }, a.id, Date.now() + 60_000);
    await store.indexes.bindMessage({ channel: 'telegram', chat: '5' }, '9', a.id, 60_000);
    const families = (await scanKeys(main, prefix)).map((k) => k.slice(prefix.length + 1).replace(a.id, '<id>')).sort();
    expect(families).toEqual([
      'conv:telegram:5',
      'id:<id>',
      'idem:k',
      'msg:telegram:5:9',
      'pending',
      'recent',
      'sweep',
      '{r1}:ask:<id>',
      '{r1}:run',
    ]);
  });
});

describe.each([
  [
    'memory',
    async () => {
      const bus = new MemoryResultBus();
      // The memory store announces a resolution synchronously inside its atomic section.
      const resolve = async (askId: string) => bus.announce(askId);
      return { publisher: bus, subscriber: bus, resolve, close: () => bus.close() };
    },
  ],
  [
    'redis',
    async () => {
      const prefix = `t-${uid(8)}`;
      const conns = [0, 1, 2].map(() => new Redis(standalone.url, redisOpts));
      const subscriber = await RedisResultBus.create(conns[0]!, single.state.main!, { prefix });
      const publisher = await RedisResultBus.create(conns[1]!, conns[2]!, { prefix });
      // What the commit script does on a terminal commit: PUBLISH the ask id on `<prefix>:resolved`.
      const resolve = async (askId: string) =>
        void (await conns[2]!.publish(new StoreKeys(prefix).resolvedChannel(), askId));
      const close = async () => {
        await Promise.all([subscriber.close(), publisher.close()]);
        await quitAll(conns);
      };
      return { publisher, subscriber, resolve, close };
    },
  ],
] as const)('ResultBus: %s', (_name, make) => {
  it('a resolution wakes each subscription of that ask id once, across connections; unsubscribe and close stop it', async () => {
    const { resolve, subscriber, close } = await make();
    const calls: string[] = [];
    const listener = () => calls.push('a');
    const offA1 = subscriber.subscribe('ask-a', listener);
    subscriber.subscribe('ask-a', listener);
    subscriber.subscribe('ask-b', () => calls.push('b'));
    await resolve('ask-a');
    await vi.waitFor(() => expect(calls).toEqual(['a', 'a']));
    offA1();
    await resolve('ask-a');
    await vi.waitFor(() => expect(calls).toEqual(['a', 'a', 'a']));
    await subscriber.close();
    await resolve('ask-b');
    await sleep(50);
    expect(calls).toEqual(['a', 'a', 'a']);
    await close();
  });

  it('history notifications reach every subscriber with the ask and run ids, across connections', async () => {
    const { publisher, subscriber, close } = await make();
    const seen: string[] = [];
    const off = subscriber.subscribeHistory((askId, runId) => seen.push(`${askId}/${runId}`));
    await publisher.notifyHistory('ask-1', 'run.a-1');
    await publisher.notifyHistory('ask-2', 'run.b');
    await vi.waitFor(() => expect(seen).toEqual(['ask-1/run.a-1', 'ask-2/run.b']));
    off();
    await publisher.notifyHistory('ask-3', 'run.c');
    await sleep(50);
    expect(seen).toHaveLength(2);
    await close();
  });
});
