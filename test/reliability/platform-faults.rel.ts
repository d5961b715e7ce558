import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { DiscordRig } from './harness/discord-rig.js';
import { platformFaults, type FaultPlan } from './harness/platform-faults.js';
import { SlackRig } from './harness/slack-rig.js';
import { TelegramRig, type Posted } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { FakeUser } from '../fakes/telegram-api.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
afterAll(() => writeSummary('platform-faults', rows));

/** Taps every ask as soon as its message is out, while other sends are still being refused. */
async function tapWhenPosted(
  world: World,
  tg: TelegramRig,
  asks: { askId: string; user: FakeUser }[],
  ms: number,
): Promise<void> {
  const left = new Map(asks.map((a) => [a.askId, a.user]));
  const until = Date.now() + ms;
  while (left.size > 0 && Date.now() < until) {
    for (const [askId, r] of await world.watch.getMany([...left.keys()])) {
      const p: Posted | null = tg.posted(r);
      if (!p) continue;
      tg.tap(p, 'Production', left.get(askId)!);
      left.delete(askId);
    }
    await sleep(150);
  }
  if (left.size > 0) throw new Error(`${left.size} asks never delivered`);
}

const notAReply = (ex: { params: Record<string, any> }) => ex.params.reply_parameters === undefined;

describe('R10 + R11 on Telegram (faults injected between askgate and the fake Bot API)', () => {
  const cases: { row: string; title: string; plan: Omit<FaultPlan, 'platform' | 'calls'>; what: string }[] = [
    {
      row: 'R10',
      title: 'Platform 429',
      plan: { rate429: 0.3, seed: 10, eligible: notAReply },
      what: '30 % of sendMessage/editMessageText answered 429 retry_after 1–3 s',
    },
    {
      row: 'R11',
      title: 'Platform 5xx, resets, stalls',
      plan: {
        rate5xx: 0.08,
        rateResetBefore: 0.03,
        rateResetAfter: 0.03,
        rateStall: 0.04,
        stallMs: 3000,
        seed: 11,
        eligible: notAReply,
      },
      what: 'sendMessage/editMessageText: 8 % 500/502/503, 3 % reset before the fake, 3 % reset after it acted, 4 % 3 s stalls',
    },
  ];
  for (const c of cases) {
    it(`${c.row}: ${c.what}; 6 questions into one group — every question delivered once (bar resets after the send), acks unaffected`, async () => {
      const world = await World.create({ name: `${c.row.toLowerCase()}-telegram`, row: c.row });
      const tg = await TelegramRig.start(world.history);
      const { hooks, tally } = platformFaults(
        { platform: 'telegram', calls: ['sendMessage', 'editMessageText'], ...c.plan },
        world.history,
      );
      tg.interposer.hooks.add(hooks);
      const agents = new Agents(world.history, () => world.nodes);
      try {
        const node = world.node('A', tg.env());
        await node.start();
        const group = tg.fake.addGroup(-1_000_000_000_123, 'ops');
        const asks = [];
        for (let i = 0; i < 36; i++)
          asks.push(
            await tg.ask(node.api(), { timeoutSeconds: 90, ...(i % 6 === 5 ? { chat: String(group.id) } : {}) }),
          );
        const ids = asks.map((a) => a.askId);
        for (const id of ids) agents.wait(id);
        await tapWhenPosted(world, tg, asks, 90_000);
        expect(await world.settle(ids, 75_000)).toBeGreaterThanOrEqual(0);
        await agents.stop();
        const report = await world.verdict(ids, { graceMs: 5000 });
        const finals = await world.watch.getMany(ids);
        const unfinalized = [...finals.values()].filter((r) => r?.deliveries[0]?.finalized !== 'done').length;
        const groupSends = tg.fake
          .chatMessages(group.id)
          .filter((m) => m.from.is_bot)
          .map((m) => m.date);
        const perMinute = Math.max(0, ...groupSends.map((d) => groupSends.filter((x) => x >= d && x < d + 60).length));
        const resetChats = new Set(tally.resetAfterKeys);
        const duplicated = [...tg.sends.entries()].filter(([, n]) => n > 1).map(([id]) => id);
        const unexplained = duplicated.filter((id) => !resetChats.has(String(finals.get(id)?.to?.chat)));
        const extra = {
          injected: tally.injected,
          earlyRetries: tally.earlyRetries,
          bucketProbes: tally.bucketProbes,
          duplicateMessages: duplicated.length,
          unexplainedDuplicates: unexplained.length,
          unfinalized,
          groupMaxPerMinute: perMinute,
        };
        rows.push({
          row: c.row,
          title: c.title,
          platform: 'telegram',
          injected: `36 asks (6 into one group, the rest into private chats); ${c.what}`,
          figures: { ...report.figures, ...extra },
          violations: report.violations,
        });
        expect(report.violations).toEqual([]);
        expect(report.figures.answered).toBe(36);
        expect(tally.earlyRetries).toBe(0);
        expect(tally.bucketProbes).toBe(0);
        expect(unexplained).toEqual([]);
        expect(unfinalized).toBe(0);
        expect(perMinute).toBeLessThanOrEqual(20);
      } finally {
        await agents.stop();
        await world.close();
        await tg.close();
      }
    });
  }
});

