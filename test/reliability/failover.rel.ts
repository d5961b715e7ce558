import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Agents } from './harness/agents.js';
import { tapUntilRecorded, timeUntil } from './harness/person.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import { startRedis } from '../helpers/redis-server.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
afterAll(() => writeSummary('failover', rows));

describe('R8 Redis failover (local replica promoted; the fault proxy re-points askgate)', () => {
  it('replica promoted with REPLICAOF NO ONE under load, old primary killed: workers resume, no READONLY after recovery, losses measured', async () => {
    const world = await World.create({
      name: 'r8-failover',
      row: 'R8',
      proxy: true,
      redisArgs: ['--appendonly', 'yes'],
    });
    const replica = await startRedis(['--appendonly', 'yes', '--replicaof', '127.0.0.1', String(world.redis.port)]);
    const admin = new Redis(replica.url, { maxRetriesPerRequest: 1 });
    const tg = await TelegramRig.start(world.history);
    const agents = new Agents(world.history, () => world.nodes, 5);
    try {
      expect(
        await timeUntil(async () => /master_link_status:up/.test(await admin.info('replication')), 10_000),
      ).toBeGreaterThanOrEqual(0);
      const node = world.node('A', tg.env());
      await node.start();
      const asks = [];
      for (let i = 0; i < 30; i++) asks.push(await tg.ask(node.api(), { timeoutSeconds: i < 24 ? 60 : 6 }));
      const ids = asks.map((a) => a.askId);
      for (const id of ids) agents.wait(id);
      const posted = await tg.allPosted(world.watch, ids);
      const people = asks.slice(0, 24).map(async (a, i) => {
        await sleep(i * 100);
        return tapUntilRecorded(world, tg, posted.get(a.askId)!, a.user, 'Canary', 8, 2500);
      });
      await sleep(1000);
      // Unclean failover: promote the replica while the primary still takes writes, re-point, then kill the old primary.
      const switchAt = Date.now();
      world.history.inject('fault', {
        data: { what: 'REPLICAOF NO ONE on the replica; proxy switched to it; old primary kill -9' },
      });
      await admin.call('REPLICAOF', 'NO', 'ONE');
      world.proxy!.switchUpstream(replica.port);
      await world.redis.kill9();
      await world.rewatch(replica.url);
      const readyMs = await timeUntil(async () => (await fetch(`${node.url}/readyz`)).status === 200, 30_000);
      const fresh = await tg.ask(node.api(), { timeoutSeconds: 3 });
      ids.push(fresh.askId);
      agents.wait(fresh.askId);
      const sent = await timeUntil(
        async () => (await world.watch.get(fresh.askId))?.deliveries[0]?.status === 'sent',
        30_000,
      );
      const workersBackMs = sent < 0 ? -1 : Date.now() - switchAt;
      const attempts = await Promise.all(people);
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 30_000, exactlyOnePublish: false });
      const afterRecovery = node
        .output()
        .split('\n')
        .filter((l) => /READONLY/.test(l)).length;
      const lost = report.violations.filter((v) => v.startsWith('lost answer') || v.includes('never recorded'));
      const other = report.violations.filter((v) => !lost.includes(v));
      rows.push({
        row: 'R8',
        title: 'Redis failover (async replica)',
        platform: 'telegram',
        injected:
          '30 asks, 24 tapped at ~10/s; 1 s in, the replica is promoted (REPLICAOF NO ONE) while the primary still takes writes, the proxy re-points askgate and cuts the old links, the old primary is killed',
        figures: {
          ...report.figures,
          readyAfterSwitchMs: readyMs,
          workersBackMs,
          readonlyLogLines: afterRecovery,
          retaps: attempts.reduce((a, n) => a + n - 1, 0),
          acknowledgedButLost: lost.length,
        },
        violations: report.violations,
      });
      expect(other).toEqual([]);
      expect(workersBackMs).toBeGreaterThanOrEqual(0);
      expect(workersBackMs).toBeLessThan(30_000);
      expect(afterRecovery).toBe(0);
    } finally {
      await agents.stop();
      admin.disconnect();
      await world.close();
      await replica.dispose();
      await tg.close();
    }
  });
});
