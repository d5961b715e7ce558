import { describe, expect, it } from 'vitest';
import { askRecord, DEADLINE, T0, iso } from '../helpers/records.js';
import type { Effect } from '../../src/core/effects.js';
import { createAsk, transition } from '../../src/core/lifecycle.js';
import type { AskRecord, Delivery, HistoryEntry } from '../../src/core/schemas.js';
import { commitPlan, createPlan, foldAlong, followUp, jobsFor, workFor } from '../../src/core/work.js';

const settings = { graceMs: 30_000, sweepDelayMs: 10_000 };

const d = (status: Delivery['status'], finalized: Delivery['finalized'] = 'no'): Delivery => ({
  channel: 'telegram',
  chat: '42',
  status,
  finalized,
  ...(status === 'sent' ? { message: { chat: '42', messageId: '7' } } : {}),
});
const note = (type: HistoryEntry['type']): HistoryEntry => ({ type, at: iso(T0) }) as HistoryEntry;

const rec = (over: Partial<AskRecord> = {}) =>
  askRecord(
    [{ id: 'env', question: 'Which env?', options: [{ label: 'Prod' }, { label: 'Staging' }], multiSelect: false }],
    { rev: 4, ...over },
  );
const answered = (over: Partial<AskRecord> = {}) =>
  rec({
    status: 'answered',
    result: {
      status: 'answered',
      answers: { env: ['Prod'] },
      answeredBy: { channel: 'api', userId: 'ops' },
      answeredAt: iso(T0 + 60_000),
    },
    ...over,
  });
const hook = 'https://hooks.example.com/a';
const enqueue = (kind: 'deliver' | 'finalize' | 'webhook', index = 0): Effect => ({
  type: 'enqueue',
  job: { kind, index },
});

describe('jobsFor', () => {
  it.each<[string, AskRecord, ReturnType<typeof jobsFor>]>([
    ['pending, not yet delivered', rec({ deliveries: [d('pending')] }), [{ kind: 'deliver', index: 0 }]],
    [
      'pending, delivered: nothing (the webhook waits for the end)',
      rec({ deliveries: [d('sent')], callbackUrl: hook }),
      [],
    ],
    [
      'ended, sent, not edited',
      answered({ deliveries: [d('sent'), d('failed'), d('sent', 'done')] }),
      [{ kind: 'finalize', index: 0 }],
    ],
    ['ended with a webhook to send', answered({ callbackUrl: hook }), [{ kind: 'webhook', index: 0 }]],
    ['ended, webhook delivered', answered({ callbackUrl: hook, history: [note('webhook_delivered')] }), []],
    ['ended, webhook given up', answered({ callbackUrl: hook, history: [note('webhook_failed')] }), []],
    ['ended while still undelivered', answered({ deliveries: [d('pending')] }), [{ kind: 'deliver', index: 0 }]],
  ])('%s', (_name, record, jobs) => {
    expect(jobsFor(record)).toEqual(jobs);
  });
});