describe('R10 + R11 on Slack and Discord (429 with Retry-After, 5xx)', () => {
  it('Slack: 25 % of chat.postMessage/chat.update answered 429 (Retry-After 1–2 s), 8 % 5xx: each question posted once, every message updated, no early retry', async () => {
    const world = await World.create({ name: 'r10r11-slack', row: 'R10+R11' });
    const slack = await SlackRig.start(world.history);
    const { hooks, tally } = platformFaults(
      {
        platform: 'slack',
        calls: ['chat.postMessage', 'chat.update'],
        rate429: 0.25,
        rate5xx: 0.08,
        retryAfterS: (r) => 1 + Math.floor(r() * 2),
        seed: 21,
      },
      world.history,
    );
    slack.interposer.hooks.add(hooks);
    try {
      const node = world.node('A', slack.env());
      await node.start();
      const injector = slack.injector(node.url);
      const asks = [];
      for (let i = 0; i < 20; i++)
        asks.push({ ...(await slack.ask(node.api(), { timeoutSeconds: 90, user: `U8${i}` })), user: `U8${i}` });
      const posted = await slack.allPosted(
        world.watch,
        asks.map((a) => a.askId),
        45_000,
      );
      await Promise.all(asks.map((a) => slack.tap(injector, a.askId, posted.get(a.askId)!, 'Canary', a.user)));
      expect(
        await world.settle(
          asks.map((a) => a.askId),
          45_000,
        ),
      ).toBeGreaterThanOrEqual(0);
      const report = await world.verdict(
        asks.map((a) => a.askId),
        { graceMs: 5000 },
      );
      const duplicates = [...slack.sends.values()].filter((n) => n > 1).length;
      rows.push({
        row: 'R10+R11',
        title: 'Platform 429 and 5xx',
        platform: 'slack',
        injected: '20 asks; 25 % of chat.postMessage/chat.update 429 with Retry-After 1–2 s, 8 % 500/502/503',
        figures: {
          ...report.figures,
          injected: tally.injected,
          earlyRetries: tally.earlyRetries,
          bucketProbes: tally.bucketProbes,
          duplicateMessages: duplicates,
        },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(20);
      expect(tally.earlyRetries).toBe(0);
      expect(duplicates).toBe(0);
    } finally {
      await world.close();
      await slack.close();
    }
  });

  it('Discord: 25 % of message sends/edits answered 429 (retry_after 1–2 s), 8 % 5xx: each question sent once, every message edited; acks never wait behind them', async () => {
    const world = await World.create({ name: 'r10r11-discord', row: 'R10+R11' });
    const discord = await DiscordRig.start(world.history);
    const chat = discord.fake.addTextChannel();
    const calls = ['POST /channels/:id/messages', 'PATCH /channels/:id/messages/:id'];
    const { hooks, tally } = platformFaults(
      {
        platform: 'discord',
        calls,
        rate429: 0.25,
        rate5xx: 0.08,
        retryAfterS: (r) => 1 + Math.floor(r() * 2),
        seed: 31,
      },
      world.history,
    );
    discord.interposer.hooks.add(hooks);
    try {
      const node = world.node('A', discord.env());
      await node.start();
      const asks = [];
      for (let i = 0; i < 20; i++) {
        const user = discord.newUser();
        asks.push({ ...(await discord.ask(node.api(), { chat, timeoutSeconds: 90, user })), user });
      }
      const posted = await discord.allPosted(
        world.watch,
        asks.map((a) => a.askId),
        60_000,
      );
      for (const a of asks) discord.tap(a.askId, posted.get(a.askId)!, 'Canary', a.user);
      expect(
        await world.settle(
          asks.map((a) => a.askId),
          60_000,
        ),
      ).toBeGreaterThanOrEqual(0);
      await sleep(300);
      const report = await world.verdict(
        asks.map((a) => a.askId),
        { graceMs: 5000 },
      );
      const duplicates = [...discord.sends.values()].filter((n) => n > 1).length;
      rows.push({
        row: 'R10+R11',
        title: 'Platform 429 and 5xx',
        platform: 'discord',
        injected: '20 asks in one channel; 25 % of message sends/edits 429 with retry_after 1–2 s, 8 % 500/502/503',
        figures: {
          ...report.figures,
          injected: tally.injected,
          earlyRetries: tally.earlyRetries,
          bucketProbes: tally.bucketProbes,
          duplicateMessages: duplicates,
        },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(20);
      expect(duplicates).toBe(0);
      expect(tally.earlyRetries).toBe(0);
    } finally {
      await world.close();
      await discord.close();
    }
  });
});
