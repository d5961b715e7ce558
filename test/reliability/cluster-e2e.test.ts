import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { startCluster, type TestCluster } from '../helpers/redis-cluster.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { DeliveryRequest } from '../../src/core/ports.js';
import type { MessageRef } from '../../src/core/schemas.js';
import { isAuditKey } from '../helpers/audit-keys.js';

/** A recording channel whose message ids name the replica, so ids never collide across replicas. */
class ReplicaChannel extends RecordingChannel {
  constructor(private readonly tag: string) {
    super('test');
  }

  override async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const ref = await super.deliver(request);
    return { ...ref, messageId: `${this.tag}-${ref.messageId}` };
  }
}

// askgate itself on a 3-primary Redis Cluster (REDIS_CLUSTER=true): two replicas in this process
// share the cluster; the store, the result bus and both BullMQ queues run on Cluster connections.

let cluster: TestCluster;
let env: Record<string, string>;
const replicas: { app: RunningAskgate; channel: RecordingChannel; api: ReturnType<typeof client> }[] = [];
const to = { channel: 'test', chat: 'room-c' };
let runSeq = 0;
const runId = () => `cl-run-${++runSeq}`;

beforeAll(async () => {
  cluster = await startCluster();
  // A long reconciler grace: only the BullMQ timeout job can end an ask within these tests.
  env = testEnv({ REDIS_URL: cluster.url, REDIS_CLUSTER: 'true', ASKGATE_RECONCILE_GRACE_MS: '60000' });
  for (let i = 0; i < 2; i++) {
    const channel = new ReplicaChannel(`r${i}`);
    const app = await startTestApp(env, [channel]);
    replicas.push({ app, channel, api: client(app.url) });
  }
});

afterAll(async () => {
  for (const r of replicas) await r.app.close();
  await cluster?.stop();
});

const [a, b] = [() => replicas[0]!, () => replicas[1]!];
const sends = (askId: string) => replicas.flatMap((r) => r.channel.delivered.filter((d) => d.askId === askId));
const edits = (messageIds: string[]) =>
  replicas.flatMap((r) => r.channel.finalized.filter((f) => messageIds.includes(f.ref.messageId)));
const sentRef = (askId: string) =>
  eventually(async () => {
    const r = (await a().api.get(`/v1/asks/${askId}`)).body;
    return r.deliveries[0].status === 'sent' && (r.deliveries[0].message.messageId as string);
  });

