import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-server.js';
import { Agents } from './harness/agents.js';
import { crashAt, crashPoints, crashOnce, within } from './harness/crash.js';
import { DiscordRig } from './harness/discord-rig.js';
import type { HistoryEvent } from './harness/history.js';
import type { Exchange } from './harness/interposer.js';
import type { AskgateNode } from './harness/node.js';
import { timeUntil } from './harness/person.js';
import { SlackRig, type SlackHttpHooks } from './harness/slack-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { ApiMessage, ApiUser } from '../fakes/discord-payloads.js';
import type { FakeMessage } from '../fakes/slack-api.js';

// R4 (kill -9 on the answer path) and R12 (kill -9 during delivery) on Slack and Discord, plus
// Slack Socket Mode envelope re-sends (matrix F21). The answer path is the shared core, but each
// platform reaches it differently and recovers differently after a crash:
// - Slack HTTP mode: Events API requests askgate did not answer with 2xx in 3 s are re-sent by
//   Slack with X-Slack-Retry-Num (the rig's compressed schedule). Interactivity requests are not
//   retried by Slack: the person sees an error and taps again (the scripted person).
// - Discord: a tap while askgate is down, or one it never acknowledged, fails on the platform
//   ("This interaction failed"): the person taps again after the restart.
// - Slack Socket Mode: an envelope not acked when its connection closes is re-sent on the next
//   connection with the same envelope_id and retry_attempt + 1 (the fake's redeliverUnacked), or
//   after a timeout on the live one (redeliverAfterMs).
// Both Slack rows also hang Redis under thread replies: a reply must stay unacknowledged (no
// HTTP 200, no envelope ack) until it is recorded, or Slack never sends it again.

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LABELS = ['Staging', 'Production', 'Canary'] as const;
const AOF = ['--appendonly', 'yes', '--appendfsync', 'everysec'];
const chunk = <T>(xs: readonly T[], n: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

afterAll(() => writeSummary('crash-slack-discord', rows));

/**
 * The scripted person for a batch: whoever still sees their question open after `patienceMs`
 * (an error, "This interaction failed", or no outcome at all) taps again, at most `rounds` times.
 * Returns the number of re-taps; throws when the batch is still open after the last round.
 */
async function untilAnswered(
  world: World,
  askIds: readonly string[],
  retap: (askId: string, round: number) => void,
  rounds = 5,
  patienceMs = 2500,
): Promise<number> {
  let retaps = 0;
  for (let round = 1; ; round++) {
    const settled = await timeUntil(
      async () => [...(await world.watch.getMany(askIds)).values()].every((r) => r !== null && r.status !== 'pending'),
      patienceMs,
      100,
    );
    if (settled >= 0) return retaps;
    if (round > rounds) throw new Error(`asks still pending after ${rounds} re-taps: ${askIds.join(', ')}`);
    const records = await world.watch.getMany(askIds);
    for (const id of askIds) {
      if (records.get(id)?.status !== 'pending') continue;
      retaps++;
      retap(id, round);
    }
  }
}

/**
 * Duplicate question messages no kill explains: a send whose message is not the one the record
 * holds must have had a `kill -9` land after it reached the platform and before the send that
 * was recorded (the process died before recording it). Returns the ask ids of the others.
 */
function unexplainedDuplicates(
  events: readonly HistoryEvent[],
  sends: readonly HistoryEvent[],
  recordedId: (askId: string) => string | undefined,
): string[] {
  const kills = events.filter((e) => e.type === 'kill').map((e) => e.wall);
  const recordedWall = (askId: string) =>
    sends.find((e) => e.askId === askId && String(e.data?.messageId) === recordedId(askId))?.wall ?? Infinity;
  return sends
    .filter((e) => String(e.data?.messageId) !== recordedId(e.askId!))
    .filter((e) => !kills.some((k) => k >= Number(e.data?.at) - 10 && k <= recordedWall(e.askId!)))
    .map((e) => e.askId!);
}

/** Recovery measures every crash row reports: restart times, how long a killed final edit took to be re-run, how long killed deliveries took. */
function recovery(
  events: readonly HistoryEvent[],
  node: AskgateNode,
  delivery: readonly string[],
  recordedSendAt: (askId: string) => number,
): Record<string, unknown> {
  const editKill = events.find((e) => e.type === 'kill' && e.data?.point === 'during-edit')?.wall ?? NaN;
  const reEdit = events.find((e) => e.type === 'edit' && e.result === 'not_modified' && e.wall > editKill)?.wall ?? NaN;
  const createdAt = new Map(events.filter((e) => e.type === 'create').map((e) => [e.askId!, e.wall]));
  return {
    restartMs: [...node.restartMs],
    stalledEditTakenOverMs: reEdit - editKill,
    worstDeliveryDelayMs: Math.max(...delivery.map((id) => recordedSendAt(id) - createdAt.get(id)!)),
  };
}

describe('R4 + R12 on Slack, HTTP mode: kill -9 on the answer path and during delivery (Events API retries, people re-tap)', () => {
  it('every crash point: no acknowledged answer lost, nothing applied twice, every timeout resolved, every delivery made', async () => {
    const world = await World.create({ name: 'crash-slack', row: 'R4', redisArgs: AOF, proxy: true });
    const slack = await SlackRig.start(world.history);
    // Slack posts to one fixed request URL: the restarted askgate listens on the same port.
    const port = await freePort();
    const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
    const node = world.node('A', { ...slack.env(), PORT: String(port) });
    const agents = new Agents(world.history, () => world.nodes);
    const { points, crash } = crashPoints(node);
    const work: Promise<unknown>[] = [];
    node.supervise = true;
    try {
      await node.start();
      const made: { askId: string; user: string }[] = [];
      let userSeq = 0;
      const create = async (n: number, timeoutSeconds: number) => {
        const out: { askId: string; chat: string; user: string }[] = [];
        for (let i = 0; i < n; i++) {
          const user = `U8${String(++userSeq).padStart(6, '0')}`;
          out.push({ ...(await slack.ask(node.api(), { timeoutSeconds, user, restrict: true })), user });
        }
        made.push(...out);
        for (const c of out) agents.wait(c.askId);
        return out;
      };
      const userOf = (askId: string) => made.find((m) => m.askId === askId)!.user;
      const answerable = await create(23, 120);
      const posted = await slack.allPosted(
        world.watch,
        answerable.map((a) => a.askId),
      );
      const tap = (
        askId: string,
        label: string,
        extra: Record<string, unknown> = {},
        hooks: SlackHttpHooks = {},
        messages: Map<string, FakeMessage> = posted,
      ) => work.push(slack.tapAt(eventsUrl, askId, messages.get(askId)!, label, userOf(askId), { extra, hooks }));
      const retap = (messages: Map<string, FakeMessage>) => (askId: string, round: number) =>
        tap(askId, 'Staging', { retry: round }, {}, messages);

      // R12: die after Slack stored the question (before askgate recorded it), then before the send.
      const delivery: string[] = [];
      const isQuestion = (ex: Exchange) =>
        typeof ex.params.blocks === 'string' && ex.params.blocks.includes('"actions"');
      for (const [point, when] of [
        ['delivery-after-send', 'after'],
        ['delivery-before-send', 'before'],
      ] as const) {
        let created: () => void = () => {};
        const gate = new Promise<void>((r) => (created = r));
        const trigger = crashAt(slack.interposer, node, {
          point,
          call: 'chat.postMessage',
          when,
          match: isQuestion,
          gate,
        });
        await crash(point, trigger, async () => {
          delivery.push(...(await create(3, 120)).map((c) => c.askId));
          created();
        });
      }

      // R5 alongside: four 4 s timeouts fall due while the answer-path kills below go on. Posted
      // first: a kill before their send would leave them unsent until after their deadline (they end
      // "not sent: the ask ended before delivery"), which is R12's case, not this one.
      const expiring = await create(4, 4);
      await slack.allPosted(
        world.watch,
        expiring.map((e) => e.askId),
      );

      // R4: three taps (or thread replies) in flight at each point; matchers see only the current batch.
      const [editBatch, ...tapBatches] = chunk(answerable.slice(0, 15), 3);
      const replyBatches = chunk(answerable.slice(15, 21), 3);
      const hangBatch = answerable.slice(21);
      const batchChats = new Set<string>();
      const inBatch = (ex: Exchange) => batchChats.has(String(ex.params.channel));
      const tapBatch = (batch: { askId: string; chat: string }[], hooks: SlackHttpHooks = {}) =>
        batch.forEach((a, i) => {
          batchChats.add(a.chat);
          tap(a.askId, LABELS[i % 3]!, {}, hooks);
        });
      const answered = async (batch: { askId: string }[]) => {
        await untilAnswered(
          world,
          batch.map((b) => b.askId),
          retap(posted),
        );
        batchChats.clear();
      };
      // During the final edit first: its stalled job is taken over ~15 s later, while the other points run.
      await crash(
        'during-edit',
        crashAt(slack.interposer, node, { point: 'during-edit', call: 'chat.update', when: 'after', match: inBatch }),
        () => tapBatch(editBatch!),
      );
      await answered(editBatch!);
      const received = crashOnce(node, 'tap-received-before-ack');
      await crash('tap-received-before-ack', received.done, () =>
        tapBatch(tapBatches[0]!, { onWritten: received.fire }),
      );
      await answered(tapBatches[0]!);
      const acked = crashOnce(node, 'after-ack');
      await crash('after-ack', acked.done, () =>
        tapBatch(tapBatches[1]!, { onAnswer: (a) => void (a.status === 200 && acked.fire()) }),
      );
      await answered(tapBatches[1]!);
      await crash(
        'after-commit-before-notice',
        crashAt(slack.interposer, node, {
          point: 'after-commit-before-notice',
          call: 'chat.postEphemeral',
          when: 'before',
          match: inBatch,
        }),
        () => tapBatch(tapBatches[2]!),
      );
      await answered(tapBatches[2]!);
      await crash(
        'after-notice-before-edit',
        crashAt(slack.interposer, node, {
          point: 'after-notice-before-edit',
          call: 'chat.postEphemeral',
          when: 'after',
          match: inBatch,
          delayMs: 0,
        }),
        () => tapBatch(tapBatches[3]!),
      );
      await answered(tapBatches[3]!);

      // Thread replies: Slack re-sends an event askgate did not answer; nobody replies twice.
      const replyLabel = new Map<string, string>();
      const replies: Promise<{ attempts: number }>[] = [];
      const replyBatch = (batch: { askId: string; chat: string }[], hooks: SlackHttpHooks = {}) =>
        batch.forEach((a, i) => {
          batchChats.add(a.chat);
          replyLabel.set(a.askId, LABELS[i % 3]!);
          replies.push(
            slack.replyAt(eventsUrl, a.askId, posted.get(a.askId)!, String((i % 3) + 1), userOf(a.askId), hooks),
          );
        });
      const replyReceived = crashOnce(node, 'reply-received-before-ack');
      await crash('reply-received-before-ack', replyReceived.done, () =>
        replyBatch(replyBatches[0]!, { onWritten: (attempt) => void (attempt === 0 && replyReceived.fire()) }),
      );
      batchChats.clear();
      await crash(
        'reply-after-commit-before-ack',
        crashAt(slack.interposer, node, {
          point: 'reply-after-commit-before-ack',
          call: 'chat.postEphemeral',
          when: 'before',
          match: inBatch,
        }),
        () => replyBatch(replyBatches[1]!),
      );
      const replyAttempts = (await Promise.all(replies)).map((r) => r.attempts);
      batchChats.clear();

      // Redis hangs (blackhole, 3.5 s) under two thread replies: a store command queued behind another
      // one fails only after ~3 s, so askgate must not tell Slack "200" before it knows the outcome.
      world.history.inject('fault', { data: { kind: 'redis-blackhole', ms: 3500 } });
      world.proxy!.set({ blackhole: true });
      await sleep(400);
      const hangStart = replies.length;
      replyBatch(hangBatch);
      await sleep(3100);
      world.proxy!.heal();
      world.history.inject('heal', { data: { kind: 'redis-blackhole' } });
      const hangAttempts = (await Promise.all(replies.slice(hangStart))).map((r) => r.attempts);
      batchChats.clear();

      // The deliveries killed above are made once their stalled jobs re-run; then those asks are answered too.
      const late = await slack.allPosted(world.watch, delivery, 75_000);
      for (const id of delivery) tap(id, 'Canary', {}, {}, late);
      await untilAnswered(world, delivery, retap(late));
      const settleMs = await world.settle(
        made.map((m) => m.askId),
        75_000,
      );
      expect(settleMs).toBeGreaterThanOrEqual(0);
      await Promise.all(work);
      await agents.stop();
      const report = await world.verdict(
        made.map((m) => m.askId),
        { graceMs: 5000 },
      );

      const events = world.history.read();
      const records = await world.watch.getMany(made.map((m) => m.askId));
      const sends = events.filter(
        (e) => e.type === 'platform' && e.data?.call === 'chat.postMessage' && e.data?.status === 200 && e.askId,
      );
      const recordedSendAt = (id: string) => sends.filter((e) => e.askId === id).at(-1)?.wall ?? NaN;
      const duplicateMessages = [...slack.sends.values()].reduce((a, b) => a + b, 0) - made.length;
      const retaps = events.filter((e) => e.type === 'tap' && e.data?.retry !== undefined).length;
      const retried = events.filter((e) => e.type === 'duplicate' && e.data?.kind === 'events-api-retry');
      const replyIds = new Set([...replyBatches.flat(), ...hangBatch].map((a) => a.askId));
      const replyNotices = events.filter(
        (e) => e.type === 'toast' && e.data?.via === 'ephemeral' && e.askId && replyIds.has(e.askId),
      );
      const extra = recovery(events, node, delivery, recordedSendAt);
      rows.push({
        row: 'R4+R12',
        title: 'Process crashes',
        platform: 'slack',
        injected: `${report.figures.kills} × kill -9 of askgate (HTTP mode, fixed request URL): ${Object.entries(points)
          .map(([p, n]) => `${p} ×${n}`)
          .join(
            ', ',
          )}; 15 tapped asks and 6 thread replies (3 per point), 6 asks in delivery, 4 × 4 s timeouts falling due during the kills; then Redis blackholed 3.5 s under 2 thread replies; Events API retries after 0.5/2.5/6 s, the person re-taps when left without an outcome`,
        figures: { ...report.figures, duplicateMessages, retaps, eventsApiRetries: retried.length },
        violations: report.violations,
        extra: { ...extra, replyAttempts: replyAttempts.join(' '), storeHangReplyAttempts: hangAttempts.join(' ') },
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(29);
      expect(report.figures.timedOut).toBe(expiring.length);
      expect(report.figures.kills).toBe(9);
      // Each thread reply was answered once, with what was typed, by who typed it: by Slack's retries alone.
      for (const id of replyIds)
        expect(records.get(id)?.result).toMatchObject({
          status: 'answered',
          answers: { env: [replyLabel.get(id)] },
          answeredBy: { userId: userOf(id) },
        });
      expect(replyAttempts.filter((n) => n > 1).length).toBeGreaterThanOrEqual(2);
      // Under the Redis hang no reply was answered 200 before its outcome was known: each needed Slack's retry.
      expect(hangAttempts.every((n) => n >= 2)).toBe(true);
      // A retried event whose first attempt committed is not answered "already answered" (the CAS saw it once).
      expect(replyNotices.filter((e) => String(e.result).includes('already'))).toEqual([]);
      // A kill between "Slack stored the message" and "askgate recorded it" makes a duplicate; nothing else does.
      expect([...slack.sends.entries()].filter(([id, n]) => n > 1 && !delivery.includes(id))).toEqual([]);
      expect(unexplainedDuplicates(events, sends, (id) => records.get(id)?.deliveries[0]?.message?.messageId)).toEqual(
        [],
      );
      expect(
        [...records.values()].filter(
          (r) =>
            !r?.deliveries[0]?.message ||
            !slack.fake.message(r.deliveries[0].message.chat, r.deliveries[0].message.messageId),
        ),
      ).toEqual([]);
    } finally {
      await agents.stop();
      await world.close();
      await slack.close();
    }
  });
});

describe('R4 + R12 on Discord: kill -9 on the answer path and during delivery (failed interactions re-tapped)', () => {
  it('every crash point, and taps while askgate is down: nothing lost, nothing applied twice, every timeout resolved', async () => {
    const world = await World.create({ name: 'crash-discord', row: 'R4', redisArgs: AOF });
    const discord = await DiscordRig.start(world.history);
    const chat = discord.fake.addTextChannel();
    const node = world.node('A', discord.env());
    const agents = new Agents(world.history, () => world.nodes);
    const { points, crash } = crashPoints(node);
    node.supervise = true;
    try {
      await node.start();
      const made: { askId: string; user: ApiUser }[] = [];
      const create = async (n: number, timeoutSeconds: number) => {
        const out: { askId: string; user: ApiUser }[] = [];
        for (let i = 0; i < n; i++) {
          const user = discord.newUser();
          out.push({ ...(await discord.ask(node.api(), { chat, timeoutSeconds, user, restrict: true })), user });
        }
        made.push(...out);
        for (const c of out) agents.wait(c.askId);
        return out;
      };
      const userOf = (askId: string) => made.find((m) => m.askId === askId)!.user;
      const answerable = await create(18, 120);
      const posted = await discord.allPosted(
        world.watch,
        answerable.map((a) => a.askId),
      );
      const retap = (messages: Map<string, ApiMessage>) => (askId: string, round: number) =>
        void discord.tap(askId, messages.get(askId)!, 'Staging', userOf(askId), 'tap', { retry: round });

      // R12 on Discord: die after the message was created (before askgate recorded it), then before the send.
      const delivery: string[] = [];
      const isQuestion = (ex: Exchange) => Array.isArray(ex.params.components) && ex.params.components.length > 0;
      for (const [point, when] of [
        ['delivery-after-send', 'after'],
        ['delivery-before-send', 'before'],
      ] as const) {
        let created: () => void = () => {};
        const gate = new Promise<void>((r) => (created = r));
        const trigger = crashAt(discord.interposer, node, {
          point,
          call: 'POST /channels/:id/messages',
          when,
          match: isQuestion,
          gate,
        });
        await crash(point, trigger, async () => {
          delivery.push(...(await create(3, 120)).map((c) => c.askId));
          created();
        });
      }
      // Four 4 s timeouts fall due during the kills below; posted first (as on Slack above).
      const expiring = await create(4, 4);
      await discord.allPosted(
        world.watch,
        expiring.map((e) => e.askId),
      );

      const [editBatch, ...batches] = chunk(answerable, 3);
      const tapIds = new Set<string>();
      const batchMessages = new Set<string>();
      const ours = (ex: Exchange) => tapIds.has(discord.interactionOf(ex) ?? '');
      const oursEdited = (ex: Exchange) => batchMessages.has(discord.editedMessageOf(ex) ?? '');
      const tapBatch = (batch: { askId: string }[]) =>
        batch.forEach((a, i) => {
          const message = posted.get(a.askId)!;
          batchMessages.add(message.id);
          tapIds.add(discord.tap(a.askId, message, LABELS[i % 3]!, userOf(a.askId)));
        });
      const answered = async (batch: { askId: string }[]) => {
        await untilAnswered(
          world,
          batch.map((b) => b.askId),
          retap(posted),
        );
        tapIds.clear();
        batchMessages.clear();
      };
      await crash(
        'during-edit',
        crashAt(discord.interposer, node, {
          point: 'during-edit',
          call: 'PATCH /channels/:id/messages/:id',
          when: 'after',
          match: oursEdited,
        }),
        () => tapBatch(editBatch!),
      );
      await answered(editBatch!);
      const answerPoints = [
        {
          point: 'tap-received-before-ack',
          call: 'POST /interactions/:id/:token/callback',
          when: 'before',
          match: ours,
        },
        {
          point: 'after-ack-before-commit',
          call: 'POST /interactions/:id/:token/callback',
          when: 'after',
          match: ours,
        },
        { point: 'after-commit-before-notice', call: 'POST /webhooks/:id/:token', when: 'before', match: ours },
        {
          point: 'after-notice-before-edit',
          call: 'POST /webhooks/:id/:token',
          when: 'after',
          match: ours,
          delayMs: 0,
        },
      ] as const;
      for (const [i, cp] of answerPoints.entries()) {
        await crash(cp.point, crashAt(discord.interposer, node, cp), () => tapBatch(batches[i]!));
        await answered(batches[i]!);
      }
      // Taps while askgate is down reach nobody (the gateway connection is gone): "This interaction failed".
      const downBatch = batches[4]!;
      await node.kill9('taps-while-down');
      tapBatch(downBatch);
      const tappedWhileDown = [...tapIds];
      points['taps-while-down'] = 1;
      await node.whenUp();
      await answered(downBatch);

      const late = await discord.allPosted(world.watch, delivery, 75_000);
      for (const id of delivery) discord.tap(id, late.get(id)!, 'Canary', userOf(id));
      await untilAnswered(world, delivery, retap(late));
      const settleMs = await world.settle(
        made.map((m) => m.askId),
        75_000,
      );
      expect(settleMs).toBeGreaterThanOrEqual(0);
      await sleep(300);
      await agents.stop();
      const report = await world.verdict(
        made.map((m) => m.askId),
        { graceMs: 5000 },
      );
      const events = world.history.read();
      const records = await world.watch.getMany(made.map((m) => m.askId));
      const sends = events.filter(
        (e) =>
          e.type === 'platform' &&
          e.data?.call === 'POST /channels/:id/messages' &&
          e.askId &&
          Number(e.data?.status) === 200,
      );
      const recordedSendAt = (id: string) => sends.filter((e) => e.askId === id).at(-1)?.wall ?? NaN;
      const callbacks = discord.fake.calls.filter((c) => c.path.includes('/callback'));
      const retaps = events.filter((e) => e.type === 'tap' && e.data?.retry !== undefined).length;
      const figures = {
        ...report.figures,
        duplicateMessages: [...discord.sends.values()].reduce((a, b) => a + b, 0) - made.length,
        retaps,
        unknownInteraction10062: callbacks.filter((c) => c.status === 404).length,
        alreadyAcknowledged40060: callbacks.filter((c) => c.status === 400).length,
      };
      rows.push({
        row: 'R4+R12',
        title: 'Process crashes',
        platform: 'discord',
        injected: `${report.figures.kills} × kill -9 of askgate: ${Object.entries(points)
          .map(([p, n]) => `${p} ×${n}`)
          .join(
            ', ',
          )}; 15 tapped asks (3 per point), ${tappedWhileDown.length} taps made while askgate was down, 6 asks in delivery, 4 × 4 s timeouts falling due during the kills; the person re-taps a failed interaction`,
        figures,
        violations: report.violations,
        extra: recovery(events, node, delivery, recordedSendAt),
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(24);
      expect(report.figures.timedOut).toBe(expiring.length);
      expect(report.figures.kills).toBe(8);
      // askgate never acked late or twice: every 10062 / 40060 would be its fault (a crash only leaves taps unacked).
      expect(figures.alreadyAcknowledged40060).toBe(0);
      expect(figures.unknownInteraction10062).toBe(0);
      // The taps made while askgate was down really failed on the platform (never acknowledged); their re-taps answered.
      expect(tappedWhileDown.filter((id) => discord.fake.interactions.get(id)?.ackedAt !== undefined)).toEqual([]);
      expect([...discord.sends.entries()].filter(([id, n]) => n > 1 && !delivery.includes(id))).toEqual([]);
      expect(unexplainedDuplicates(events, sends, (id) => records.get(id)?.deliveries[0]?.message?.messageId)).toEqual(
        [],
      );
      expect(
        [...records.values()].filter(
          (r) => !r?.deliveries[0]?.message || !discord.fake.messages.has(r.deliveries[0].message.messageId),
        ),
      ).toEqual([]);
    } finally {
      await agents.stop();
      await world.close();
      await discord.close();
    }
  });
});

describe('F21 + R4 on Slack Socket Mode: envelopes re-sent after a cut socket or a kill -9 are processed exactly once', () => {
  it('socket cut, ack lost in transit, kill after commit, kill at the ack, taps and replies while down, Redis unreachable: each answered once, by re-sends alone', async () => {
    const world = await World.create({ name: 'crash-slack-socket', row: 'F21', redisArgs: AOF, proxy: true });
    const slack = await SlackRig.start(world.history);
    slack.fake.redeliverUnacked = true;
    // Slack also re-sends an envelope left unacked on a live connection (a retry after its timeout):
    // an envelope re-sent on the new connection while the killed process's lease on it still runs is
    // refused as in progress (no ack), and only this later re-send gets it processed.
    slack.fake.redeliverAfterMs = 4000;
    const node = world.node('A', slack.socketEnv());
    const agents = new Agents(world.history, () => world.nodes);
    const cases: Record<string, { envelopes: string[]; at: number }> = {};
    node.supervise = true;
    try {
      await node.start();
      expect(slack.fake.socketCount).toBe(1);
      const made: { askId: string; chat: string; user: string }[] = [];
      for (let i = 0; i < 20; i++) {
        const user = `U9${String(i).padStart(6, '0')}`;
        made.push({ ...(await slack.ask(node.api(), { timeoutSeconds: 120, user, restrict: true })), user });
      }
      for (const m of made) agents.wait(m.askId);
      const posted = await slack.allPosted(
        world.watch,
        made.map((m) => m.askId),
      );
      const expected = new Map<string, string>();
      const acks: Promise<boolean>[] = [];
      const send = (a: { askId: string; user: string }, kind: 'tap' | 'reply', i: number) => {
        const label = LABELS[i % 3]!;
        expected.set(a.askId, label);
        const sent =
          kind === 'tap'
            ? slack.tapSocket(a.askId, posted.get(a.askId)!, label, a.user)
            : slack.replySocket(a.askId, posted.get(a.askId)!, String((i % 3) + 1), a.user);
        acks.push(sent.acked);
        return sent.envelopeId;
      };
      const sendBatch = (batch: typeof made, kinds: ('tap' | 'reply')[]) =>
        batch.map((a, i) => send(a, kinds[i % kinds.length]!, i));
      const answered = (batch: typeof made, ms = 20_000) =>
        timeUntil(
          async () =>
            [...(await world.watch.getMany(batch.map((b) => b.askId))).values()].every((r) => r?.status === 'answered'),
          ms,
          100,
        );
      /** Between cases: every envelope so far acked and askgate connected again, so each case starts from a live connection. */
      const connected = async () => {
        expect(await Promise.all(acks)).toEqual(acks.map(() => true));
        expect(await timeUntil(async () => slack.fake.socketCount === 1, 15_000, 20)).toBeGreaterThanOrEqual(0);
      };
      const [cut, lost, committed, atAck, down, single, failing] = [
        made.slice(0, 4),
        made.slice(4, 8),
        made.slice(8, 11),
        made.slice(11, 14),
        made.slice(14, 17),
        made.slice(17, 18),
        made.slice(18),
      ];

      // 1. The socket drops (askgate alive); two taps and two replies go out while no connection is open.
      world.history.inject('fault', { data: { kind: 'socket-cut' } });
      slack.fake.dropSockets();
      expect(await timeUntil(async () => slack.fake.socketCount === 0, 2000, 10)).toBeGreaterThanOrEqual(0);
      cases['socket-cut'] = { envelopes: sendBatch(cut, ['tap', 'reply']), at: Date.now() };
      expect(await answered(cut)).toBeGreaterThanOrEqual(0);
      await connected();
      world.history.inject('heal', { data: { kind: 'socket-reconnected' } });

      // 2. askgate's ack is lost in transit and the connection cut: the envelopes come back on the new one.
      let droppedAck = '';
      slack.fake.onAck = (id) => {
        if (!cases['ack-lost']?.envelopes.includes(id)) return undefined;
        slack.fake.onAck = null;
        droppedAck = id;
        world.history.inject('fault', { data: { kind: 'ack-lost', envelopeId: id } });
        return 'drop';
      };
      cases['ack-lost'] = { envelopes: [], at: Date.now() };
      cases['ack-lost'].envelopes.push(...sendBatch(lost, ['tap', 'reply']));
      expect(await answered(lost)).toBeGreaterThanOrEqual(0);
      await connected();

      // 3. kill -9 after the reply committed, before askgate acked the envelope (at its notice).
      const committedChats = new Set(committed.map((c) => c.chat));
      const killCommitted = crashAt(slack.interposer, node, {
        point: 'socket-after-commit-before-ack',
        call: 'chat.postEphemeral',
        when: 'before',
        match: (ex) => committedChats.has(String(ex.params.channel)),
      });
      cases['socket-after-commit-before-ack'] = { envelopes: sendBatch(committed, ['reply']), at: Date.now() };
      await within(killCommitted, 20_000, 'socket-after-commit-before-ack');
      await node.whenUp();
      expect(await answered(committed)).toBeGreaterThanOrEqual(0);
      await connected();

      // 4. kill -9 the instant Slack receives askgate's ack of a reply: whatever was acked must be recorded.
      const atAckKill = crashOnce(node, 'socket-at-ack');
      slack.fake.onAck = (id) => {
        if (!cases['socket-at-ack']?.envelopes.includes(id)) return undefined;
        slack.fake.onAck = null;
        atAckKill.fire();
        return undefined;
      };
      cases['socket-at-ack'] = { envelopes: [], at: Date.now() };
      cases['socket-at-ack'].envelopes.push(...sendBatch(atAck, ['reply']));
      await within(atAckKill.done, 20_000, 'socket-at-ack');
      await node.whenUp();
      expect(await answered(atAck)).toBeGreaterThanOrEqual(0);
      await connected();

      // 5. A tap killed at its notice (acked and committed), then taps and a reply sent while askgate is down.
      const singleChat = single[0]!.chat;
      const killTap = crashAt(slack.interposer, node, {
        point: 'socket-tap-after-commit',
        call: 'chat.postEphemeral',
        when: 'before',
        match: (ex) => ex.params.channel === singleChat,
      });
      cases['socket-tap-after-commit'] = { envelopes: sendBatch(single, ['tap']), at: Date.now() };
      await within(killTap, 20_000, 'socket-tap-after-commit');
      cases['while-down'] = { envelopes: sendBatch(down, ['tap', 'reply', 'tap']), at: Date.now() };
      await node.whenUp();
      expect(await answered([...single, ...down])).toBeGreaterThanOrEqual(0);
      await connected();

      // 6. askgate alive and connected, but Redis unreachable for 3.5 s (blackhole) while two replies
      //    arrive: their processing fails, so they must stay unacked; Slack re-sends them 4 s later.
      world.history.inject('fault', { data: { kind: 'redis-blackhole', ms: 3500 } });
      world.proxy!.set({ blackhole: true });
      await sleep(200);
      cases['store-unavailable'] = { envelopes: sendBatch(failing, ['reply']), at: Date.now() };
      await sleep(3300);
      world.proxy!.heal();
      world.history.inject('heal', { data: { kind: 'redis-blackhole' } });
      expect(await answered(failing)).toBeGreaterThanOrEqual(0);

      expect(await Promise.all(acks)).toEqual(acks.map(() => true));
      const ids = made.map((m) => m.askId);
      expect(await world.settle(ids, 40_000)).toBeGreaterThanOrEqual(0);
      await agents.stop();
      const report = await world.verdict(ids, { graceMs: 5000 });
      const records = await world.watch.getMany(ids);
      const resends = slack.fake.envelopeSends.filter((e) => e.retry_attempt > 0);
      const resent = (id: string) => resends.some((e) => e.envelope_id === id && e.retry_attempt === 1);
      const resentAfterMs = Object.fromEntries(
        Object.entries(cases).map(([name, c]) => [
          name,
          Math.max(0, ...resends.filter((e) => c.envelopes.includes(e.envelope_id)).map((e) => e.at - c.at)),
        ]),
      );
      const extra = {
        resentEnvelopes: resends.length,
        resentAfterMs: Object.entries(resentAfterMs)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
        restartMs: [...node.restartMs],
      };
      rows.push({
        row: 'F21+R4',
        title: 'Socket Mode re-sends',
        platform: 'slack',
        injected: `20 asks over Socket Mode, each answered by one tap or thread reply and never re-tapped: socket cut with 2 taps + 2 replies sent while no connection was open; ack lost in transit (connection cut) under 2 taps + 2 replies; kill -9 after the commit, before the ack (3 replies); kill -9 the instant Slack got the ack of a reply (3 replies in flight); kill -9 after a tap's commit (acked), then 2 taps + 1 reply sent while askgate was down; Redis blackholed 3.5 s under 2 replies (processing fails, Slack re-sends after 4 s on the live connection). Unacked envelopes re-sent on the next connection or after 4 s (same envelope_id, retry_attempt + 1)`,
        figures: { ...report.figures, resentEnvelopes: resends.length },
        violations: report.violations,
        extra,
      });
      expect(report.violations).toEqual([]);
      expect(report.figures.answered).toBe(20);
      // Every answer is what was tapped or typed, by who did it, and came from one envelope (no re-tap was made).
      for (const m of made)
        expect(records.get(m.askId)?.result).toMatchObject({
          status: 'answered',
          answers: { env: [expected.get(m.askId)] },
          answeredBy: { userId: m.user },
        });
      // The faults really caused re-sends: every envelope of a cut connection or sent while down came back once, same id.
      for (const name of ['socket-cut', 'while-down', 'store-unavailable'])
        expect(cases[name]!.envelopes.filter((id) => !resent(id))).toEqual([]);
      // (acks that reached Slack before the cut count: only the envelopes still unacked at the cut come back)
      expect(resent(droppedAck)).toBe(true);
      expect(cases['socket-after-commit-before-ack']!.envelopes.some(resent)).toBe(true);
      expect(
        resends.every(
          (e) =>
            e.retry_attempt >= 1 &&
            e.retry_attempt <= 3 &&
            slack.fake.envelopeSends.some((f) => f.envelope_id === e.envelope_id && f.retry_attempt === 0),
        ),
      ).toBe(true);
      // A re-sent reply whose first delivery committed is silent (retry_attempt reaches the listener as a retry).
      const replied = new Set(
        world.history
          .read()
          .filter((e) => e.type === 'reply')
          .map((e) => e.askId),
      );
      expect(
        world.history
          .read()
          .filter(
            (e) =>
              e.type === 'toast' &&
              e.data?.via === 'ephemeral' &&
              replied.has(e.askId) &&
              String(e.result).includes('already'),
          ),
      ).toEqual([]);
    } finally {
      await agents.stop();
      await world.close();
      await slack.close();
    }
  });
});