describe('workFor (the reconciler)', () => {
  const now = T0 + 20_000;
  it.each<[string, AskRecord, number, Effect[]]>([
    [
      'pending with a delivery left: re-queue it, keep the timeout, look again soon',
      rec({ deliveries: [d('pending')] }),
      now,
      [enqueue('deliver'), { type: 'schedule', step: 'timeout', at: DEADLINE }, { type: 'resweep', at: now + 10_000 }],
    ],
    [
      'pending, delivered: keep the timeout, look again after deadline + grace',
      rec({ deliveries: [d('sent')] }),
      now,
      [
        { type: 'schedule', step: 'timeout', at: DEADLINE },
        { type: 'resweep', at: DEADLINE + 30_000 },
      ],
    ],
    [
      'pending with a delivery left near the deadline: look again at deadline + grace',
      rec({ deliveries: [d('pending')] }),
      DEADLINE + 25_000,
      [
        enqueue('deliver'),
        { type: 'schedule', step: 'timeout', at: DEADLINE },
        { type: 'resweep', at: DEADLINE + 30_000 },
      ],
    ],
    [
      'pending just before deadline + grace: still the job’s turn',
      rec(),
      DEADLINE + 29_999,
      [
        { type: 'schedule', step: 'timeout', at: DEADLINE },
        { type: 'resweep', at: DEADLINE + 30_000 },
      ],
    ],
    [
      'pending at deadline + grace: the timeout job was lost, time it out now',
      rec({ deliveries: [d('pending')] }),
      DEADLINE + 30_000,
      [
        { type: 'due', step: 'timeout' },
        { type: 'resweep', at: DEADLINE + 40_000 },
      ],
    ],
    [
      'ended, nothing left: unmark',
      answered({ deliveries: [d('sent', 'done'), d('failed')] }),
      now,
      [{ type: 'unsweep' }],
    ],
    ['ended, API only: unmark', answered(), now, [{ type: 'unsweep' }]],
    [
      'ended with work left: webhook, edits and deliveries, then look again',
      answered({ callbackUrl: hook, deliveries: [d('sent'), d('pending'), d('sent', 'failed')] }),
      now,
      [enqueue('webhook'), enqueue('finalize', 0), enqueue('deliver', 1), { type: 'resweep', at: now + 10_000 }],
    ],
  ])('%s', (_name, record, at, effects) => {
    expect(workFor(record, at, settings)).toEqual(effects);
  });
});

