import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { LongPolls } from '../../src/app/long-poll.js';
import type { ResultBus } from '../../src/core/ports.js';
import type { AskRecord } from '../../src/core/schemas.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { sleep } from '../helpers/wait.js';
import { Cluster, Redis } from 'ioredis';
import { RedisResultBus } from '../../src/store/redis-bus.js';
import { clusterSubscriberOf } from '../../src/store/cluster-subscriber-watch.js';
import { createSubscriberConnection } from '../../src/store/redis-setup.js';
import { StoreKeys } from '../../src/store/keys.js';

// The result bus is Redis pub/sub: an announcement made while a replica's subscriber reconnects
// never reaches it. Waiters there used to learn of the ended ask only when their wait ran out
// (the SDK's 30 s poll, up to ASKGATE_MAX_WAIT_SECONDS); now the bus signals a resync once its
// subscription is back, and what waits re-reads.

const WAIT_SECONDS = 20;

let redis: TestRedis;
let proxy: FaultProxy;
let near: RunningAskgate;
let far: RunningAskgate;

beforeAll(async () => {
  redis = await startRedis();
  proxy = await FaultProxy.start(redis.port);
  const prefix = testEnv().ASKGATE_KEY_PREFIX!;
  // `far` reaches Redis through the proxy; `near` directly. Same key prefix: replicas of one deployment.
  far = await startTestApp(testEnv({ REDIS_URL: proxy.redisUrl, ASKGATE_KEY_PREFIX: prefix }));
  near = await startTestApp(testEnv({ REDIS_URL: redis.url, ASKGATE_KEY_PREFIX: prefix }));
});

afterAll(async () => {
  await near?.close();
  await far?.close();
  await proxy?.close();
  await redis?.dispose();
});

/** Creates an ask on `far`, once all of its connections are back from an earlier cut (the queue's reconnect later than the store's). */
const created = (runId: string) =>
  eventually(async () => {
    const res = await client(far.url).post('/v1/asks', askBody(runId, { timeoutSeconds: 120 }));
    return res.status === 201 && (res.body as { id: string });
  });

/** Cuts `far`'s links to Redis, runs `meanwhile` on `near`, and heals after `downMs`. */
async function whileFarIsCut(meanwhile: () => Promise<void>, downMs = 800): Promise<number> {
  proxy.set({ refuse: true });
  proxy.cutAll();
  await meanwhile();
  await sleep(downMs);
  proxy.heal();
  return Date.now();
}

describe('announcements lost while a replica reconnects to Redis', () => {
  it("an agent waiting on that replica gets the answer once its subscription is back, not at its wait's end", async () => {
    const api = { far: client(far.url), near: client(near.url) };
    const ask = await created('resync-wait');
    const waited = Date.now();
    const wait = api.far.get(`/v1/asks/${ask.id}?wait=${WAIT_SECONDS}`);
    await sleep(200);
    const healed = await whileFarIsCut(async () => {
      const answered = await api.near.post(`/v1/asks/${ask.id}/answer`, { answers: { env: ['Staging'] } });
      expect(answered.status).toBe(200);
    });
    const res = await wait;
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('answered');
    // Back within the reconnect and one read, far from the 20 s wait.
    expect(Date.now() - healed).toBeLessThan(5000);
    expect(Date.now() - waited).toBeLessThan(WAIT_SECONDS * 1000 - 5000);
  });

  it.each([
    ['an ask', (id: string) => `/v1/asks/${id}/events?stream=true`],
    ['a run', (_id: string, runId: string) => `/v1/runs/${runId}/events?stream=true`],
  ])(
    'a history stream of %s on that replica sends the entries made meanwhile once its subscription is back',
    async (_what, path) => {
      const api = { far: client(far.url), near: client(near.url) };
      const runId = `resync-events-${Math.random().toString(36).slice(2, 8)}`;
      const ask = await created(runId);
      const abort = new AbortController();
      const res = await fetch(`${far.url}${path(ask.id, runId)}`, { signal: abort.signal });
      const reader = res.body!.getReader();
      let text = '';
      const read = (async () => {
        for (;;) {
          const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (chunk.done) return;
          text += new TextDecoder().decode(chunk.value);
        }
      })();
      await eventually(async () => text.includes('"created"'), 5000);
      const healed = await whileFarIsCut(async () => {
        expect((await api.near.post(`/v1/asks/${ask.id}/cancel`)).status).toBe(200);
      });
      await eventually(async () => text.includes('"no_answer"'), 5000);
      expect(Date.now() - healed).toBeLessThan(5000);
      abort.abort();
      await read;
    },
  );
});

