import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { Balancer } from './harness/balancer.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import { freePort } from '../helpers/redis-server.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECRET = 'replica_webhook_secret_0123';
afterAll(() => writeSummary('replicas', rows));

describe('two askgate replicas sharing one Redis (Telegram webhook mode behind a load balancer)', () => {
  it('answers through either replica wake waiters on the other; each timeout fires once; each message finalized once; re-sent updates and a SIGSTOPped replica change nothing', async () => {
    const world = await World.create({ name: 'replicas', row: 'replicas', redisArgs: ['--appendonly', 'yes'] });
    const tg = await TelegramRig.start(world.history, { webhookTimeoutMs: 2500 });
    const lbPort = await freePort();
    const env = (port: number) => ({
      ...tg.env(),
      PORT: String(port),
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${lbPort}/telegram/webhook`,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
    });
    const a = world.node('A', env(await freePort()));
    const b = world.node('B', env(await freePort()));
    const lb = await Balancer.start([a, b], world.history, lbPort);
    const agents = new Agents(world.history, () => world.nodes);
    try {
      await Promise.all([a.start(), b.start()]);
      const nodes = [a, b];
      // 40 asks answered by taps (through the balancer), 20 left to time out; created alternately on A and B,
      // each waited for by an agent on the other replica.
      const created = [];
      for (let i = 0; i < 60; i++) {
        const maker = nodes[i % 2]!;
        const ask = await tg.ask(maker.api(), { timeoutSeconds: i < 40 ? 60 : 4 });
        created.push({ ...ask, maker });
        agents.wait(ask.askId, nodes[(i + 1) % 2]);
      }
      const ids = created.map((c) => c.askId);
      const posted = await tg.allPosted(world.watch, ids);
      for (const [i, c] of created.slice(0, 40).entries()) {
        const p = posted.get(c.askId)!;
        tg.tap(p, ['Staging', 'Production', 'Canary'][i % 3]!, c.user);
        await sleep(60);
      }
      // Telegram re-sends 15 updates (same update_id): 8 land on the other replica (which never saw that id), 7 on the same one.
      await sleep(300);
      const handledBy = new Map(
        world.history
          .read()
          .filter((e) => e.data?.call === 'webhook' && e.data?.tapId)
          .map((e) => [String(e.data!.tapId), String(e.data!.route)]),
      );
      const resent = tg.fake.pushed.filter((u) => u.callback_query).slice(0, 15);
      for (const [i, update] of resent.entries()) {
        const m = update.callback_query.message;
        const first = handledBy.get(update.callback_query.id);
        const target = i < 8 ? nodes.find((n) => n.name !== first)! : nodes.find((n) => n.name === first)!;
        world.history.inject('duplicate', {
          askId: tg.messageAsk.get(`${m.chat.id}:${m.message_id}`),
          platform: 'telegram',
          data: {
            kind: 'webhook re-send',
            to: target.name,
            sameReplica: i >= 8,
            updateId: update.update_id,
            tapId: update.callback_query.id,
          },
        });
        await fetch(`${target.url}/telegram/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
          body: JSON.stringify(update),
        });
      }
      // Replica A hangs (SIGSTOP) right as the timeouts fall due, and comes back 12 s later.
      const deadlines = created
        .slice(40)
        .map((c) => Date.parse(c.expiresAt))
        .sort((x, y) => x - y);
      await sleep(Math.max(0, deadlines[10]! + 5 - Date.now()));
      a.pause();
      await sleep(12_000);
      a.resume();
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await sleep(500);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      const events = world.history.read();
      const routeOfTap = new Map(
        events
          .filter((e) => e.data?.call === 'webhook' && e.data?.tapId)
          .map((e) => [String(e.data!.tapId), String(e.data!.route)]),
      );
      const tapOfAsk = new Map(events.filter((e) => e.type === 'tap').map((e) => [e.askId!, String(e.data?.tapId)]));
      const results = events.filter((e) => e.type === 'result');
      const crossWakes = results.filter(
        (r) => tapOfAsk.has(r.askId!) && routeOfTap.get(tapOfAsk.get(r.askId!)!) !== r.data?.node,
      ).length;
      const notifyAt = new Map(events.filter((e) => e.type === 'notify').map((e) => [e.askId!, e.wall]));
      const wakeMs = results
        .filter((r) => tapOfAsk.has(r.askId!) && notifyAt.has(r.askId!))
        .map((r) => r.wall - notifyAt.get(r.askId!)!);
      const extra = {
        tapsRoutedToA: [...routeOfTap.values()].filter((n) => n === 'A').length,
        tapsRoutedToB: [...routeOfTap.values()].filter((n) => n === 'B').length,
        crossReplicaWakes: crossWakes,
        worstTapWakeAfterPublishMs: Math.max(...wakeMs),
        resentUpdates: resent.length,
        secondAcksRefused: events.filter((e) => e.type === 'toast' && e.data?.duplicateAck).length,
        timeoutsResolvedByReconciler: [...(await world.watch.getMany(ids.slice(40))).values()].filter(
          (r) => Date.parse(r?.result?.at) - Date.parse(r?.expiresAt ?? '') > 500,
        ).length,
      };
      rows.push({
        row: 'Replicas',
        title: 'Two replicas, one Redis',
        platform: 'telegram',
        injected:
          '60 asks created alternately on A and B, agents waiting on the other replica; 40 taps through a round-robin balancer; 15 updates re-sent (same update_id; 8 to the other replica, 7 to the same one); 20 × 4 s timeouts with both workers competing; replica A SIGSTOPped for 12 s halfway through their deadlines',
        figures: { ...report.figures, ...extra },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(40);
      expect(report.figures.timedOut).toBe(20);
      expect(report.figures.publishes).toBe(60);
      expect(report.figures.successfulEdits).toBe(60);
      expect(crossWakes).toBeGreaterThanOrEqual(10);
    } finally {
      await agents.stop();
      await lb.close();
      await world.close();
      await tg.close();
    }
  });
});