describe('commitPlan and followUp (after a commit)', () => {
  const pending = rec({ deliveries: [d('sent')], callbackUrl: hook });
  const answer = (record: AskRecord, now: number) => {
    const result = transition(
      record,
      { type: 'answer', answers: { env: ['Prod'] }, by: { channel: 'api', userId: 'ops' } },
      now,
    );
    if (result.kind !== 'changed') throw new Error('expected a change');
    return result;
  };

  it('an answer late in the ask: write-ahead mark, then publish, drop the timeout, leave, count, webhook and edit', () => {
    const now = T0 + 60_000;
    const result = answer(pending, now);
    const plan = commitPlan(pending, result.record, result.effects, now, settings);
    expect(plan.ahead).toEqual([{ type: 'sweepAt', at: now + 10_000 }]);
    expect(plan.after).toEqual([
      { type: 'publish' },
      { type: 'unschedule', step: 'timeout' },
      { type: 'leave', conversation: { channel: 'telegram', chat: '42' } },
      {
        type: 'metric',
        metric: {
          name: 'ask_resolved',
          status: 'answered',
          reason: null,
          secondsOpen: 60,
          labels: { channel: 'telegram', kind: 'choice', outcome: 'answered' },
        },
      },
      enqueue('webhook'),
      enqueue('finalize', 0),
    ]);
  });

  it('an answer while the creation mark stands (a delivery still pending): no write-ahead mark', () => {
    const undelivered = rec({ deliveries: [d('pending')], callbackUrl: hook });
    const now = T0 + 4_999;
    const result = answer(undelivered, now);
    expect(commitPlan(undelivered, result.record, result.effects, now, settings).ahead).toEqual([]);
    expect(commitPlan(undelivered, result.record, result.effects, T0 + 5_000, settings).ahead).toEqual([
      { type: 'sweepAt', at: T0 + 15_000 },
    ]);
  });

  it('an answer to a young ask whose deliveries are all made: its creation mark may have moved later, so a mark', () => {
    const now = T0 + 1_000;
    const result = answer(pending, now);
    expect(commitPlan(pending, result.record, result.effects, now, settings).ahead).toEqual([
      { type: 'sweepAt', at: now + 10_000 },
    ]);
  });

  it('an answer to a young ask without a target that leaves work: its creation mark was the deadline, so a mark', () => {
    const apiOnly = rec({ to: null, callbackUrl: hook });
    const now = T0 + 1_000;
    const result = answer(apiOnly, now);
    expect(commitPlan(apiOnly, result.record, result.effects, now, settings).ahead).toEqual([
      { type: 'sweepAt', at: now + 10_000 },
    ]);
  });

  it('an answer that leaves nothing to do: no mark, unmark first', () => {
    const apiOnly = rec({ to: null });
    const now = T0 + 60_000;
    const result = answer(apiOnly, now);
    const plan = commitPlan(apiOnly, result.record, result.effects, now, settings);
    expect(plan.ahead).toEqual([]);
    expect(plan.after[0]).toEqual({ type: 'unsweep' });
    expect(plan.after.filter((e) => e.type === 'enqueue')).toEqual([]);
  });

  it('a message sent after the ask ended: its edit is queued by the delivered commit', () => {
    const ended = answered({ deliveries: [d('pending')], callbackUrl: hook });
    const result = transition(
      ended,
      { type: 'delivered', index: 0, message: { chat: '42', messageId: '9' } },
      T0 + 70_000,
    );
    if (result.kind !== 'changed') throw new Error('expected a change');
    const plan = commitPlan(ended, result.record, result.effects, T0 + 70_000, settings);
    const metric = { name: 'ask_delivered', channel: 'telegram', kind: 'choice', seconds: 70 };
    expect(plan).toEqual({ ahead: [], after: [{ type: 'metric', metric }, enqueue('finalize', 0)] });
  });

  describe('the commit that makes the last pending delivery moves the creation mark to the watch time', () => {
    const delivered = (record: AskRecord, index: number, now: number) => {
      const result = transition(record, { type: 'delivered', index, message: { chat: '42', messageId: '9' } }, now);
      if (result.kind !== 'changed') throw new Error('expected a change');
      return commitPlan(record, result.record, result.effects, now, settings);
    };
    const slack: Delivery = { channel: 'slack', chat: 'C1', status: 'pending', finalized: 'no' };
    const created = Date.parse(rec().createdAt);

    it.each<[string, AskRecord, number, Effect[]]>([
      [
        'one target, delivered: only while the mark is still the creation one',
        rec({ deliveries: [d('pending')] }),
        0,
        [{ type: 'sweepLater', at: DEADLINE + 30_000, from: created + 10_000 }],
      ],
      [
        'fan-out, another delivery still pending: the early look stays',
        rec({ deliveries: [d('pending'), slack] }),
        0,
        [],
      ],
      [
        'fan-out, the last one: moved',
        rec({ deliveries: [{ ...slack, status: 'sent', message: { chat: 'C1', messageId: '1' } }, d('pending')] }),
        1,
        [{ type: 'sweepLater', at: DEADLINE + 30_000, from: created + 10_000 }],
      ],
    ])('%s', (_name, record, index, expected) => {
      const plan = delivered(record, index, T0 + 2_000);
      expect(plan.after.filter((e) => e.type === 'sweepLater')).toEqual(expected);
    });

    it('an ended ask, or one without a target, is never moved', () => {
      const ended = answered({ deliveries: [d('pending')], callbackUrl: hook });
      expect(delivered(ended, 0, T0 + 70_000).after.some((e) => e.type === 'sweepLater')).toBe(false);
    });

    it('folded, it rides inside the commit as `later`', () => {
      const plan = delivered(rec({ deliveries: [d('pending')] }), 0, T0 + 2_000);
      expect(foldAlong(plan).along).toEqual({ later: { at: DEADLINE + 30_000, from: created + 10_000 } });
    });
  });

  it.each<[string, AskRecord, AskRecord]>([
    ['an edit done: nothing new', answered({ deliveries: [d('sent')] }), answered({ deliveries: [d('sent', 'done')] })],
    [
      'a webhook delivered: nothing new',
      answered({ callbackUrl: hook }),
      answered({ callbackUrl: hook, history: [note('webhook_delivered')] }),
    ],
    ['a pending record delivered: nothing new', rec({ deliveries: [d('pending')] }), rec({ deliveries: [d('sent')] })],
  ])('%s', (_name, prev, next) => {
    expect(followUp(prev, next, [])).toEqual([]);
  });

  it('finishing the last job of an ended ask unmarks it', () => {
    const prev = answered({ deliveries: [d('sent')] });
    const next = answered({ deliveries: [d('sent', 'done')] });
    expect(commitPlan(prev, next, [], T0 + 80_000, settings)).toEqual({ ahead: [], after: [{ type: 'unsweep' }] });
  });
});

