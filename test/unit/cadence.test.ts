import { describe, expect, it } from 'vitest';
import { cadenceIssues, cadenceTimes, MAX_REMINDERS } from '../../src/core/cadence.js';
import { cadenceSteps, nextCadenceStep, parseStep, policyOf, unfiredSteps } from '../../src/core/policy.js';
import { stepCall } from '../../src/core/step-due.js';
import { createAsk, transition } from '../../src/core/lifecycle.js';
import { workFor } from '../../src/core/work.js';
import { terminalEffects } from '../../src/core/ask-ending.js';
import { WorkingHoursSchema } from '../../src/core/working-hours.js';
import { STEPS, type Effect } from '../../src/core/effects.js';
import { AskRequestSchema, type AskRecord, type Question } from '../../src/core/schemas.js';
import { askRecord } from '../helpers/records.js';

const q: Question[] = [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'Yes' }, { label: 'No' }] }];
const DAY = 86_400;
const H = 3600;
const at = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString();
const lisbon = WorkingHoursSchema.parse({ days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' });
const everyDay = WorkingHoursSchema.parse({ days: 'mon-sun', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' });
const lisbonChat = { channel: 'telegram', chat: '42', hours: lisbon };
const anytime = { channel: 'telegram', chat: '42' };

/** A pending ask created at `created`, waiting `days`, with `policy` and `targets`. */
function record(created: string, days: number, policy: AskRecord['policy'], targets: object[] = [anytime]) {
  const c = at(created);
  return askRecord(q, {
    createdAt: created,
    expiresAt: iso(c + days * DAY * 1000),
    timeoutSeconds: days * DAY,
    targets: targets as AskRecord['targets'],
    policy,
    deliveries: [
      { channel: 'telegram', chat: '42', status: 'sent', finalized: 'no', message: { chat: '42', messageId: '7' } },
    ],
  });
}
const schedules = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.type === 'schedule' && e.step !== 'timeout' ? [[e.step, iso(e.at)]] : []));

describe('cadenceTimes: each reminder a cadence after the one before, in working hours', () => {
  const rows: [string, (typeof lisbon)[], string, number, number, string[]][] = [
    [
      'no hours: plain multiples',
      [],
      '2030-01-07T10:00:00Z',
      DAY,
      3,
      ['2030-01-08T10:00:00.000Z', '2030-01-09T10:00:00.000Z', '2030-01-10T10:00:00.000Z'],
    ],
    // Monday 20:00: Tuesday 20:00 is closed, Wednesday 09:00 opens; then a day after each.
    [
      'evening: next opening, then a day after it',
      [lisbon],
      '2030-01-07T20:00:00Z',
      DAY,
      3,
      ['2030-01-09T09:00:00.000Z', '2030-01-10T09:00:00.000Z', '2030-01-11T09:00:00.000Z'],
    ],
    // Friday 09:00 + a day is Saturday: Monday 09:00 once, not one per weekend day.
    [
      'a weekend never piles reminders onto Monday',
      [lisbon],
      '2030-01-10T09:00:00Z',
      DAY,
      3,
      ['2030-01-11T09:00:00.000Z', '2030-01-14T09:00:00.000Z', '2030-01-15T09:00:00.000Z'],
    ],
    // Clocks go forward on Sunday 2030-03-31: Monday 09:00 WEST is 08:00 UTC, and the day after too.
    [
      'across the spring change',
      [lisbon],
      '2030-03-28T09:00:00Z',
      DAY,
      3,
      ['2030-03-29T09:00:00.000Z', '2030-04-01T08:00:00.000Z', '2030-04-02T08:00:00.000Z'],
    ],
    // Saturday 17:30 UTC is 17:30 WET; a day later it is 18:30 WEST (closed): Monday 09:00 WEST.
    [
      'the change pushes a late reminder past closing: next morning',
      [everyDay],
      '2030-03-29T17:30:00Z',
      DAY,
      2,
      ['2030-03-30T17:30:00.000Z', '2030-04-01T08:00:00.000Z'],
    ],
    // Clocks go back on Sunday 2030-10-27: 09:00 WET is 09:00 UTC again.
    [
      'across the autumn change',
      [lisbon],
      '2030-10-24T08:00:00Z',
      DAY,
      3,
      ['2030-10-25T08:00:00.000Z', '2030-10-28T09:00:00.000Z', '2030-10-29T09:00:00.000Z'],
    ],
    [
      'hourly within a day, then the next morning',
      [lisbon],
      '2030-01-07T16:00:00Z',
      4 * H,
      2,
      ['2030-01-08T09:00:00.000Z', '2030-01-08T13:00:00.000Z'],
    ],
  ];
  it.each(rows)('%s', (_name, hours, base, every, count, expected) => {
    const targets = hours.map((h) => ({ hours: h }));
    expect(cadenceTimes(targets, at(base), every, count).map(iso)).toEqual(expected);
  });
  it('a target without hours keeps the cadence exact', () =>
    expect(cadenceTimes([{ hours: lisbon }, {}], at('2030-01-07T20:00:00Z'), DAY, 1).map(iso)).toEqual([
      '2030-01-08T20:00:00.000Z',
    ]));
});

describe('cadenceIssues: the least cadence, before the deadline, at most 20 reminders', () => {
  const now = at('2030-01-07T10:00:00Z');
  const issues = (req: object, days: number, targets: object[] = [], min = H) =>
    cadenceIssues(req, targets, now, now + days * DAY * 1000, min);
  const rows: [string, object, number, object[], string | null][] = [
    ['absent: nothing to check', {}, 7, [], null],
    ['daily over a week: 6 reminders', { remindEverySeconds: DAY }, 7, [], null],
    ['exactly 20 fit', { remindEverySeconds: 8 * H }, 7, [], null],
    ['under the minimum', { remindEverySeconds: 1800 }, 7, [], 'must be at least 3600 s'],
    ['not below the timeout', { remindEverySeconds: 7 * DAY }, 7, [], 'must be below the timeout (604800 s)'],
    [
      'hourly over a week: 167, with the least that fits',
      { remindEverySeconds: H },
      7,
      [],
      'would send 167 reminders every 3600 s before the deadline: an ask sends at most 20 in all; give at least 28800 s or an earlier deadline',
    ],
    [
      'the given reminders count toward the 20',
      { remindEverySeconds: 8 * H, remindAfterSeconds: [60, 120, 180] },
      7,
      [],
      'would send 20 reminders every 28800 s before the deadline after the 3 of remindAfterSeconds: an ask sends at most 20 in all; give at least 33590 s or an earlier deadline',
    ],
    [
      'after the last given reminder: only the time left counts',
      { remindEverySeconds: DAY, remindAfterSeconds: [6 * DAY + 60] },
      7,
      [],
      'must be below the 86340 s left between the last remindAfterSeconds and the deadline',
    ],
    // Working hours thin the cadence out: 9 h a weekday over 30 days hold well over 20 hourly reminders.
    [
      'with hours: "more than"',
      { remindEverySeconds: H },
      30,
      [{ hours: lisbon }],
      'would send more than 20 reminders every 3600 s before the deadline: an ask sends at most 20 in all; give at least 123429 s or an earlier deadline',
    ],
    ['with hours that thin it under the cap', { remindEverySeconds: 6 * H }, 7, [{ hours: lisbon }], null],
  ];
  it.each(rows)('%s', (_name, req, days, targets, message) => {
    const found = issues(req, days, targets);
    expect(found).toEqual(message === null ? [] : [{ path: ['remindEverySeconds'], message }]);
  });
  it('a lower configured minimum (tests, operators) is honoured', () =>
    expect(issues({ remindEverySeconds: 200 }, 1 / 24, [], 2)).toEqual([]));
});

describe('cadence steps: numbered after the given reminders, up to remind-20', () => {
  it('alone: remind-1..20, a day apart', () => {
    const steps = cadenceSteps(record('2030-01-07T10:00:00Z', 30, { remindEverySeconds: DAY }));
    expect(steps.map((s) => s.step)).toEqual(Array.from({ length: 20 }, (_, i) => `remind-${i + 1}`));
    expect(steps.every((s) => STEPS.includes(s.step))).toBe(true);
    expect(iso(steps[0]!.at)).toBe('2030-01-08T10:00:00.000Z');
  });
  it('after remindAfterSeconds: the first a cadence after the last given one', () => {
    const r = record('2030-01-07T10:00:00Z', 30, { remindAfterSeconds: [600, H], remindEverySeconds: DAY });
    const steps = cadenceSteps(r);
    expect(steps.map((s) => s.n)).toEqual(Array.from({ length: 18 }, (_, i) => i + 3));
    expect(iso(steps[0]!.at)).toBe('2030-01-08T11:00:00.000Z');
    // One cadence job at a time, besides the given reminders'.
    expect(unfiredSteps(r).map((s) => s.step)).toEqual(['remind-1', 'remind-2', 'remind-3']);
  });
  it.each([
    ['remind-1', { kind: 'remind', n: 1 }],
    ['remind-20', { kind: 'remind', n: 20 }],
    ['escalate-3', { kind: 'escalate', n: 3 }],
    ['remind-21', null],
    ['escalate-4', null],
    ['timeout', null],
  ])('parseStep(%s)', (step, expected) => expect(parseStep(step as never)).toEqual(expected));
});

describe('cadence reminders fire once, in order, in hours, never past the deadline', () => {
  const created = '2030-01-07T10:00:00Z';
  const daily = () => record(created, 7, { remindEverySeconds: DAY }, [lisbonChat]);

  it('creation schedules the timeout and only the first cadence reminder', () => {
    const request = AskRequestSchema.parse({ runId: 'r', questions: q, to: lisbonChat, remindEverySeconds: DAY });
    expect(policyOf(request)).toEqual({ remindEverySeconds: DAY });
    const { effects } = createAsk(request, 'AbCdEfGhIjKl', 1, 7 * DAY, at(created));
    expect(schedules(effects)).toEqual([['remind-1', '2030-01-08T10:00:00.000Z']]);
  });

  it('a reminder posts once and schedules the next in the same commit; a duplicate changes nothing', () => {
    const r = daily();
    const fired = transition(r, { type: 'remind', n: 1 }, at('2030-01-08T10:00:00Z'));
    expect(fired.kind).toBe('changed');
    if (fired.kind !== 'changed') return;
    expect(fired.record.reminded).toBe(1);
    expect(fired.effects).toEqual([
      { type: 'enqueue', job: { kind: 'remind', index: 0, n: 1 } },
      { type: 'schedule', step: 'remind-2', at: at('2030-01-09T10:00:00Z') },
    ]);
    expect(transition(fired.record, { type: 'remind', n: 1 }, at('2030-01-08T10:00:05Z'))).toEqual({
      kind: 'unchanged',
      outcome: { code: 'updated' },
    });
  });

  it('a job early or out of hours waits for the opening', () => {
    // Friday 10:00 + a day: Saturday, so reminder 5 waits for Monday 09:00.
    const r = { ...daily(), reminded: 4 };
    expect(iso(nextCadenceStep(r)!.at)).toBe('2030-01-14T09:00:00.000Z');
    expect(stepCall(r, 'remind-5', at('2030-01-12T10:00:00Z'))).toEqual({
      kind: 'wait',
      notBefore: at('2030-01-14T09:00:00Z'),
    });
  });

  it('the last reminder before the deadline schedules nothing, and none fires at or after it', () => {
    // Seven days from Monday 10:00: reminders Tue, Wed, Thu, Fri, then Monday 09:00 (before 10:00).
    const r = { ...daily(), reminded: 4 };
    const fired = transition(r, { type: 'remind', n: 5 }, at('2030-01-14T09:00:00Z'));
    expect(fired.kind === 'changed' && schedules(fired.effects)).toEqual([]);
    const afterDeadline = { ...r, reminded: 5 };
    expect(transition(afterDeadline, { type: 'remind', n: 6 }, at('2030-01-15T09:00:00Z')).kind).toBe('unchanged');
  });

  it('late after an outage: one post counted as the latest due, the next in the future', () => {
    const r = record(created, 30, { remindEverySeconds: DAY });
    const fired = transition(r, { type: 'remind', n: 1 }, at('2030-01-11T12:00:00Z'));
    if (fired.kind !== 'changed') throw new Error('not fired');
    expect(fired.record.reminded).toBe(4);
    expect(fired.effects).toEqual([
      { type: 'enqueue', job: { kind: 'remind', index: 0, n: 4 } },
      { type: 'schedule', step: 'remind-5', at: at('2030-01-12T10:00:00Z') },
    ]);
  });

  it('the 20th is the last, whatever the deadline', () => {
    const r = { ...record(created, 30, { remindEverySeconds: DAY }), reminded: 19 };
    const fired = transition(r, { type: 'remind', n: 20 }, at('2030-01-27T10:00:00Z'));
    expect(fired.kind === 'changed' && fired.record.reminded).toBe(20);
    expect(fired.kind === 'changed' && schedules(fired.effects)).toEqual([]);
    expect(nextCadenceStep({ ...r, reminded: 20 })).toBeNull();
  });

  it('the reconciler re-schedules only the next one, and runs a lost one', () => {
    const r = { ...daily(), reminded: 1 };
    const settings = { graceMs: 30_000, sweepDelayMs: 10_000 };
    expect(schedules(workFor(r, at('2030-01-08T12:00:00Z'), settings))).toEqual([
      ['remind-2', '2030-01-09T10:00:00.000Z'],
    ]);
    const lost = workFor(r, at('2030-01-09T11:00:00Z'), settings);
    expect(lost[0]).toEqual({ type: 'due', step: 'remind-2' });
  });

  it('an ending drops the one cadence job there is', () => {
    const r = { ...daily(), reminded: 2 };
    const ended = transition(r, { type: 'cancel' }, at('2030-01-09T12:00:00Z'));
    const drops = ended.kind === 'changed' ? ended.effects.filter((e) => e.type === 'unschedule') : [];
    expect(drops).toEqual([
      { type: 'unschedule', step: 'timeout' },
      { type: 'unschedule', step: 'remind-3' },
    ]);
    expect(terminalEffects).toBeTypeOf('function');
  });
});

describe('extend re-plans the cadence against the new deadline', () => {
  const created = '2030-01-07T10:00:00Z';
  const by = { channel: 'api', userId: 'ops' };
  // Three days: reminders Tuesday and Wednesday; Thursday 10:00 is the deadline itself.
  const short = () => ({ ...record(created, 3, { remindEverySeconds: DAY }), reminded: 2 });

  const rows: [string, () => AskRecord, string, string, Effect | null][] = [
    [
      'later: the stopped cadence resumes with its next reminder',
      short,
      '2030-01-09T12:00:00Z',
      '2030-01-12T10:00:00Z',
      { type: 'schedule', step: 'remind-3', at: at('2030-01-10T10:00:00Z') },
    ],
    [
      'earlier: the next reminder past it is dropped',
      () => ({ ...record(created, 7, { remindEverySeconds: DAY }), reminded: 1 }),
      '2030-01-08T12:00:00Z',
      '2030-01-09T09:00:00Z',
      { type: 'unschedule', step: 'remind-2' },
    ],
    [
      'after the 20th: nothing more',
      () => ({ ...short(), reminded: 20 }),
      '2030-01-09T12:00:00Z',
      '2030-02-01T00:00:00Z',
      null,
    ],
  ];
  it.each(rows)('%s', (_name, make, now, to, expected) => {
    const r = make();
    const result = transition(r, { type: 'extend', at: at(to), by }, at(now));
    if (result.kind !== 'changed') throw new Error('not extended');
    const cadence = result.effects.filter(
      (e) => (e.type === 'schedule' || e.type === 'unschedule') && e.step.startsWith('remind'),
    );
    expect(cadence).toEqual(expected ? [expected] : []);
    // Reminders already sent stay counted.
    expect(result.record.reminded).toBe(r.reminded);
  });

  it('after an extension the resumed reminder fires and the cadence goes on to the new deadline', () => {
    const extended = transition(
      short(),
      { type: 'extend', at: at('2030-01-12T10:00:00Z'), by },
      at('2030-01-09T12:00:00Z'),
    );
    if (extended.kind !== 'changed') throw new Error('not extended');
    const fired = transition(extended.record, { type: 'remind', n: 3 }, at('2030-01-10T10:00:00Z'));
    expect(fired.kind === 'changed' && schedules(fired.effects)).toEqual([['remind-4', '2030-01-11T10:00:00.000Z']]);
  });
  it('the cap is one constant', () => expect(MAX_REMINDERS).toBe(20));
});

describe('the console’s view of a cadence', () => {
  it('counts the reminders planned before the deadline and shows the next one', async () => {
    const { policyOf: consolePolicy } = await import('../../src/console/view-policy.js');
    const r = { ...record('2030-01-07T20:00:00Z', 7, { remindEverySeconds: DAY }, [lisbonChat]), reminded: 1 };
    expect(consolePolicy(r)?.reminders).toEqual({ sent: 1, total: 4, next: '2030-01-10T09:00:00.000Z' });
    expect(consolePolicy({ ...r, reminded: 4 })?.reminders).toEqual({ sent: 4, total: 4 });
  });
});

describe('MCP tools take the cadence and a target’s hours (both eras share these shapes)', () => {
  it('ask_user and request_approval pass remindEverySeconds and hours on to the ask, which the schema accepts', async () => {
    const { z } = await import('zod');
    const { AskUserInputShape, toAskInput } = await import('../../src/mcp/tool.js');
    const { RequestApprovalInputShape, toApprovalInput } = await import('../../src/mcp/approval-tool.js');
    const to = { channel: 'telegram', chat: '42', hours: { ...lisbon } };
    const ask = toAskInput(
      z.object(AskUserInputShape).parse({
        questions: [{ question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }],
        to,
        remindEverySeconds: DAY,
      }),
      { runId: 'mcp-run' },
    );
    expect(ask).toMatchObject({ remindEverySeconds: DAY, to });
    expect(AskRequestSchema.safeParse(ask).success).toBe(true);
    const approval = toApprovalInput(
      z.object(RequestApprovalInputShape).parse({ action: 'deploy', arguments: {}, to, remindEverySeconds: DAY }),
      { runId: 'mcp-run' },
    );
    expect(approval).toMatchObject({ remindEverySeconds: DAY, to });
  });
});