describe('LongPolls on a resync', () => {
  /** A bus whose resync the test fires; announcements never come. */
  function silentBus() {
    const resyncs = new Set<() => void>();
    const bus: ResultBus = {
      subscribe: () => () => {},
      subscribeHistory: () => () => {},
      notifyHistory: async () => {},
      close: async () => {},
      onResync: (listener) => (resyncs.add(listener), () => resyncs.delete(listener)),
    };
    return { bus, resync: () => resyncs.forEach((l) => l()) };
  }

  it('wakes the polls of an ask that ended meanwhile with the record, and leaves the others waiting', async () => {
    const { bus, resync } = silentBus();
    const records = new Map<string, AskRecord>([
      ['ended', { id: 'ended', status: 'answered' } as AskRecord],
      ['open', { id: 'open', status: 'pending' } as AskRecord],
    ]);
    const reads: string[] = [];
    const polls = new LongPolls(
      bus,
      async (askIds) => (reads.push(...askIds), askIds.map((id) => records.get(id) ?? null)),
    );
    const ended = polls.open('ended', 10_000)!;
    const open = polls.open('open', 10_000)!;
    const gone = polls.open('gone', 10_000)!;
    let openWoke = false;
    void open.woken.then(() => (openWoke = true));
    resync();
    expect(await ended.woken).toBe(records.get('ended'));
    await sleep(50);
    expect(openWoke).toBe(false);
    expect(reads.sort()).toEqual(['ended', 'gone', 'open']);
    for (const p of [ended, open, gone]) p.close();
  });

  it('a read that fails on a resync wakes nothing (the wait ends as before)', async () => {
    const { bus, resync } = silentBus();
    const polls = new LongPolls(bus, async () => {
      throw new Error('Redis unavailable');
    });
    const poll = polls.open('a', 300)!;
    const started = Date.now();
    resync();
    expect(await poll.woken).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    poll.close();
  });
});

describe('ConsoleHub on a resync', () => {
  it('ends every console stream, so each reconnects and starts from a fresh snapshot', async () => {
    const { ConsoleHub } = await import('../../src/console/hub.js');
    const { EventEmitter } = await import('node:events');
    let resync = () => {};
    const hub = new ConsoleHub(
      {
        store: { get: async () => null, recent: async () => [] },
        bus: {
          subscribeHistory: () => () => {},
          onResync: (listener) => ((resync = listener), () => (resync = () => {})),
        },
        clock: { now: () => Date.now() },
        logger: { warn: () => {}, info: () => {} },
      },
      async () => new Set(),
      { maxStreams: 10, stallMs: 30_000 },
    );
    /** Enough of a ServerResponse for the hub: it writes, ends, and says when it closed. */
    const response = () => {
      const res = Object.assign(new EventEmitter(), {
        writableEnded: false,
        destroyed: false,
        writableLength: 0,
        chunks: [] as string[],
        write: (chunk: Buffer) => (res.chunks.push(String(chunk)), true),
        end: () => {
          res.writableEnded = true;
          res.emit('close');
        },
      });
      return res;
    };
    const a = response();
    const b = response();
    await hub.attach(a as never, 's1');
    await hub.attach(b as never, 's2');
    expect(a.chunks.some((c) => c.startsWith('event: snapshot'))).toBe(true);
    expect([a.writableEnded, b.writableEnded]).toEqual([false, false]);
    resync();
    expect([a.writableEnded, b.writableEnded]).toEqual([true, true]);
    hub.close();
  });
});

describe('RedisResultBus heartbeat', () => {
  it('a subscriber link that goes silent while idle is found by its PING and made again; a resync follows', async () => {
    const lossy = await FaultProxy.start(redis.port);
    const subscriber = createSubscriberConnection(lossy.redisUrl, { socketTimeoutMs: 1000 });
    subscriber.on('error', () => {});
    const publisher = new Redis(redis.url);
    const bus = await RedisResultBus.create(subscriber, publisher, { prefix: 'hb', heartbeatMs: 300 });
    try {
      let resyncs = 0;
      bus.onResync(() => resyncs++);
      await sleep(200);
      const before = resyncs;
      // Bytes sent now are lost, and the idle subscriber sends nothing of its own but the PING.
      lossy.set({ lose: true });
      await sleep(2500);
      lossy.heal();
      await eventually(async () => resyncs > before, 8000);
      let woken = false;
      bus.subscribe('x', () => (woken = true));
      await eventually(async () => (await publisher.publish(new StoreKeys('hb').resolvedChannel(), 'x'), woken));
    } finally {
      await bus.close();
      subscriber.disconnect();
      publisher.disconnect();
      await lossy.close();
    }
  });
});

