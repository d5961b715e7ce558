import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { crashAt, within } from './harness/crash.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { FakeUser } from '../fakes/telegram-api.js';
import {
  historyCount,
  historyFeed,
  policyAsk,
  questionMessages,
  telegramPostedAt,
  until,
  type PolicyRecord,
} from './policies-kit.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hasKeyboard = (ex: { params: Record<string, any> }) => Boolean(ex.params.reply_markup?.inline_keyboard);

afterAll(() => writeSummary('policies-escalation', rows));

/** Where the kill lands for a group of asks, and when their escalation step is due (seconds after creation). */
const GROUPS = [
  { name: 'during-escalation-send', count: 8, afterSeconds: 5 },
  { name: 'due-while-down', count: 8, afterSeconds: 10 },
  { name: 'right-after-escalate-commit', count: 8, afterSeconds: 25 },
  { name: 'ended-before-due', count: 6, afterSeconds: 25 },
] as const;
type Group = (typeof GROUPS)[number]['name'];

interface Made {
  askId: string;
  group: Group;
  first: FakeUser;
  second: FakeUser;
  createdAt: number;
  afterSeconds: number;
}

describe('P1: kill -9 during an escalation (Telegram polling, AOF on)', () => {
  it('every escalation whose time passed fires exactly once (one message to the escalated target, one `escalated` entry); none for ended asks', async () => {
    const world = await World.create({
      name: 'policies-escalation',
      row: 'P1',
      redisArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
    });
    const tg = await TelegramRig.start(world.history);
    const node = world.node('A', tg.env());
    const agents = new Agents(world.history, () => world.nodes);
    const feed = await historyFeed(world.redis.url, world.prefix);
    const points: Record<string, number> = {};
    node.supervise = true;
    let nextUser = 900_000;
    const person = () => {
      const id = ++nextUser;
      return tg.fake.addUser(id, `Person${id}`, { username: `p${id}` });
    };
    try {
      await node.start();
      const made: Made[] = [];
      let run = 0;
      for (const g of GROUPS)
        for (let i = 0; i < g.count; i++) {
          const first = person();
          const second = person();
          const runId = `p1-${++run}`;
          const { askId, createdAt } = await policyAsk(
            () => node.api(),
            world.history,
            {
              runId,
              timeoutSeconds: 55,
              to: { channel: 'telegram', chat: String(first.id), users: [String(first.id)] },
              escalate: [
                {
                  afterSeconds: g.afterSeconds,
                  to: { channel: 'telegram', chat: String(second.id), users: [String(second.id)] },
                },
              ],
            },
            { platform: 'telegram', users: [String(first.id), String(second.id)], extra: { group: g.name } },
          );
          made.push({ askId, group: g.name, first, second, createdAt, afterSeconds: g.afterSeconds });
          agents.wait(askId);
        }
      const ids = made.map((m) => m.askId);
      const of = (g: Group) => made.filter((m) => m.group === g);
      const t0 = Math.min(...made.map((m) => m.createdAt));
      const secondChats = (g: Group) => new Set(of(g).map((m) => String(m.second.id)));

      // Point 1: the first escalated question of the group is about to reach Telegram (escalate committed, delivery in flight).
      const g1Chats = secondChats('during-escalation-send');
      const kill1 = crashAt(tg.interposer, node, {
        point: 'during-escalation-send',
        call: 'sendMessage',
        when: 'before',
        match: (ex) => hasKeyboard(ex) && g1Chats.has(String(ex.params.chat_id)),
      });

      // The asks that end before their step is due: answered on the first message.
      const initial = await tg.allPosted(world.watch, ids);
      for (const m of of('ended-before-due')) tg.tap(initial.get(m.askId)!, 'Staging', m.first);

      await within(kill1, 20_000, 'during-escalation-send');
      points['during-escalation-send'] = 1;
      await node.whenUp();

      // Point 2: down across the second group's due time (t0 + 10 s), restarted 3 s after it.
      const downAt = t0 + 8_500 - Date.now();
      if (downAt > 0) await sleep(downAt);
      node.supervise = false;
      await node.kill9('down-across-escalation-due');
      points['due-while-down'] = 1;
      await sleep(Math.max(0, t0 + 13_000 - Date.now()));
      await node.start();
      node.supervise = true;

      // Point 3: right after the commit that escalated an ask of the third group (its deliver job may not be enqueued yet).
      // The group's escalated questions are held at the interposer until the kill, so none reaches Telegram unrecorded.
      const g3 = new Set(of('right-after-escalate-commit').map((m) => m.askId));
      const g3Chats = secondChats('right-after-escalate-commit');
      let fired = false;
      let killed3: () => void = () => {};
      const killed3Done = new Promise<void>((r) => (killed3 = r));
      const hold = {
        before: async (ex: { call: string; params: Record<string, any> }) => {
          if (ex.call !== 'sendMessage' || !g3Chats.has(String(ex.params.chat_id))) return undefined;
          await killed3Done;
          return 'reset' as const;
        },
      };
      tg.interposer.hooks.add(hold);
      const kill3 = new Promise<void>((resolve) => {
        const listener = (askId: string) => {
          if (fired || !g3.has(askId)) return;
          void world.watch.get(askId).then((r) => {
            const rec = r as PolicyRecord | null;
            if (fired || !rec || (rec.escalated ?? 0) < 1) return;
            fired = true;
            feed.on.delete(listener);
            void node.kill9('right-after-escalate-commit').then(() => {
              tg.interposer.hooks.delete(hold);
              killed3();
              resolve();
            });
          });
        };
        feed.on.add(listener);
      });
      await within(kill3, 25_000, 'right-after-escalate-commit');
      points['right-after-escalate-commit'] = 1;
      await node.whenUp();

      // Every escalated message delivered; the second person answers there.
      const escalated = made.filter((m) => m.group !== 'ended-before-due');
      const second = new Map<string, ReturnType<typeof telegramPostedAt>>();
      await until(
        async () => {
          const records = await world.watch.getMany(escalated.filter((m) => !second.has(m.askId)).map((m) => m.askId));
          for (const [id, r] of records) {
            const rec = r as PolicyRecord | null;
            const index = rec?.deliveries.findIndex((d) => d.step === 1) ?? -1;
            const p = index >= 0 ? telegramPostedAt(tg.fake, rec, index) : null;
            if (p) second.set(id, p);
          }
          return second.size === escalated.length;
        },
        75_000,
        'every escalated question delivered',
        200,
      );
      for (const m of escalated) tg.tap(second.get(m.askId)!, 'Production', m.second);
      expect(await world.settle(ids, 60_000)).toBeGreaterThanOrEqual(0);
      await sleep(500);
      await agents.stop();

      const report = await world.verdict(ids, { graceMs: 5000 });
      const records = (await world.watch.getMany(ids)) as Map<string, PolicyRecord | null>;
      const problems: string[] = [];
      const lateness: Record<string, number[]> = {};
      let escalationMessages = 0;
      let firedTwice = 0;
      let lost = 0;
      for (const m of made) {
        const r = records.get(m.askId)!;
        const steps = r?.deliveries.filter((d) => d.step === 1) ?? [];
        const messages = questionMessages(tg.fake, String(m.second.id));
        const entries = historyCount(r, 'escalated');
        escalationMessages += messages;
        if (m.group === 'ended-before-due') {
          if (entries !== 0 || steps.length !== 0 || messages !== 0 || (r?.escalated ?? 0) !== 0)
            problems.push(`${m.askId} ended before its step yet escalated (${entries} entries, ${messages} messages)`);
          continue;
        }
        if (entries > 1 || steps.length > 1 || messages > 1) firedTwice++;
        if (entries === 0 || steps.length === 0 || messages === 0) lost++;
        if (entries !== 1 || steps.length !== 1 || messages !== 1 || r?.escalated !== 1)
          problems.push(
            `${m.askId} (${m.group}): ${entries} escalated entries, ${steps.length} step-1 deliveries, ${messages} messages to the escalated chat`,
          );
        if (r?.result?.answeredBy?.userId !== String(m.second.id))
          problems.push(`${m.askId} not answered by the escalated person: ${JSON.stringify(r?.result)}`);
        const at = r?.history.find((h) => h.type === 'escalated')?.at;
        if (at) (lateness[m.group] ??= []).push(Date.parse(at) - (m.createdAt + m.afterSeconds * 1000));
      }
      const worst = Object.fromEntries(Object.entries(lateness).map(([g, xs]) => [g, Math.max(...xs)]));
      rows.push({
        row: 'P1',
        title: 'Kill during an escalation',
        platform: 'telegram',
        injected: `${report.figures.kills} × kill -9 of askgate: ${Object.keys(points).join(', ')}; ${made.length} asks with one escalation step (8 due at 5 s, 8 at 10 s while askgate was down 8.5–13 s, 8 at 25 s (their sends held until the kill right after the first escalate commit), 6 answered before their step)`,
        figures: {
          ...report.figures,
          escalationsDue: escalated.length,
          escalationsFired: escalated.length - lost,
          escalationsLost: lost,
          escalationsFiredTwice: firedTwice,
          escalationMessages,
          escalationsOfEndedAsks: problems.filter((p) => p.includes('ended before')).length,
        },
        violations: [...report.violations, ...problems],
        extra: { worstEscalationLatenessMs: worst, restartMs: node.restartMs },
      });
      expect(problems).toEqual([]);
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(made.length);
      expect(escalationMessages).toBe(escalated.length);
    } finally {
      feed.close();
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