describe('askgate on a 3-primary Redis Cluster (REDIS_CLUSTER=true, two replicas)', () => {
  it('REDIS_CLUSTER parses the seed list; a list without it, or it without REDIS_URL, is refused', () => {
    expect(() =>
      loadConfig({ REDIS_URL: 'redis://u:p%40ss@10.0.0.1:7001, 10.0.0.2:7002', REDIS_CLUSTER: 'true' }),
    ).toThrow(/same scheme and credentials/);
    expect(
      loadConfig({ REDIS_URL: '10.0.0.1:7001, 10.0.0.2:7002', REDIS_CLUSTER: 'true' }).redisCluster?.nodes,
    ).toHaveLength(2);
    expect(loadConfig({ REDIS_URL: 'redis://10.0.0.1:7001' }).redisCluster).toBeUndefined();
    expect(() => loadConfig({ REDIS_URL: 'redis://10.0.0.1:7001,redis://10.0.0.2:7002' })).toThrow(
      /REDIS_CLUSTER=true/,
    );
    expect(() => loadConfig({ REDIS_CLUSTER: 'true' })).toThrow(ConfigError);
    const ok = loadConfig({
      REDIS_URL: 'redis://u:p%40ss@10.0.0.1:7001,redis://u:p%40ss@10.0.0.2',
      REDIS_CLUSTER: 'true',
    });
    expect(ok.redisCluster).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7001 },
        { host: '10.0.0.2', port: 6379 },
      ],
      username: 'u',
      password: 'p@ss',
      tls: false,
    });
    expect(a().app.storeMode).toBe('redis');
  });

  it('ask on one replica → delivered once → answered on that replica → a waiter on the other wakes at once; edited once', async () => {
    const { body: ask } = await a().api.post('/v1/asks', askBody(runId(), { to, timeoutSeconds: 60 }));
    const messageId = await sentRef(ask.id);
    const waiting = b().api.get(`/v1/asks/${ask.id}?wait=20`);
    await new Promise((r) => setTimeout(r, 200));
    const token = sends(ask.id)[0]!.view.buttons![1]!.token;
    const answeredAt = Date.now();
    // A tap through the channel of replica A (the InboundHandler path), not the API.
    const outcome = await a().channel.sink!.button({
      channel: 'test',
      token,
      user: { channel: 'test', userId: 'u1' },
      chat: to.chat,
    });
    expect(outcome.kind).toBe('recorded');
    const { body } = await waiting;
    expect(Date.now() - answeredAt).toBeLessThan(1000);
    expect(body.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Production'] },
      answeredBy: { userId: 'u1' },
    });
    await eventually(async () => (await b().api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].finalized === 'done');
    await new Promise((r) => setTimeout(r, 300));
    expect(sends(ask.id)).toHaveLength(1);
    expect(edits([messageId]).map((e) => e.outcome.text)).toEqual([expect.stringMatching(/^Answered: Production/)]);
  });

  it('ask → nobody answers → the BullMQ timeout job fires once (not the reconciler) and wakes the waiter', async () => {
    const { body: ask } = await b().api.post('/v1/asks', askBody(runId(), { to, timeoutSeconds: 1 }));
    const messageId = await sentRef(ask.id);
    const { body } = await a().api.get(`/v1/asks/${ask.id}?wait=10`);
    const lateness = Date.now() - Date.parse(ask.expiresAt);
    expect(body.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
    expect(lateness).toBeLessThan(1500);
    await eventually(async () => edits([messageId]).length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(edits([messageId]).map((e) => e.outcome.text)).toEqual([expect.stringMatching(/expired/i)]);
  });

  it('a new ask on the same run supersedes the pending one: its waiter wakes, both messages end up edited once', async () => {
    const run = runId();
    const { body: first } = await a().api.post('/v1/asks', askBody(run, { to, timeoutSeconds: 60 }));
    const firstMessage = await sentRef(first.id);
    const waiting = b().api.get(`/v1/asks/${first.id}?wait=20`);
    await new Promise((r) => setTimeout(r, 200));
    const { status, body: second } = await b().api.post('/v1/asks', askBody(run, { to, timeoutSeconds: 60 }));
    expect(status).toBe(201);
    expect(second.version).toBe(2);
    expect((await waiting).body.result).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    const secondMessage = await sentRef(second.id);
    const { body: runView } = await a().api.get(`/v1/runs/${run}`);
    expect(runView.current).toMatchObject({ id: second.id, status: 'pending', version: 2 });
    expect(runView.history.map((h: { id: string }) => h.id)).toEqual([second.id, first.id]);
    const stale = sends(first.id)[0]!.view.buttons![0]!.token;
    expect(
      (
        await a().channel.sink!.button({
          channel: 'test',
          token: stale,
          user: { channel: 'test', userId: 'u1' },
          chat: to.chat,
        })
      ).kind,
    ).toBe('already_resolved');
    const answered = await a().api.post(`/v1/asks/${second.id}/answer`, { answers: { env: ['Staging'] } });
    expect(answered.body.result).toMatchObject({ status: 'answered', answers: { env: ['Staging'] } });
    await eventually(async () => edits([firstMessage, secondMessage]).length === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(edits([firstMessage]).map((e) => e.outcome.text)).toEqual([expect.stringMatching(/replaced/i)]);
    expect(edits([secondMessage])).toHaveLength(1);
  });

  it('keys spread over the primaries; every store key has a TTL; no job hash is left behind', async () => {
    const prefix = env.ASKGATE_KEY_PREFIX!;
    const probe = new Cluster(cluster.seeds);
    try {
      await probe.ping();
      const perNode: string[][] = [];
      for (const node of probe.nodes('master'))
        perNode.push([...(await node.keys(`${prefix}:*`)), ...(await node.keys(`{${prefix}}:*`))]);
      expect(perNode.filter((keys) => keys.some((k) => k.startsWith(`${prefix}:`))).length).toBeGreaterThanOrEqual(2);
      const storeKeys = perNode.flat().filter((k) => k.startsWith(`${prefix}:`));
      const ttls = await Promise.all(storeKeys.map((k) => probe.pttl(k)));
      expect(storeKeys.filter((k, i) => ttls[i]! <= 0 && !isAuditKey(k))).toEqual([]);
      const queueKeys = perNode.flat().filter((k) => k.startsWith(`{${prefix}}:`));
      expect(new Set(await Promise.all(queueKeys.map((k) => probe.cluster('KEYSLOT', k)))).size).toBe(1);
      // Only BullMQ's bookkeeping (meta, id, events, marker, …) stays: no job of a finished ask.
      const leftJobs = queueKeys.filter((k) => /:(timeout|deliver|finalize)-/.test(k));
      expect(leftJobs).toEqual([]);
    } finally {
      await probe.quit();
    }
  });

  // No replicas here, and the run-independent keys (sweep and recent indexes, the BullMQ queues)
  // each live on one primary: losing any primary can stop every create. What must hold is 503, fast.
  it('one primary killed → every create answers 201 or 503 within 2.5 s, before and after the cluster marks itself failed; never 500', async () => {
    await cluster.kill9(2);
    const tryAsks = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await a().api.post('/v1/asks', askBody(runId()));
        expect(Date.now() - started).toBeLessThan(2500);
        expect(res.body.error?.code ?? 'created').toMatch(/^(created|store_unavailable)$/);
        statuses.push(res.status);
      }
      return statuses;
    };
    expect(await tryAsks()).toContain(503);
    // Failure detection takes ~15 s (node timeout plus gossip); forgetting the dead node on the
    // survivors uncovers its slots at once, which puts the cluster in the same CLUSTERDOWN state.
    const survivors = [cluster.node(0), cluster.node(1)];
    try {
      const dead = String(await survivors[0]!.call('CLUSTER', 'NODES'))
        .split('\n')
        .find((l) => l.includes(`:${cluster.nodes[2]!.port}@`))!
        .split(' ')[0]!;
      for (const s of survivors) await s.call('CLUSTER', 'FORGET', dead);
      await eventually(
        async () =>
          (await Promise.all(survivors.map((s) => s.call('CLUSTER', 'INFO')))).every((i) =>
            String(i).includes('cluster_state:fail'),
          ),
        10_000,
        50,
      );
    } finally {
      survivors.forEach((s) => s.disconnect());
    }
    expect(new Set(await tryAsks())).toEqual(new Set([503]));
  });

  it('the whole cluster down → the API answers 503 store_unavailable within 2 s, never 500 or a hang', async () => {
    await cluster.stop();
    for (const path of ['/v1/asks', '/v1/runs/cl-run-1']) {
      const started = Date.now();
      const res = path === '/v1/asks' ? await a().api.post(path, askBody(runId())) : await a().api.get(path);
      expect(Date.now() - started).toBeLessThan(2000);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 503,
        code: 'store_unavailable',
      });
    }
  });
});
