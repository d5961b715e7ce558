import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { timeUntil } from './harness/person.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, baseEnv, writeSummary, type RowSummary } from './harness/world.js';
import { startAskgateProcess } from '../helpers/askgate-process.js';
import { startRedis } from '../helpers/redis-server.js';
import { askBody, client } from '../helpers/http.js';

const rows: RowSummary[] = [];
afterAll(() => writeSummary('redis-guards', rows));

describe('startup guards (F23, matrix §4.6)', () => {
  it('refuses an evicting Redis (allkeys-lru) with a clear message, and warns when AOF is off but not when it is on', async () => {
    const evicting = await startRedis(['--maxmemory-policy', 'allkeys-lru']);
    const aofOff = await startRedis();
    const aofOn = await startRedis(['--appendonly', 'yes']);
    try {
      const refused = await startAskgateProcess(baseEnv('guard', evicting.url)).then(
        (p) => p.stop().then(() => ''),
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/maxmemory-policy is "allkeys-lru".*noeviction/);
      const off = await startAskgateProcess(baseEnv('guard', aofOff.url));
      const on = await startAskgateProcess(baseEnv('guard', aofOn.url));
      await timeUntil(async () => off.output().includes('Redis AOF is off'), 5000);
      await Promise.all([off.stop(), on.stop()]);
      expect(off.output()).toMatch(
        /"appendonly":"no".*Redis AOF is off: pending asks will not survive a Redis restart/,
      );
      expect(on.output()).not.toMatch(/AOF is off/);
      rows.push({
        row: 'R7 (guard)',
        title: 'Startup guards',
        platform: 'none',
        injected:
          'askgate started against Redis with maxmemory-policy allkeys-lru; with appendonly no; with appendonly yes',
        figures: { evictingRefused: true, aofOffWarned: true, aofOnQuiet: true },
        violations: [],
      });
    } finally {
      await Promise.all([evicting.dispose(), aofOff.dispose(), aofOn.dispose()]);
    }
  });

  it('noeviction with a tiny maxmemory: writes fail loudly (5xx with the OOM reason), nothing already stored is lost', async () => {
    const world = await World.create({ name: 'r7-oom', row: 'R7', redisArgs: ['--maxmemory', '3mb'] });
    try {
      const node = world.node('A');
      await node.start();
      const api = node.api();
      const created: string[] = [];
      let failure: { status: number; body: any } | null = null;
      const filler = 'x'.repeat(1000);
      for (let i = 0; i < 2000 && !failure; i++) {
        const res = await api.post('/v1/asks', {
          ...askBody(`oom-${i}`),
          questions: [1, 2, 3].map((n) => ({
            id: `q${n}`,
            question: filler,
            options: [
              { label: 'A', description: filler.slice(0, 300) },
              { label: 'B', description: filler.slice(0, 300) },
            ],
          })),
          timeoutSeconds: 600,
        });
        if (res.status === 201) created.push(res.body.id);
        else failure = res;
      }
      expect(failure?.status).toBeGreaterThanOrEqual(500);
      const stored = await world.watch.getMany(created);
      const lost = [...stored.values()].filter((r) => r === null).length;
      rows.push({
        row: 'R7 (OOM)',
        title: 'Redis full (noeviction)',
        platform: 'api',
        injected: `Redis --maxmemory 3mb noeviction; asks of ~5 kB created until a write fails`,
        figures: {
          created: created.length,
          failureStatus: failure?.status,
          failureCode: failure?.body?.error?.code,
          storedAsksLost: lost,
        },
        violations: lost ? [`${lost} stored asks vanished`] : [],
      });
      expect(lost).toBe(0);
      // Loud: the OOM reason is in askgate's log (the script's first write was refused, so nothing was half-written).
      expect(node.output()).toMatch(/OOM command not allowed/);
    } finally {
      await world.close();
    }
  });
});

describe('R7 Redis restarted without persistence (empty data)', () => {
  it('old asks are explicitly gone (404 at once, "no longer open" on a tap), never a hang; new asks, deliveries and timeouts work again', async () => {
    const world = await World.create({ name: 'r7-empty', row: 'R7' });
    const tg = await TelegramRig.start(world.history);
    const agents = new Agents(world.history, () => world.nodes, 5);
    try {
      const node = world.node('A', tg.env());
      await node.start();
      const old = [];
      for (let i = 0; i < 10; i++) old.push(await tg.ask(node.api(), { timeoutSeconds: 60 }));
      const posted = await tg.allPosted(
        world.watch,
        old.map((o) => o.askId),
      );
      for (const o of old) agents.wait(o.askId);
      world.history.inject('fault', { data: { what: 'redis kill -9, restarted without AOF (empty)' } });
      await world.redis.kill9();
      await world.redis.restart();
      const back = await timeUntil(async () => (await client(node.url).get('/readyz')).status === 200, 30_000);
      const started = Date.now();
      const gone = await client(node.url).get(`/v1/asks/${old[0]!.askId}?wait=5`);
      const goneMs = Date.now() - started;
      const tapId = tg.tap(posted.get(old[1]!.askId)!, 'Staging', old[1]!.user, 'tap', { valid: false });
      const toast = await tg.toast(tapId, 4000);
      const fresh = [];
      for (let i = 0; i < 5; i++) fresh.push(await tg.ask(node.api(), { timeoutSeconds: 3 }));
      for (const f of fresh) agents.wait(f.askId);
      expect(
        await world.settle(
          fresh.map((f) => f.askId),
          30_000,
        ),
      ).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(
        fresh.map((f) => f.askId),
        { graceMs: 5000 },
      );
      const agentsSaw404 = world.history.read().filter((e) => e.type === 'result' && e.result === 404).length;
      rows.push({
        row: 'R7',
        title: 'Redis restarted empty (no AOF)',
        platform: 'telegram',
        injected: '10 pending asks; Redis kill -9 and restarted without persistence; then 5 new asks (3 s timeout)',
        figures: {
          ...report.figures,
          apiBackMs: back,
          getWaitOnLostAskStatus: gone.status,
          getWaitOnLostAskMs: goneMs,
          tapOnLostAsk: toast,
          agentsTold404: agentsSaw404,
        },
        violations: report.violations,
      });
      expect(gone.status).toBe(404);
      expect(goneMs).toBeLessThan(2000);
      expect(toast).toBe('This question is no longer open');
      expect(agentsSaw404).toBe(10);
      expect(report.violations).toEqual([]);
      expect(report.figures.timedOut).toBe(5);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
