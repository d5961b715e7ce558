import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { tapUntilRecorded } from './harness/person.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(() => writeSummary('redis-slow', rows));

describe('R9 slow Redis (TCP fault proxy between askgate and Redis; Telegram polling)', () => {
  it('latency, resets, a blackhole, round trips beyond the command timeout and a cut link: acks stay < 3 s, every answer recorded or explicitly refused and re-tapped', async () => {
    const world = await World.create({ name: 'r9-redis-slow', row: 'R9', proxy: true });
    const proxy = world.proxy!;
    const tg = await TelegramRig.start(world.history);
    const node = world.node('A', tg.env());
    const agents = new Agents(world.history, () => world.nodes, 20);
    try {
      await node.start();
      const created = [];
      for (let i = 0; i < 75; i++) created.push(await tg.ask(node.api(), { timeoutSeconds: 120 }));
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await tg.allPosted(world.watch, ids);
      const phases = [
        { what: '+600 ms per chunk each way (1.2 s round trips) for 8 s', mode: { latencyMs: 600 }, ms: 8000 },
        { what: '+200 ms and 2 % of chunks reset for 6 s', mode: { latencyMs: 200, resetRate: 0.02 }, ms: 6000 },
        { what: 'blackhole (Redis hung, bytes held) for 3 s', mode: { blackhole: true }, ms: 3000 },
        {
          what: '+900 ms each way (1.8 s round trips, beyond the 1.5 s command timeout) for 5 s',
          mode: { latencyMs: 900 },
          ms: 5000,
        },
        {
          what: 'link cut: every connection reset and new ones refused for 3 s',
          mode: { refuse: true },
          ms: 3000,
          cut: true,
        },
      ];
      const attempts: number[] = [];
      for (const [n, phase] of phases.entries()) {
        world.history.inject('fault', { data: { what: phase.what } });
        proxy.set(phase.mode);
        if ('cut' in phase) world.history.inject('fault', { data: { what: 'connections cut', count: proxy.cutAll() } });
        const taps = created.slice(n * 15, n * 15 + 15).map(async (a, i) => {
          await sleep(i * 150);
          return tapUntilRecorded(world, tg, posted.get(a.askId)!, a.user, 'Production');
        });
        await sleep(phase.ms);
        proxy.heal();
        world.history.inject('heal', { data: { what: phase.what } });
        attempts.push(...(await Promise.all(taps)));
      }
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      const events = world.history.read();
      const replies = events.filter((e) => e.type === 'toast' && e.data?.via === 'reply').map((e) => String(e.result));
      const extra = {
        emptyAcksThenReply: replies.filter((r) => r === 'Answer recorded').length,
        toldToRetry:
          replies.filter((r) => r.startsWith('Sorry')).length +
          events.filter((e) => e.type === 'toast' && String(e.result).startsWith('Sorry')).length,
        retaps: attempts.reduce((a, n) => a + n - 1, 0),
        proxyResets: proxy.stats.resets,
      };
      rows.push({
        row: 'R9',
        title: 'Redis slow',
        platform: 'telegram',
        injected: `75 asks, 15 tapped at ~6/s in each phase, the person re-tapping until recorded: ${phases.map((p) => p.what).join('; ')}`,
        figures: { ...report.figures, ...extra },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(75);
      expect(report.figures.ackMaxMs!).toBeLessThan(3000);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
