import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { DiscordRig } from './harness/discord-rig.js';
import { SlackRig } from './harness/slack-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length]!;
const LABELS = ['Staging', 'Production', 'Canary'] as const;

afterAll(() => writeSummary('slack-discord', rows));

describe('R1 + R2 on Slack (HTTP mode: signed block_actions and Events API retries)', () => {
  it('50 asks: taps, 2–12× duplicate taps, thread replies with 1–3 X-Slack-Retry-Num retries, wrong users, 6 timeouts', async () => {
    const world = await World.create({ name: 'r1r2-slack', row: 'R1+R2' });
    const slack = await SlackRig.start(world.history);
    const agents = new Agents(world.history, () => world.nodes);
    try {
      const node = world.node('A', slack.env());
      await node.start();
      const injector = slack.injector(node.url);
      const api = node.api();
      const created = [];
      for (let i = 0; i < 50; i++) {
        const user = `U7${String(i).padStart(6, '0')}`;
        created.push({
          ...(await slack.ask(api, { timeoutSeconds: i < 44 ? 40 : 4, user, restrict: i % 2 === 0 })),
          user,
        });
      }
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await slack.allPosted(world.watch, ids);
      const work: Promise<unknown>[] = [];
      let duplicates = 0;
      for (let i = 0; i < 44; i++) {
        const { askId, user } = created[i]!;
        const message = posted.get(askId)!;
        if (i % 10 === 0)
          work.push(slack.tap(injector, askId, message, 'Canary', 'U0STRANGER', 'tap', { authorized: false }));
        if (i % 4 === 3)
          work.push(slack.threadReply(injector, askId, message, pick(['1', '2', '3'], i), user, 1 + (i % 3)));
        else {
          const copies = i % 4 === 0 ? 1 : 2 + (i % 11);
          duplicates += copies - 1;
          for (let k = 0; k < copies; k++)
            work.push(
              sleep((k * 37) % 300).then(() =>
                slack.tap(injector, askId, message, pick(LABELS, i), user, k === 0 ? 'tap' : 'duplicate'),
              ),
            );
        }
        await sleep(60);
      }
      await Promise.all(work);
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      rows.push({
        row: 'R1+R2',
        title: 'Baseline and duplicates',
        platform: 'slack',
        injected: `50 asks (6 time out); taps with ${duplicates} duplicate copies, 11 thread replies each re-sent 1–3× as Events API retries, 5 wrong-user taps`,
        figures: { ...report.figures },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(44);
      expect(report.figures.timedOut).toBe(6);
      expect(report.figures.ackMaxMs!).toBeLessThan(3000);
    } finally {
      await agents.stop();
      await world.close();
      await slack.close();
    }
  });
});

describe('R1 + R2 on Discord (gateway interactions, ack window enforced by the fake)', () => {
  it('50 asks: taps, 2–12× duplicate taps (new interactions), wrong users, 6 timeouts; 0 × 10062, 0 × 40060', async () => {
    const world = await World.create({ name: 'r1r2-discord', row: 'R1+R2' });
    const discord = await DiscordRig.start(world.history);
    const chat = discord.fake.addTextChannel();
    const agents = new Agents(world.history, () => world.nodes);
    try {
      const node = world.node('A', discord.env());
      await node.start();
      const api = node.api();
      const created = [];
      for (let i = 0; i < 50; i++) {
        const user = discord.newUser();
        created.push({
          ...(await discord.ask(api, { chat, timeoutSeconds: i < 44 ? 40 : 4, user, restrict: i % 2 === 0 })),
          user,
        });
      }
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await discord.allPosted(world.watch, ids);
      const stranger = discord.newUser();
      let duplicates = 0;
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 44; i++) {
        const { askId, user } = created[i]!;
        const message = posted.get(askId)!;
        if (i % 10 === 0) discord.tap(askId, message, 'Canary', stranger, 'tap', { authorized: false });
        const copies = i % 3 === 0 ? 1 : 2 + (i % 11);
        duplicates += copies - 1;
        for (let k = 0; k < copies; k++)
          work.push(
            sleep((k * 41) % 400).then(() =>
              discord.tap(askId, message, pick(LABELS, i), user, k === 0 ? 'tap' : 'duplicate'),
            ),
          );
        await sleep(60);
      }
      await Promise.all(work);
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await sleep(500);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      const callbacks = discord.fake.calls.filter((c) => c.path.includes('/callback'));
      const extra = {
        unknownInteraction10062: callbacks.filter((c) => c.status === 404).length,
        alreadyAcknowledged40060: callbacks.filter((c) => c.status === 400).length,
      };
      rows.push({
        row: 'R1+R2',
        title: 'Baseline and duplicates',
        platform: 'discord',
        injected: `50 asks (6 time out); taps with ${duplicates} duplicate copies as new interactions within 0–400 ms, 5 wrong-user taps`,
        figures: { ...report.figures, ...extra },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(extra).toEqual({ unknownInteraction10062: 0, alreadyAcknowledged40060: 0 });
      expect(report.figures.answered).toBe(44);
      expect(report.figures.timedOut).toBe(6);
    } finally {
      await agents.stop();
      await world.close();
      await discord.close();
    }
  });
});
