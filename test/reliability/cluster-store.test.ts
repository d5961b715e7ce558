import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster, type Redis } from 'ioredis';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';
import { RedisAskStore } from '../../src/store/redis-store.js';
import { RedisResultBus } from '../../src/store/redis-bus.js';
import { StoreKeys } from '../../src/store/keys.js';
import { answered, createAsk, delivered, storeContract, uid } from '../contracts/store.contract.js';

// The store contract (test/contracts/store.contract.ts) on a real 3-primary Redis Cluster: keys of
// different runs live on different nodes, and results published by a script on one node must
// reach subscribers connected to another.

let cluster: TestCluster;
const conns: Cluster[] = [];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function connect(): Cluster {
  const c = new Cluster(cluster.seeds, { redisOptions: { maxRetriesPerRequest: 1 } });
  conns.push(c);
  return c;
}

async function scanAll(conn: Cluster, match: string): Promise<Map<number, string[]>> {
  const byNode = new Map<number, string[]>();
  for (const node of conn.nodes('master')) {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    byNode.set(node.options.port!, keys);
  }
  return byNode;
}

const shared: { main?: Cluster; peers: Cluster[]; subscriber?: Cluster } = { peers: [] };

beforeAll(async () => {
  cluster = await startCluster();
  shared.main = connect();
  shared.peers = [connect(), connect()];
  shared.subscriber = connect();
  await Promise.all(conns.map((c) => c.ping()));
});

afterAll(async () => {
  await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect())));
  await cluster?.stop();
});

storeContract('redis cluster (3 primaries)', async () => {
  const prefix = `t-${uid(8)}`;
  const remoteBus = await RedisResultBus.create(shared.subscriber!, shared.peers[1]!, { prefix });
  return {
    store: new RedisAskStore(shared.main!, { prefix }),
    peers: shared.peers.map((p) => new RedisAskStore(p, { prefix })),
    remoteBus,
    elapse: sleep,
    async immortalKeys() {
      const keys = [...(await scanAll(shared.main!, `${prefix}:*`)).values()].flat();
      expect(keys.length).toBeGreaterThan(5);
      const ttls = await Promise.all(keys.map((k) => shared.main!.pttl(k)));
      return keys.filter((_, i) => ttls[i]! <= 0);
    },
    close: () => remoteBus.close(),
  };
});

describe('RedisAskStore on a 3-primary cluster', () => {
  it('the cluster really has three primaries that split the slots and refuse cross-slot scripts', async () => {
    const main = shared.main!;
    expect(main.nodes('master')).toHaveLength(3);
    const slots = (await main.cluster('SLOTS')) as [number, number, ...unknown[]][];
    expect(slots.reduce((n, [from, to]) => n + to - from + 1, 0)).toBe(16384);
    await expect(main.eval('return 1', 2, '{a}x', '{b}y')).rejects.toThrow(/CROSSSLOT/);
  });

  it("asks of 30 runs land on every primary; every run key of one run sits in that run's slot", async () => {
    const prefix = `t-${uid(8)}`;
    const store = new RedisAskStore(shared.main!, { prefix });
    const keys = new StoreKeys(prefix);
    const runs = Array.from({ length: 30 }, (_, i) => `spread-${i}`);
    const asks = await Promise.all(runs.map((r) => createAsk(store, r)));
    await Promise.all(asks.map((a) => store.commit(a, answered(a), { ttlMs: 60_000, publish: true })));
    const byNode = await scanAll(shared.main!, `${prefix}:*`);
    for (const [port, found] of byNode)
      expect(found.length, `primary ${port} holds no askgate keys`).toBeGreaterThan(0);
    const node = cluster.node(0);
    try {
      for (const a of asks) {
        const slot = await node.call('CLUSTER', 'KEYSLOT', keys.run(a.runId));
        expect(await node.call('CLUSTER', 'KEYSLOT', keys.ask(a.runId, a.id))).toBe(slot);
      }
    } finally {
      await node.quit();
    }
    for (const a of asks) expect((await store.get(a.id))?.status).toBe('answered');
  });

  it('a result published by a script on any primary wakes a subscriber whose connection sits on another', async () => {
    const prefix = `t-${uid(8)}`;
    const store = new RedisAskStore(shared.main!, { prefix });
    // One subscriber connection pinned to each primary: every commit must reach all three.
    const pinned: Redis[] = shared.main!.nodes('master').map((n) => n.duplicate());
    const buses = await Promise.all(pinned.map((sub) => RedisResultBus.create(sub, shared.main!, { prefix })));
    try {
      const asks = await Promise.all(Array.from({ length: 12 }, (_, i) => createAsk(store, `bus-${i}`)));
      const woken = buses.map(() => new Set<string>());
      buses.forEach((bus, b) => asks.forEach((a) => bus.subscribe(a.id, () => woken[b]!.add(a.id))));
      for (const a of asks) {
        const a1 = delivered(a);
        expect(await store.commit(a, a1, { ttlMs: 60_000, publish: false })).toBe('ok');
        expect(await store.commit(a1, answered(a1), { ttlMs: 60_000, publish: true })).toBe('ok');
      }
      await vi.waitFor(() => expect(woken.map((w) => w.size)).toEqual([12, 12, 12]));
    } finally {
      await Promise.all(buses.map((b) => b.close()));
      await Promise.all(pinned.map((p) => p.quit().catch(() => p.disconnect())));
    }
  });
});
