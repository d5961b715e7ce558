import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { crashAt, within } from './harness/crash.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { FakeUser } from '../fakes/telegram-api.js';
import { historyCount, policyAsk, reminderMessages, type PolicyRecord } from './policies-kit.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GROUP_CHAT = -100_777_001;
const CHAIN_CHAT = -100_777_002;

afterAll(() => writeSummary('policies-reminders', rows));

/**
 * Groups of asks: their timeout, reminder offsets (whole seconds from creation, the last one
 * 1 s before the deadline), how many reminders each must get (`exactly`) or may get (`atMost`).
 */
const GROUPS = {
  // Phase 1, askgate up throughout.
  boundary: { count: 12, timeoutSeconds: 4, remind: [3], exactly: 1 },
  // Two reminders 1 s apart in one private chat (Telegram pacing: 1 message/s): on a starved machine
  // the first can come late enough to push the second past its deadline, which then drops it (never late).
  'two-at-the-end': { count: 8, timeoutSeconds: 5, remind: [3, 4], atLeast: 1, atMost: 2 },
  // Tapped 1 s before the reminder: normally none (the answer commits first); on a starved machine the tap may
  // commit after the reminder fired, which is then posted before the answer (never after: checked below).
  'answered-just-before': { count: 6, timeoutSeconds: 8, remind: [4], atMost: 1 },
  'one-group-chat': { count: 6, timeoutSeconds: 10, remind: [9], atMost: 1 },
  // A reminder that waits for its chat's send slot (Telegram pacing) past its ask's deadline: the
  // chain below books the slot: Z's reminder at +8.2 s, A's at +8.7 s (slot +9.2 s), B's at +9 s (slot +10.2 s, B ends at +10 s).
  'paced-past-deadline': { count: 3, timeoutSeconds: 10, remind: [9], atMost: 1 },
  // Phase 2, with kills.
  'down-across-reminder-and-deadline': { count: 8, timeoutSeconds: 6, remind: [5], exactly: 0 },
  'down-across-reminder': { count: 8, timeoutSeconds: 20, remind: [5], exactly: 1 },
  'killed-while-posting': { count: 6, timeoutSeconds: 20, remind: [12], atMost: 1 },
} as const;
type Group = keyof typeof GROUPS;

interface Made {
  askId: string;
  group: Group;
  user: FakeUser;
  chat: string;
  createdAt: number;
}

