import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { crashAt, crashPoints } from './harness/crash.js';
import { timeUntil } from './harness/person.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';

const rows: RowSummary[] = [];
afterAll(() => writeSummary('approvals', rows));

const APPROVAL = {
  action: 'deploy',
  arguments: { service: 'billing', replicas: 3, regions: ['eu-west-1', 'us-east-1'] },
  summary: 'Deploy billing to two regions',
};

describe('R4 for approvals (issue 36): kill -9 of askgate between an Approve tap and the outcome edit (Telegram polling, AOF on)', () => {
  it('every crash point: each decision recorded once, bound to the hash shown, and every message edited to its outcome once', async () => {
    const world = await World.create({
      name: 'approvals',
      row: 'R4-approvals',
      redisArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
    });
    const tg = await TelegramRig.start(world.history);
    const node = world.node('A', tg.env());
    const agents = new Agents(world.history, () => world.nodes);
    const { points, crash } = crashPoints(node);
    node.supervise = true;
    try {
      await node.start();
      const asks = [];
      for (let i = 0; i < 16; i++)
        asks.push(await tg.ask(node.api(), { timeoutSeconds: 120, restrict: true, approval: APPROVAL }, 'R4'));
      for (const a of asks) agents.wait(a.askId);
      const posted = await tg.allPosted(
        world.watch,
        asks.map((a) => a.askId),
      );
      const tapIds = new Set<string>();
      const batchMessages = new Set<string>();
      const ours = (ex: { params: Record<string, any> }) => tapIds.has(String(ex.params.callback_query_id));
      const oursInUpdates = (_ex: unknown, reply?: { body: any }) =>
        (reply?.body?.result ?? []).some(
          (u: { callback_query?: { id: string } }) => u.callback_query && tapIds.has(u.callback_query.id),
        );
      const oursEdited = (ex: { params: Record<string, any> }) =>
        batchMessages.has(`${String(ex.params.chat_id)}:${String(ex.params.message_id)}`);
      const answerPoints = [
        { point: 'tap-received-before-ack', call: 'getUpdates', when: 'after', match: oursInUpdates, delayMs: 3 },
        { point: 'after-commit-before-ack', call: 'answerCallbackQuery', when: 'before', match: ours },
        { point: 'after-ack-before-edit', call: 'answerCallbackQuery', when: 'after', match: ours, delayMs: 0 },
        { point: 'during-edit', call: 'editMessageText', when: 'after', match: oursEdited },
      ] as const;
      for (const [i, cp] of answerPoints.entries()) {
        const batch = asks.slice(i * 4, i * 4 + 4);
        await crash(cp.point, crashAt(tg.interposer, node, cp), () =>
          batch.forEach((a) => {
            const p = posted.get(a.askId)!;
            batchMessages.add(`${p.chat}:${p.messageId}`);
            tapIds.add(tg.tap(p, 'Approve', a.user));
          }),
        );
        // The scripted person taps again when a tap is still unrecorded after the restart (as people do).
        for (let round = 0; round < 3; round++) {
          const ok = await timeUntil(
            async () =>
              [...(await world.watch.getMany(batch.map((b) => b.askId))).values()].every(
                (r) => r?.status === 'answered',
              ),
            5_000,
            100,
          );
          if (ok >= 0) break;
          const records = await world.watch.getMany(batch.map((b) => b.askId));
          for (const a of batch.filter((b) => records.get(b.askId)?.status === 'pending'))
            tg.tap(posted.get(a.askId)!, 'Approve', a.user, 'tap', { retry: round + 1 });
        }
        tapIds.clear();
        batchMessages.clear();
      }

      const settleMs = await world.settle(
        asks.map((a) => a.askId),
        75_000,
      );
      expect(settleMs).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(
        asks.map((a) => a.askId),
        { graceMs: 5000 },
      );
      const records = await world.watch.getMany(asks.map((a) => a.askId));
      const unbound: string[] = [];
      const unedited: string[] = [];
      for (const a of asks) {
        const record = records.get(a.askId) as any;
        const result = record?.result;
        const hash = String(record?.approval?.actionHash ?? '');
        if (
          result?.decision !== 'approve' ||
          result.actionHash !== hash ||
          result.effectiveHash !== hash ||
          JSON.stringify(result.arguments) !== JSON.stringify(APPROVAL.arguments)
        )
          unbound.push(a.askId);
        const p = posted.get(a.askId)!;
        const text = tg.fake.message(p.chat, p.messageId)?.text ?? '';
        if (!text.endsWith(`Approved by @${a.user.username} (#${hash.slice(7, 15)})`)) unedited.push(a.askId);
      }
      rows.push({
        row: 'R4-approvals',
        title: 'Approvals across process crashes',
        platform: 'telegram',
        injected: `${report.figures.kills} × kill -9 of askgate: ${Object.entries(points)
          .map(([p, n]) => `${p} ×${n}`)
          .join(', ')}; 16 approval asks, each approved by a tap`,
        figures: { ...report.figures },
        violations: [
          ...report.violations,
          ...unbound.map((id) => `${id}: decision not bound to the approved action's hash`),
          ...unedited.map((id) => `${id}: message not edited to "Approved by … (#hash)"`),
        ],
        extra: { restartMs: node.restartMs },
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(16);
      expect(unbound).toEqual([]);
      expect(unedited).toEqual([]);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