describe('creating an ask is a transition', () => {
  it('marks it for a sweep first, then counts it, schedules its timeout and queues its delivery', () => {
    const { record, effects } = createAsk(
      { runId: 'run-1', questions: rec().questions, to: { channel: 'telegram', chat: '42' } },
      'AbCdEfGhIjKl',
      1,
      900,
      T0,
    );
    expect(createPlan(record, effects, T0, settings)).toEqual({
      ahead: [{ type: 'sweepAt', at: T0 + 10_000 }],
      after: [
        { type: 'metric', metric: { name: 'ask_created', channel: 'telegram' } },
        { type: 'schedule', step: 'timeout', at: DEADLINE },
        enqueue('deliver'),
      ],
    });
  });

  it('an ask without a target: no delivery, counted under "none", marked for the deadline + grace', () => {
    const { record, effects } = createAsk({ runId: 'run-1', questions: rec().questions }, 'AbCdEfGhIjKl', 1, 60, T0);
    expect(createPlan(record, effects, T0, settings)).toEqual({
      ahead: [{ type: 'sweepAt', at: T0 + 60_000 + 30_000 }],
      after: [
        { type: 'metric', metric: { name: 'ask_created', channel: 'none' } },
        { type: 'schedule', step: 'timeout', at: T0 + 60_000 },
      ],
    });
  });

  it('an ask without a target but with policy steps: marked for its first step + grace', () => {
    const { record, effects } = createAsk(
      {
        runId: 'run-1',
        questions: rec().questions,
        remindAfterSeconds: [120],
        escalate: [{ afterSeconds: 90, to: { channel: 'telegram', chat: '7' } }],
      },
      'AbCdEfGhIjKl',
      1,
      600,
      T0,
    );
    expect(createPlan(record, effects, T0, settings).ahead).toEqual([{ type: 'sweepAt', at: T0 + 90_000 + 30_000 }]);
  });
});

describe('foldAlong (index writes an ordered store makes inside the write)', () => {
  const conv = { channel: 'telegram', chat: '42' };
  const other = { channel: 'slack', chat: 'C1' };
  const schedule: Effect = { type: 'schedule', step: 'timeout', at: DEADLINE };
  const unschedule: Effect = { type: 'unschedule', step: 'timeout' };
  it.each<[string, { ahead: Effect[]; after: Effect[] }, ReturnType<typeof foldAlong>]>([
    ['nothing to fold', { ahead: [], after: [schedule] }, { along: {}, ahead: [], after: [schedule] }],
    [
      'the write-ahead mark',
      { ahead: [{ type: 'sweepAt', at: T0 + 10 }], after: [enqueue('deliver')] },
      { along: { mark: T0 + 10 }, ahead: [], after: [enqueue('deliver')] },
    ],
    [
      'an ended ask: the conversations it leaves; the unschedule and jobs still run after',
      {
        ahead: [],
        after: [
          { type: 'leave', conversation: conv },
          { type: 'leave', conversation: other },
          unschedule,
          enqueue('finalize'),
        ],
      },
      { along: { leave: [conv, other] }, ahead: [], after: [unschedule, enqueue('finalize')] },
    ],
    [
      'a done ask: the unmark',
      { ahead: [], after: [{ type: 'unsweep' }] },
      { along: { unsweep: true }, ahead: [], after: [] },
    ],
  ])('%s', (_name, plan, expected) => {
    expect(foldAlong(plan)).toEqual(expected);
  });

  it('a commit plan of an answered chat ask folds everything but its unschedule, jobs and metric', () => {
    const prev = rec({ deliveries: [d('sent')] });
    const result = transition(
      prev,
      { type: 'answer', answers: { env: ['Prod'] }, by: { channel: 'api', userId: 'u' } },
      T0 + 60_000,
    );
    if (result.kind !== 'changed') throw new Error('expected a change');
    const plan = commitPlan(prev, result.record, result.effects, T0 + 60_000, settings);
    const folded = foldAlong(plan);
    expect(folded.along).toEqual({ mark: T0 + 70_000, leave: [conv] });
    expect(folded.after.map((e) => e.type)).not.toContain('leave');
    expect([...folded.ahead, ...folded.after]).toHaveLength(plan.ahead.length + plan.after.length - 2);
  });
});