describe('P3: reminders at the deadline boundary, and across restarts (Telegram polling, AOF on)', () => {
  it('a reminder never posts after its ask ended and each fires at most once; one that fell due while askgate was down posts on restart', async () => {
    const world = await World.create({
      name: 'policies-reminders',
      row: 'P3',
      redisArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
    });
    const tg = await TelegramRig.start(world.history);
    tg.fake.addGroup(GROUP_CHAT, 'Ops');
    tg.fake.addGroup(CHAIN_CHAT, 'Ops 2');
    const node = world.node('A', tg.env());
    const agents = new Agents(world.history, () => world.nodes);
    // When askgate made each reminder call (before the platform saw it): the instant it decided to post.
    const reminderCalls: { chat: string; replyTo: string; at: number }[] = [];
    tg.interposer.hooks.add({
      before: (ex) => {
        if (ex.call === 'sendMessage' && ex.params.reply_parameters && /^Reminder/.test(String(ex.params.text)))
          reminderCalls.push({
            chat: String(ex.params.chat_id),
            replyTo: String(ex.params.reply_parameters.message_id),
            at: Date.now(),
          });
        return undefined;
      },
    });
    const made: Made[] = [];
    let nextUser = 600_000;
    const chain = [
      { atMs: 0, timeoutSeconds: 10, remind: [9] },
      { atMs: 200, timeoutSeconds: 20, remind: [8] },
      { atMs: 700, timeoutSeconds: 20, remind: [8] },
    ];
    const create = async (group: Group) => {
      const g = GROUPS[group];
      const out: Made[] = [];
      const start = Date.now();
      for (let i = 0; i < g.count; i++) {
        const id = ++nextUser;
        const user = tg.fake.addUser(id, `P${id}`, { username: `p${id}` });
        const link = group === 'paced-past-deadline' ? chain[i]! : null;
        if (link) await sleep(Math.max(0, start + link.atMs - Date.now()));
        const chat = group === 'one-group-chat' ? String(GROUP_CHAT) : link ? String(CHAIN_CHAT) : String(id);
        const { askId, createdAt } = await policyAsk(
          () => node.api(),
          world.history,
          {
            runId: `p3-${id}`,
            timeoutSeconds: link?.timeoutSeconds ?? g.timeoutSeconds,
            remindAfterSeconds: [...(link?.remind ?? g.remind)],
            to: { channel: 'telegram', chat, users: [String(id)] },
          },
          { platform: 'telegram', users: [String(id)], extra: { group } },
        );
        out.push({ askId, group, user, chat, createdAt });
        agents.wait(askId);
      }
      made.push(...out);
      return out;
    };
    const points: Record<string, number> = {};
    node.supervise = true;
    try {
      await node.start();

      // Phase 1: reminders 1 s before the deadline; two in the last 2 s; an answer just before; six in one group chat.
      for (const group of [
        'paced-past-deadline',
        'one-group-chat',
        'boundary',
        'two-at-the-end',
        'answered-just-before',
      ] as const)
        await create(group);
      const early = made.filter((m) => m.group === 'answered-just-before');
      const posted = await tg.allPosted(
        world.watch,
        early.map((m) => m.askId),
      );
      for (const m of early) {
        await sleep(Math.max(0, m.createdAt + 3_000 - Date.now()));
        tg.tap(posted.get(m.askId)!, 'Staging', m.user);
      }
      expect(
        await world.settle(
          made.map((m) => m.askId),
          30_000,
        ),
      ).toBeGreaterThanOrEqual(0);

      // Phase 2: askgate down from 3.8 s to past 7.5 s after creation (across reminders at 5 s, and deadlines at 6 s).
      const phase2 = [
        ...(await create('down-across-reminder-and-deadline')),
        ...(await create('down-across-reminder')),
      ];
      const first = Math.min(...phase2.map((m) => m.createdAt));
      await sleep(Math.max(0, first + 3_800 - Date.now()));
      node.supervise = false;
      await node.kill9('down-across-reminder-and-deadline');
      points['down-across-reminder-and-deadline'] = 1;
      await sleep(Math.max(0, first + 7_500 + 1_500 - Date.now()));
      await node.start();
      node.supervise = true;
      // Then a kill as a reminder is about to reach Telegram.
      const posting = await create('killed-while-posting');
      const postingChats = new Set(posting.map((m) => m.chat));
      const kill = crashAt(tg.interposer, node, {
        point: 'killed-while-posting',
        call: 'sendMessage',
        when: 'before',
        match: (ex) => Boolean(ex.params.reply_parameters) && postingChats.has(String(ex.params.chat_id)),
      });
      await within(kill, 30_000, 'killed-while-posting');
      points['killed-while-posting'] = 1;
      await node.whenUp();
      const ids = made.map((m) => m.askId);
      expect(await world.settle(ids, 45_000)).toBeGreaterThanOrEqual(0);
      await sleep(1000);
      await agents.stop();

      const report = await world.verdict(ids, { graceMs: 10_000 });
      const records = (await world.watch.getMany(ids)) as Map<string, PolicyRecord | null>;
      const problems: string[] = [];
      const posts: Record<string, number> = {};
      let afterEnd = 0;
      let twice = 0;
      let tightest = Infinity;
      for (const m of made) {
        const g = GROUPS[m.group];
        const r = records.get(m.askId)!;
        const question = r?.deliveries[0]?.message?.messageId;
        const endedAt = Date.parse(r?.result?.at ?? '');
        const calls = reminderCalls.filter((c) => c.chat === m.chat && c.replyTo === question);
        const shown = reminderMessages(tg.fake, m.chat).filter((x) => String(x.replyTo) === question).length;
        posts[m.group] = (posts[m.group] ?? 0) + shown;
        for (const c of calls) {
          tightest = Math.min(tightest, endedAt - c.at);
          if (c.at >= endedAt) {
            afterEnd++;
            problems.push(`${m.askId} (${m.group}): reminder posted ${c.at - endedAt} ms after the ask ended`);
          }
        }
        const entries = r?.history.filter((h) => h.type === 'reminded').map((h) => h.detail ?? '') ?? [];
        if (shown > g.remind.length || new Set(entries).size !== entries.length || entries.length > g.remind.length) {
          twice++;
          problems.push(`${m.askId} (${m.group}): ${shown} reminders shown, history ${JSON.stringify(entries)}`);
        }
        const timeline = () =>
          JSON.stringify({
            reminded: r?.reminded,
            fired: r?.history.filter((h) => h.type === 'reminded').map((h) => Date.parse(h.at) - m.createdAt),
            calls: calls.map((c) => c.at - m.createdAt),
            ended: endedAt - m.createdAt,
          });
        if ('exactly' in g && shown !== g.exactly)
          problems.push(`${m.askId} (${m.group}): ${shown} reminders shown, expected ${g.exactly} ${timeline()}`);
        if ('atLeast' in g && shown < g.atLeast)
          problems.push(`${m.askId} (${m.group}): ${shown} reminders shown, at least ${g.atLeast} ${timeline()}`);
        if ('atMost' in g && shown > g.atMost)
          problems.push(`${m.askId} (${m.group}): ${shown} reminders shown, at most ${g.atMost}`);
        if (historyCount(r, 'reminded') < shown)
          problems.push(`${m.askId} (${m.group}): ${shown} reminders shown but ${historyCount(r, 'reminded')} fired`);
        const expected = m.group === 'answered-just-before' ? 'answered' : 'no_answer';
        if (r?.result?.status !== expected) problems.push(`${m.askId} (${m.group}) ended ${JSON.stringify(r?.result)}`);
      }
      rows.push({
        row: 'P3',
        title: 'Reminders at the deadline boundary',
        platform: 'telegram',
        injected: `${made.length} asks with reminders 1 s before their deadline (12 × 4 s; 8 × 5 s with two, at 3 and 4 s; 6 answered 1 s before theirs; 6 in one group chat, paced; 3 in another group chat chained so the last one's reminder waits for its send slot until 0.2 s past its deadline); ${report.figures.kills} × kill -9: askgate down from 3.8 s to past 7.5 s after creation across 8 reminders + deadlines and 8 reminders alone, and one kill as a reminder was about to reach Telegram`,
        figures: {
          ...report.figures,
          remindersShown: Object.values(posts).reduce((a, b) => a + b, 0),
          remindersAfterEnd: afterEnd,
          remindersTwice: twice,
        },
        violations: [...report.violations, ...problems],
        extra: {
          remindersByGroup: posts,
          tightestReminderBeforeEndMs: tightest,
          kills: points,
          restartMs: node.restartMs,
        },
      });
      expect(problems).toEqual([]);
      expect(report.violations).toEqual([]);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