/** A single-node Redis Cluster owning every slot; with `announcePort`, it tells clients to reach it there. */
async function clusterNode(announcePort?: (port: number) => Promise<number>) {
  const node = await startRedis(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
  const admin = new Redis(node.url);
  await admin.call('CONFIG', 'SET', 'cluster-announce-ip', '127.0.0.1');
  if (announcePort) await admin.call('CONFIG', 'SET', 'cluster-announce-port', await announcePort(node.port));
  await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  await eventually(async () => String(await admin.call('CLUSTER', 'INFO')).includes('cluster_state:ok'));
  return { node, admin };
}

describe('RedisResultBus on Redis Cluster', () => {
  it('when ioredis moves the subscription to a new connection, the announcement lost meanwhile is made up by a resync', async () => {
    const { node, admin } = await clusterNode();
    const seeds = [{ host: '127.0.0.1', port: node.port }];
    const subscriber = new Cluster(seeds);
    const publisher = new Cluster(seeds);
    const channel = new StoreKeys('cl').resolvedChannel();
    const bus = await RedisResultBus.create(subscriber, publisher, { prefix: 'cl', clusterCheckMs: 100 });
    try {
      let resyncs = 0;
      bus.onResync(() => resyncs++);
      const woken: string[] = [];
      for (const id of ['lost', 'after']) bus.subscribe(id, () => woken.push(id));
      await sleep(300);
      const before = resyncs;
      const first = clusterSubscriberOf(subscriber);
      expect(first?.status).toBe('ready');
      // The subscriber's connection is dropped, and an answer announced in the same step: it never arrives.
      const [, published] = (await admin
        .multi()
        .call('CLIENT', 'KILL', 'TYPE', 'pubsub')
        .publish(channel, 'lost')
        .exec())!;
      expect(published).toEqual([null, 0]);
      await eventually(async () => resyncs > before, 8000);
      expect(clusterSubscriberOf(subscriber)).not.toBe(first);
      expect(woken).toEqual([]);
      await eventually(async () => (await publisher.publish(channel, 'after'), woken.includes('after')));
    } finally {
      await bus.close();
      subscriber.disconnect();
      publisher.disconnect();
      admin.disconnect();
      await node.dispose();
    }
  });

  // ioredis makes the cluster's subscriber connection itself, without askgate's socket timeout and
  // without reconnecting it: a link gone silent under it left the bus deaf for good (the second
  // case fails without the watch's PING). The bus's watch drops such a connection after
  // `clusterStuckMs`, and ioredis makes a new one. In the first case ioredis recovers by itself
  // (the cut also drops the cluster's own connections, whose refresh picks a new subscriber).
  it.each([
    ['a cut while new connections are accepted and never answered', { blackhole: true }, true],
    ['a subscriber link that goes silent while idle', { lose: true }, false],
  ])('%s: the subscription comes back and a resync follows', async (_name, fault, cut) => {
    let proxy: FaultProxy | undefined;
    const { node, admin } = await clusterNode(async (port) => (proxy = await FaultProxy.start(port)).port);
    const subscriber = new Cluster([{ host: '127.0.0.1', port: proxy!.port }]);
    subscriber.on('error', () => {});
    const publisher = new Redis(node.url);
    const channel = new StoreKeys('hung').resolvedChannel();
    const timing = { clusterCheckMs: 100, clusterStuckMs: 1000, heartbeatMs: 300 };
    const bus = await RedisResultBus.create(subscriber, publisher, { prefix: 'hung', ...timing });
    try {
      let resyncs = 0;
      bus.onResync(() => resyncs++);
      let woken = false;
      bus.subscribe('x', () => (woken = true));
      await sleep(300);
      const before = resyncs;
      proxy!.set(fault);
      if (cut) proxy!.cutAll();
      await sleep(1500);
      proxy!.heal();
      await eventually(async () => resyncs > before, 8000);
      await eventually(async () => (await publisher.publish(channel, 'x'), woken));
    } finally {
      await bus.close();
      subscriber.disconnect();
      publisher.disconnect();
      admin.disconnect();
      await proxy?.close();
      await node.dispose();
    }
  });
});
