import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { tapUntilRecorded, timeUntil } from './harness/person.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import { client } from '../helpers/http.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OUTAGE_MS = 5000;

afterAll(() => writeSummary('redis-outage', rows));

/**
 * R6: taps flow; right after the 6th "Answer recorded" Redis is killed (or stopped), stays down
 * 5 s while taps, API calls and timeouts keep coming, and restarts on the same port and dir.
 */
async function restartRow(name: string, fsync: 'always' | 'everysec', stop: 'kill9' | 'sigterm') {
  const world = await World.create({ name, row: 'R6', redisArgs: ['--appendonly', 'yes', '--appendfsync', fsync] });
  const tg = await TelegramRig.start(world.history);
  const node = world.node('A', tg.env());
  const agents = new Agents(world.history, () => world.nodes, 5);
  try {
    await node.start();
    const api = node.api();
    const tapped = [];
    for (let i = 0; i < 24; i++) tapped.push(await tg.ask(api, { timeoutSeconds: 60 }));
    const expiring = [];
    for (let i = 0; i < 6; i++) expiring.push(await tg.ask(api, { timeoutSeconds: 4 }));
    const all = [...tapped, ...expiring].map((a) => a.askId);
    for (const id of all) agents.wait(id);
    const posted = await tg.allPosted(world.watch, all);

    // Taps at ~8/s; the outage starts right after the 6th recorded toast.
    let recorded = 0;
    let outage: Promise<void> | null = null;
    const down = { at: 0, upAt: 0 };
    const people = tapped.map(async (a, i) => {
      await sleep(i * 120);
      const p = posted.get(a.askId)!;
      return tapUntilRecorded(world, tg, p, a.user, 'Staging', 8, 2500);
    });
    const stopRedis = async () => {
      down.at = Date.now();
      world.history.inject('fault', { data: { what: `redis ${stop}`, pid: world.redis.pid() } });
      await (stop === 'kill9' ? world.redis.kill9() : world.redis.stop());
    };
    const watchToasts = setInterval(() => {
      recorded = tg.fake.answers.filter((a) => a.text === 'Answer recorded').length;
      if (recorded >= 6 && !outage) outage = stopRedis();
    }, 5);
    await timeUntil(async () => outage !== null, 20_000);
    clearInterval(watchToasts);
    await outage;

    // During the outage: the API answers fast (503), never hangs.
    const probes: { ms: number; status: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const started = Date.now();
      const res = await client(node.url).get(`/v1/asks/${tapped[23]!.askId}`);
      probes.push({ ms: Date.now() - started, status: res.status });
      await sleep(200);
    }
    await sleep(Math.max(0, down.at + OUTAGE_MS - Date.now()));
    await world.redis.restart();
    down.upAt = Date.now();
    world.history.inject('heal', {
      data: { what: 'redis restarted on the same port and dir', outageMs: down.upAt - down.at },
    });
    const apiBackMs = await timeUntil(async () => (await client(node.url).get('/readyz')).status === 200, 30_000);
    const fresh = await tg.ask(node.api(), { timeoutSeconds: 3 });
    const createBackMs = Date.now() - down.upAt;
    all.push(fresh.askId);
    agents.wait(fresh.askId);
    const sent = await timeUntil(
      async () => (await world.watch.get(fresh.askId))?.deliveries[0]?.status === 'sent',
      30_000,
    );
    const workerBackMs = sent < 0 ? -1 : Date.now() - down.upAt;
    await timeUntil(async () => (await world.watch.get(fresh.askId))?.status === 'no_answer', 30_000);
    const freshTimeoutLateMs =
      Date.parse((await world.watch.get(fresh.askId))?.result?.at ?? 'NaN') - Date.parse(fresh.expiresAt);
    const attempts = await Promise.all(people);
    expect(await world.settle(all, 30_000)).toBeGreaterThanOrEqual(0);
    await agents.stop();
    const report = await world.verdict(all, { graceMs: OUTAGE_MS + 30_000, exactlyOnePublish: false });
    const recovery = {
      outageMs: down.upAt - down.at,
      apiBackMs,
      createBackMs,
      workerBackMs,
      freshTimeoutLateMs,
      probes,
      retaps: attempts.reduce((a, n) => a + n - 1, 0),
    };
    rows.push({
      row: 'R6',
      title: `Redis restart, AOF on (appendfsync ${fsync}, ${stop === 'kill9' ? 'kill -9' : 'SIGTERM'})`,
      platform: 'telegram',
      injected: `30 asks (6 expire during the outage); taps at ~8/s; Redis ${stop === 'kill9' ? 'kill -9' : 'SIGTERM'} right after the 6th "Answer recorded", down ${OUTAGE_MS / 1000} s, restarted on the same port and dir; the person re-taps when told to`,
      figures: { ...report.figures },
      violations: report.violations,
      extra: recovery,
    });
    return { report, recovery };
  } finally {
    await agents.stop();
    await world.close();
    await tg.close();
  }
}

describe('R6 Redis restart with AOF on (Telegram polling)', () => {
  it('appendfsync always, kill -9 right after "recorded": 0 acknowledged answers lost, API 503 fast, workers and timeouts resume', async () => {
    const { report, recovery } = await restartRow('r6-redis-kill9-always', 'always', 'kill9');
    expect(report.violations).toEqual([]);
    expect(report.figures.lost).toBe(0);
    expect(report.figures.answered).toBe(24);
    expect(report.figures.timedOut).toBe(7);
    expect(recovery.probes.every((p) => p.status === 503 && p.ms < 2000)).toBe(true);
    expect(recovery.workerBackMs).toBeGreaterThanOrEqual(0);
    expect(recovery.workerBackMs).toBeLessThan(30_000);
  });

  it('appendfsync everysec, SIGTERM: same guarantees (the everysec window only opens on an OS crash, which a local test cannot cause)', async () => {
    const { report, recovery } = await restartRow('r6-redis-sigterm-everysec', 'everysec', 'sigterm');
    expect(report.violations).toEqual([]);
    expect(report.figures.answered).toBe(24);
    expect(recovery.workerBackMs).toBeGreaterThanOrEqual(0);
  });
});
