import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { TelegramRig } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { FakeUser } from '../fakes/telegram-api.js';
import {
  historyCount,
  policyAsk,
  questionMessages,
  reminderMessages,
  until,
  type PolicyRecord,
} from './policies-kit.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(() => writeSummary('policies-redis-restart', rows));

/** Seconds after creation: the reminder, the escalation step, the timeout; Redis is down from 3.5 s to 9 s. */
const REMIND_S = 5;
const ESCALATE_S = 7;
const TIMEOUT_S = 20;
const DOWN_FROM_MS = 3_500;
const UP_AT_MS = 9_000;
const ACROSS = 16;
const ANSWERED_FIRST = 6;

interface Made {
  askId: string;
  first: FakeUser;
  second: FakeUser;
  createdAt: number;
  answeredFirst: boolean;
}

describe('P4: Redis restart (kill -9, AOF always) while reminders and escalations fall due (Telegram polling)', () => {
  it('every step that fell due while Redis was down fires once after the restart; none for asks that ended first; no reminder after an ask ended', async () => {
    const world = await World.create({
      name: 'policies-redis-restart',
      row: 'P4',
      redisArgs: ['--appendonly', 'yes', '--appendfsync', 'always'],
    });
    const tg = await TelegramRig.start(world.history);
    const node = world.node('A', tg.env());
    const agents = new Agents(world.history, () => world.nodes);
    let nextUser = 950_000;
    const person = () => {
      const id = ++nextUser;
      return tg.fake.addUser(id, `Person${id}`, { username: `p${id}` });
    };
    const down = { at: 0, upAt: 0 };
    try {
      await node.start();
      const made: Made[] = [];
      for (let i = 0; i < ACROSS + ANSWERED_FIRST; i++) {
        const first = person();
        const second = person();
        const { askId, createdAt } = await policyAsk(
          () => node.api(),
          world.history,
          {
            runId: `p4-${i}`,
            timeoutSeconds: TIMEOUT_S,
            remindAfterSeconds: [REMIND_S],
            to: { channel: 'telegram', chat: String(first.id), users: [String(first.id)] },
            escalate: [
              {
                afterSeconds: ESCALATE_S,
                to: { channel: 'telegram', chat: String(second.id), users: [String(second.id)] },
              },
            ],
          },
          { platform: 'telegram', users: [String(first.id), String(second.id)] },
        );
        made.push({ askId, first, second, createdAt, answeredFirst: i >= ACROSS });
        agents.wait(askId);
      }
      const ids = made.map((m) => m.askId);
      const posted = await tg.allPosted(world.watch, ids);
      for (const m of made.filter((x) => x.answeredFirst)) tg.tap(posted.get(m.askId)!, 'Staging', m.first);
      await until(
        async () => {
          const records = await world.watch.getMany(made.filter((m) => m.answeredFirst).map((m) => m.askId));
          return [...records.values()].every((r) => r?.status === 'answered');
        },
        10_000,
        'the early answers recorded',
      );

      // Redis goes down before the first reminder is due and comes back after the last escalation was due.
      const t0 = Math.min(...made.map((m) => m.createdAt));
      const last = Math.max(...made.map((m) => m.createdAt));
      expect(last + ESCALATE_S * 1000).toBeLessThan(t0 + UP_AT_MS);
      await sleep(Math.max(0, t0 + DOWN_FROM_MS - Date.now()));
      expect(Date.now()).toBeLessThan(t0 + REMIND_S * 1000);
      down.at = Date.now();
      world.history.inject('fault', { data: { what: 'redis kill9', pid: world.redis.pid() } });
      await world.redis.kill9();
      await sleep(Math.max(0, t0 + UP_AT_MS - Date.now()));
      await world.redis.restart();
      down.upAt = Date.now();
      world.history.inject('heal', { data: { what: 'redis restarted', outageMs: down.upAt - down.at } });

      // After the restart every step of the open asks fires (once), well before their deadline.
      const open = made.filter((m) => !m.answeredFirst);
      const firedAt = new Map<string, number>();
      await until(
        async () => {
          const records = await world.watch.getMany(open.map((m) => m.askId));
          for (const [id, r] of records) {
            const rec = r as PolicyRecord | null;
            if (!firedAt.has(id) && rec?.reminded === 1 && rec.escalated === 1) firedAt.set(id, Date.now());
          }
          return firedAt.size === open.length;
        },
        TIMEOUT_S * 1000,
        'every reminder and escalation of the open asks fired',
        100,
      );
      expect(await world.settle(ids, 45_000)).toBeGreaterThanOrEqual(0);
      await sleep(500);
      await agents.stop();

      const report = await world.verdict(ids, { graceMs: UP_AT_MS, exactlyOnePublish: false });
      const records = (await world.watch.getMany(ids)) as Map<string, PolicyRecord | null>;
      const problems: string[] = [];
      let fired = 0;
      let twice = 0;
      let lost = 0;
      let ofEnded = 0;
      let afterEnd = 0;
      const stepLateMs: number[] = [];
      for (const m of made) {
        const r = records.get(m.askId)!;
        const reminded = historyCount(r, 'reminded');
        const escalated = historyCount(r, 'escalated');
        const question = r?.deliveries[0]?.message?.messageId;
        const reminders = reminderMessages(tg.fake, String(m.first.id)).filter((x) => String(x.replyTo) === question);
        const escalations = questionMessages(tg.fake, String(m.second.id));
        const endedAt = Date.parse(r?.result?.at ?? '');
        if (m.answeredFirst) {
          if (reminded + escalated + reminders.length + escalations > 0) {
            ofEnded++;
            problems.push(`${m.askId} ended first yet got ${reminded} reminders, ${escalated} escalations`);
          }
          continue;
        }
        if (reminded > 1 || escalated > 1 || reminders.length > 1 || escalations > 1) twice++;
        if (reminded === 0 || escalated === 0 || reminders.length === 0 || escalations === 0) lost++;
        if (reminded === 1 && escalated === 1 && reminders.length === 1 && escalations === 1) fired++;
        else
          problems.push(
            `${m.askId}: ${reminded} reminded / ${escalated} escalated entries, ${reminders.length} reminders and ${escalations} escalated questions shown`,
          );
        for (const h of r?.history ?? []) {
          if (h.type === 'reminded' || h.type === 'escalated') {
            stepLateMs.push(Date.parse(h.at) - down.upAt);
            if (Date.parse(h.at) >= endedAt) afterEnd++;
          }
        }
        if (r?.result?.status !== 'no_answer' || r.result.reason !== 'timeout')
          problems.push(`${m.askId} should have timed out: ${JSON.stringify(r?.result)}`);
      }
      rows.push({
        row: 'P4',
        title: 'Redis restart while policy steps fall due',
        platform: 'telegram',
        injected: `${made.length} asks (a reminder at ${REMIND_S} s, an escalation at ${ESCALATE_S} s, timeout ${TIMEOUT_S} s; ${ANSWERED_FIRST} answered first); Redis kill -9 (AOF always) ${DOWN_FROM_MS / 1000} s after the first creation, restarted on the same port and dir ${(down.upAt - down.at) / 1000} s later, after every step was due`,
        figures: {
          ...report.figures,
          stepsDue: open.length * 2,
          asksWithBothStepsOnce: fired,
          stepsLost: lost,
          stepsFiredTwice: twice,
          stepsOfEndedAsks: ofEnded,
          stepsAfterEnd: afterEnd,
        },
        violations: [...report.violations, ...problems],
        extra: {
          outageMs: down.upAt - down.at,
          stepsFiredWithinMsOfRestart: Math.max(...stepLateMs),
        },
      });
      expect(problems).toEqual([]);
      expect(report.violations).toEqual([]);
      expect(fired).toBe(open.length);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
    }
  });
});
