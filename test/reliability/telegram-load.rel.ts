import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { TelegramRig, type Posted } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import { eventually } from '../helpers/http.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length]!;

afterAll(() => writeSummary('telegram-load', rows));

/** Starts a world with one askgate child wired to a Telegram rig. */
async function setup(name: string, row: string) {
  const world = await World.create({ name, row });
  const tg = await TelegramRig.start(world.history);
  const node = world.node('A', tg.env());
  await node.start();
  const agents = new Agents(world.history, () => world.nodes);
  return { world, tg, node, agents, close: async () => (await agents.stop(), await world.close(), await tg.close()) };
}

describe('R1 baseline (Telegram, askgate serve + fake Bot API)', () => {
  it('120 asks, taps at ~25/s (options, skip, Other + own words, multi-select replies, wrong users), 20 timeouts: 0 lost, 0 doubled, acks < 1 s', async () => {
    const { world, tg, node, agents, close } = await setup('r1-telegram', 'R1');
    try {
      const api = node.api();
      const created = [];
      for (let i = 0; i < 120; i++)
        created.push(
          await tg.ask(api, { timeoutSeconds: i < 100 ? 40 : 4, restrict: i % 2 === 0, multi: i % 7 === 3 }),
        );
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await tg.allPosted(world.watch, ids);
      const stranger = tg.fake.addUser(499_999, 'Mallory', { username: 'mallory' });
      const followUps: Promise<void>[] = [];
      for (let i = 0; i < 100; i++) {
        const { askId, user } = created[i]!;
        const p = posted.get(askId)!;
        // A multi-select ask shows a draft's toggles (issue 17), not option buttons: it is answered by reply.
        const options = p.buttons.has('Staging');
        if (i % 10 === 0 && options) tg.tap(p, 'Staging', stranger, 'tap', { authorized: false });
        if (!options) tg.reply(p, pick(['1,3', '2', '1 2', '3,1'], i), user);
        else if (i % 10 === 1) tg.tap(p, 'Skip', user);
        else if (i % 10 === 5) followUps.push(otherThenWords(tg, p, user));
        else tg.tap(p, pick(['Staging', 'Production', 'Canary'], i), user);
        await sleep(40);
      }
      await Promise.all(followUps);
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      rows.push({
        row: 'R1',
        title: 'Baseline',
        platform: 'telegram',
        injected:
          '120 asks (100 × 40 s, 20 × 4 s timeouts), 100 answers at ~25/s: option taps, Skip, Other + own words, multi-select replies; 10 wrong-user taps',
        figures: { ...report.figures },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered + report.figures.skipped).toBe(100);
      expect(report.figures.timedOut).toBe(20);
      expect(report.figures.ackP99Ms!).toBeLessThan(1000);
      expect(report.figures.notifyP99Ms!).toBeLessThan(2000);
    } finally {
      await close();
    }
  });
});

describe('R2 duplicate storm (Telegram)', () => {
  it('60 asks, every tap repeated 2–20× within 0–500 ms (new callback_query ids, some with another option): 1 transition, 1 "recorded", the rest "already answered"', async () => {
    const { world, tg, node, agents, close } = await setup('r2-telegram', 'R2');
    try {
      const api = node.api();
      const created = [];
      for (let i = 0; i < 60; i++) created.push(await tg.ask(api, { timeoutSeconds: 40, restrict: i % 3 === 0 }));
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await tg.allPosted(world.watch, ids);
      const storms: Promise<void>[] = [];
      let copies = 0;
      for (let i = 0; i < created.length; i++) {
        const { askId, user } = created[i]!;
        const p = posted.get(askId)!;
        const n = 2 + ((i * 7) % 19);
        copies += n;
        storms.push(
          (async () => {
            for (let k = 0; k < n; k++) {
              const label =
                k > 0 && k % 5 === 0
                  ? pick(['Staging', 'Production', 'Canary', 'Skip'], i + k)
                  : pick(['Staging', 'Production', 'Canary'], i);
              tg.tap(p, label, user, k === 0 ? 'tap' : 'duplicate', { copy: k });
              await sleep(Math.floor(((i * 31 + k * 17) % 500) / n));
            }
          })(),
        );
        await sleep(100);
      }
      await Promise.all(storms);
      expect(await world.settle(ids, 30_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      // Every tap is answered with a toast; on a loaded host the last ones may land after the verdict.
      const acked = () => world.history.read().filter((e) => e.type === 'toast' && e.data?.via === 'ack');
      await eventually(async () => acked().length >= copies, 15_000).catch(() => undefined);
      const toasts = acked();
      const already = toasts.filter((e) => String(e.result).startsWith('This question was already')).length;
      rows.push({
        row: 'R2',
        title: 'Duplicate storm',
        platform: 'telegram',
        injected: `60 asks; each tap sent 2–20× (${copies} taps in all) within 0–500 ms, every 5th copy with another choice`,
        figures: { ...report.figures, toldAlreadyAnswered: already },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.recordedNotices).toBe(60);
      expect(already).toBe(copies - 60);
      expect(report.figures.publishes).toBe(60);
    } finally {
      await close();
    }
  });
});

describe('R3 answer/timeout boundary (Telegram)', () => {
  it('150 asks with a 3 s timeout, each tapped at deadline −100…+100 ms: exactly one outcome, "recorded" iff answered, "expired" iff timed out', async () => {
    const { world, tg, node, agents, close } = await setup('r3-telegram', 'R3');
    try {
      const api = node.api();
      const created = [];
      for (let i = 0; i < 150; i++) created.push(await tg.ask(api, { timeoutSeconds: 3 }));
      const ids = created.map((c) => c.askId);
      for (const id of ids) agents.wait(id);
      const posted = await tg.allPosted(world.watch, ids);
      const taps = created.map(({ askId, user, expiresAt }, i) => {
        const offset = -100 + ((i * 37) % 201);
        const at = Date.parse(expiresAt) + offset;
        return (async () => {
          await sleep(at - Date.now());
          const tapId = tg.tap(posted.get(askId)!, 'Production', user, 'tap', { offsetMs: offset });
          return { askId, offset, toast: await tg.toast(tapId, 4000) };
        })();
      });
      const outcomes = await Promise.all(taps);
      expect(await world.settle(ids, 20_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000, boundaryMarginMs: 1000 });
      const finals = await world.watch.getMany(ids);
      const mismatched = outcomes.filter(({ askId, toast }) => {
        const r = finals.get(askId)?.result;
        return (
          (toast === 'Answer recorded') !== (r?.status === 'answered') ||
          Boolean(toast?.startsWith('This question expired')) !== (r?.reason === 'timeout')
        );
      });
      const answeredOffsets = outcomes
        .filter((o) => finals.get(o.askId)?.result?.status === 'answered')
        .map((o) => o.offset);
      const timedOutOffsets = outcomes
        .filter((o) => finals.get(o.askId)?.result?.reason === 'timeout')
        .map((o) => o.offset);
      const extra = {
        latestAnsweredOffsetMs: Math.max(...answeredOffsets, -Infinity),
        earliestTimedOutOffsetMs: Math.min(...timedOutOffsets, Infinity),
        toastMismatches: mismatched.length,
      };
      rows.push({
        row: 'R3',
        title: 'Answer/timeout boundary',
        platform: 'telegram',
        injected: '150 asks, timeout 3 s, one tap each at deadline −100…+100 ms (1 ms steps)',
        figures: { ...report.figures, ...extra },
        violations: report.violations,
      });
      expect(report.violations).toEqual([]);
      expect(mismatched).toEqual([]);
      expect(report.figures.answered + report.figures.timedOut).toBe(150);
    } finally {
      await close();
    }
  });
});

/** Taps "Other…", waits for the force-reply prompt and answers it in the person's own words. */
async function otherThenWords(
  tg: TelegramRig,
  p: Posted,
  user: ReturnType<TelegramRig['fake']['addUser']>,
): Promise<void> {
  tg.tap(p, 'Other…', user, 'tap', { valid: true });
  const prompt = await eventually(
    async () => tg.fake.chatMessages(p.chat).find((m) => m.from.is_bot && m.reply_to === Number(p.messageId)),
    5000,
    20,
  );
  tg.reply(p, 'ship it to the blue cluster', user, String(prompt.message_id));
}
