import { describe, expect, it } from 'vitest';
import { WorkingHoursSchema, nextOpening, weekdaysOf } from '../../src/core/working-hours.js';
import { policySteps } from '../../src/core/policy.js';
import { stepCall } from '../../src/core/step-due.js';
import { transition } from '../../src/core/lifecycle.js';
import { AskRequestSchema, type AskRecord, type Question } from '../../src/core/schemas.js';
import { askRecord } from '../helpers/records.js';

const q: Question[] = [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'Yes' }, { label: 'No' }] }];

const lisbon = WorkingHoursSchema.parse({ days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' });
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('weekdaysOf', () => {
  it.each([
    ['mon-fri', [1, 2, 3, 4, 5]],
    ['mon,wed,fri', [1, 3, 5]],
    ['sun-thu', [0, 1, 2, 3, 4]],
    ['fri-mon', [0, 1, 5, 6]],
    ['sat', [6]],
    ['mon-tue,thu-fri', [1, 2, 4, 5]],
  ])('%s', (days, expected) => expect([...weekdaysOf(days)].sort()).toEqual(expected));
});

describe('WorkingHoursSchema', () => {
  const issues = (h: object) =>
    (WorkingHoursSchema.safeParse(h).error?.issues ?? []).map((i) => ({ path: i.path, message: i.message }));
  const good = { days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' };
  it('takes hours and keeps the zone canonical', () => {
    expect(WorkingHoursSchema.parse({ ...good, timeZone: 'europe/lisbon' }).timeZone).toBe('Europe/Lisbon');
  });
  it.each([
    [{ days: 'weekdays' }, 'days'],
    [{ days: 'mon-' }, 'days'],
    [{ from: '9:00' }, 'from'],
    [{ to: '24:00' }, 'to'],
    [{ from: '18:00', to: '09:00' }, 'to'],
    [{ timeZone: 'Mars/Olympus' }, 'timeZone'],
  ])('refuses %j naming %s', (change, field) => {
    expect(issues({ ...good, ...change }).map((i) => i.path[0])).toEqual([field]);
  });
  it('refuses unknown fields', () =>
    expect(WorkingHoursSchema.safeParse({ ...good, lunch: '12:00' }).success).toBe(false));
});

describe('nextOpening: when a step due at a moment may run', () => {
  const rows: [string, typeof lisbon, string, string][] = [
    ['inside the window: at once', lisbon, '2030-01-08T10:00:00Z', '2030-01-08T10:00:00.000Z'],
    ['at the opening exactly', lisbon, '2030-01-08T09:00:00Z', '2030-01-08T09:00:00.000Z'],
    ['before the opening: that morning', lisbon, '2030-01-08T07:30:00Z', '2030-01-08T09:00:00.000Z'],
    ['at the closing (exclusive): the next morning', lisbon, '2030-01-08T18:00:00Z', '2030-01-09T09:00:00.000Z'],
    ['Friday evening: Monday morning', lisbon, '2030-01-11T19:00:00Z', '2030-01-14T09:00:00.000Z'],
    ['Saturday: Monday morning', lisbon, '2030-01-12T12:00:00Z', '2030-01-14T09:00:00.000Z'],
    // Lisbon summer time (UTC+1): 09:00 local is 08:00 UTC.
    ['summer: the zone’s own offset', lisbon, '2030-07-02T07:30:00Z', '2030-07-02T08:00:00.000Z'],
    // Clocks go forward on Sunday 2030-03-31: Friday 18:00 WET, Monday 09:00 WEST.
    ['across the spring change: Monday 09:00 summer time', lisbon, '2030-03-29T18:30:00Z', '2030-04-01T08:00:00.000Z'],
    // Clocks go back on Sunday 2030-10-27: Monday 09:00 WET is 09:00 UTC.
    ['across the autumn change: Monday 09:00 winter time', lisbon, '2030-10-25T17:30:00Z', '2030-10-28T09:00:00.000Z'],
    [
      'a zone ahead of UTC: Tokyo Monday morning is Sunday in UTC',
      { ...lisbon, timeZone: 'Asia/Tokyo' },
      '2030-01-12T12:00:00Z',
      '2030-01-14T00:00:00.000Z',
    ],
    [
      'a week of Sunday–Thursday: Friday waits for Sunday',
      { ...lisbon, days: 'sun-thu', timeZone: 'Asia/Dubai' },
      '2030-01-11T06:00:00Z',
      '2030-01-13T05:00:00.000Z',
    ],
    [
      'one day a week: up to a week later',
      { ...lisbon, days: 'wed', timeZone: 'UTC' },
      '2030-01-09T18:00:00Z',
      '2030-01-16T09:00:00.000Z',
    ],
    // New York skips 02:00–03:00 on Sunday 2030-03-10: a 02:30 opening is 03:00 EDT (07:00 UTC).
    [
      'an opening in the spring gap: the first moment after it',
      { days: 'sun', from: '02:30', to: '04:00', timeZone: 'America/New_York' },
      '2030-03-10T05:00:00Z',
      '2030-03-10T07:00:00.000Z',
    ],
    // New York shows 01:00–02:00 twice on Sunday 2030-11-03: a 01:30 opening is the first (EDT, 05:30 UTC).
    [
      'an opening in the autumn fold: the earlier one',
      { days: 'sun', from: '01:30', to: '04:00', timeZone: 'America/New_York' },
      '2030-11-03T04:00:00Z',
      '2030-11-03T05:30:00.000Z',
    ],
  ];
  it.each(rows)('%s', (_name, hours, from, expected) => expect(iso(nextOpening(hours, at(from)))).toBe(expected));
});

describe('policy steps wait for their people’s working hours', () => {
  // Saturday 2030-01-12 12:00 UTC; Lisbon works mon-fri 09:00–18:00 (UTC+0 in winter).
  const saturday = Date.parse('2030-01-12T12:00:00Z');
  const hours = { days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' };
  const monday = '2030-01-14T09:00:00.000Z';
  const record = (targets: object[], policy: object) =>
    askRecord(q, {
      createdAt: iso(saturday),
      expiresAt: iso(saturday + 7 * 86_400_000),
      timeoutSeconds: 7 * 86_400,
      targets: targets as AskRecord['targets'],
      policy: policy as AskRecord['policy'],
    });
  const lisbonChat = { channel: 'telegram', chat: '42', hours };
  const anytime = { channel: 'slack', chat: 'C1' };

  it('a reminder due on Saturday waits for Monday 09:00 when every target states hours', () => {
    const steps = policySteps(record([lisbonChat], { remindAfterSeconds: [60, 3 * 86_400] }));
    expect(steps.map((s) => [s.step, new Date(s.at).toISOString()])).toEqual([
      ['remind-1', monday],
      ['remind-2', '2030-01-15T12:00:00.000Z'],
    ]);
  });

  it('a target without hours is always there: the reminder keeps its time', () => {
    const steps = policySteps(record([lisbonChat, anytime], { remindAfterSeconds: [60] }));
    expect(steps[0]!.at).toBe(saturday + 60_000);
  });

  it('an escalation step waits for the hours of its own targets', () => {
    const policy = {
      escalate: [
        { afterSeconds: 600, to: [{ channel: 'slack', chat: 'C2', hours: { ...hours, timeZone: 'Asia/Tokyo' } }] },
        { afterSeconds: 600, to: [anytime] },
      ],
    };
    const steps = policySteps(record([anytime], policy));
    // Tokyo's Monday 09:00 is Monday 00:00 UTC.
    expect(steps.map((s) => new Date(s.at).toISOString())).toEqual([
      '2030-01-14T00:00:00.000Z',
      new Date(saturday + 600_000).toISOString(),
    ]);
  });

  it('the step job waits until the opening, then applies; the timeout never waits', () => {
    const r = record([lisbonChat], { remindAfterSeconds: [60] });
    expect(stepCall(r, 'remind-1', saturday + 60_000)).toEqual({ kind: 'wait', notBefore: Date.parse(monday) });
    expect(stepCall(r, 'remind-1', Date.parse(monday))).toEqual({ kind: 'apply', event: { type: 'remind', n: 1 } });
    expect(stepCall(r, 'timeout', r.timeoutSeconds * 1000 + saturday)).toEqual({
      kind: 'apply',
      event: { type: 'timeout' },
    });
  });

  it('a step pushed past the deadline never fires', () => {
    const r = { ...record([lisbonChat], { remindAfterSeconds: [60] }), expiresAt: iso(saturday + 3600_000) };
    expect(transition(r, { type: 'remind', n: 1 }, Date.parse(monday))).toEqual({
      kind: 'unchanged',
      outcome: { code: 'updated' },
    });
  });

  it('the request takes hours on a target and names a bad field', () => {
    const body = (to: object) => ({
      runId: 'r',
      questions: [{ question: 'Go?', options: [{ label: 'A' }, { label: 'B' }] }],
      to,
    });
    expect(AskRequestSchema.safeParse(body(lisbonChat)).success).toBe(true);
    const bad = AskRequestSchema.safeParse(body({ ...lisbonChat, hours: { ...hours, days: 'weekdays' } }));
    expect(bad.error?.issues.map((i) => i.path)).toEqual([['to', 'hours', 'days']]);
  });
});
