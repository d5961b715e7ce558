import { describe, expect, it } from 'vitest';
import {
  ANSWER_BUCKETS,
  answerBucket,
  answerBucketBound,
  applyRollup,
  delayBucket,
  outcomeOf,
  quantileOf,
  rollupOf,
} from '../../src/core/insights.js';
import { insightsReport, parseInsightsQuery, pendingNowOf } from '../../src/core/insights-report.js';
import type { AskRecord } from '../../src/core/schemas.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const q = [
  { id: 'env', header: 'Deploy', question: 'Where?', options: [{ label: 'A' }, { label: 'B' }] },
] as AskRecord['questions'];
const by = { channel: 'telegram', userId: '7' };
const answered = (seconds: number, over: Partial<AskRecord> = {}): AskRecord =>
  askRecord(q, {
    status: 'answered',
    result: { status: 'answered', answers: { env: ['A'] }, answeredBy: by, answeredAt: iso(T0 + seconds * 1000) },
    ...over,
  });
const ended = (
  reason: 'timeout' | 'skipped' | 'cancelled' | 'superseded' | 'undelivered',
  extra: object = {},
): AskRecord =>
  askRecord(q, { status: 'no_answer', result: { status: 'no_answer', reason, at: iso(T0 + 60_000), ...extra } });

describe('outcomes', () => {
  it.each([
    ['answered', answered(5), 'answered'],
    ['skipped', ended('skipped'), 'skipped'],
    ['timeout', ended('timeout'), 'timed_out'],
    ['timeout with a default', ended('timeout', { defaults: { env: ['A'] } }), 'default_taken'],
    ['timeout with a stated decision', ended('timeout', { decision: 'reject' }), 'default_taken'],
    ['cancelled', ended('cancelled'), 'cancelled'],
    ['undelivered', ended('undelivered'), 'undelivered'],
    ['superseded', ended('superseded'), 'superseded'],
    ['pending', askRecord(q), null],
  ] as const)('%s', (_name, record, outcome) => {
    expect(outcomeOf(record)).toBe(outcome);
  });
});

describe('buckets', () => {
  it.each([
    [0, 0],
    [1, 0],
    [1.2, 1],
    [1.5, 1],
    [1.6, 2],
    [2.25, 2],
    [60, 11],
    [3600, 21],
    [1e9, ANSWER_BUCKETS - 1],
  ])('%s s is in answer bucket %s', (seconds, bucket) => {
    expect(answerBucket(seconds)).toBe(bucket);
    expect(seconds).toBeLessThanOrEqual(answerBucketBound(bucket) * (1 + 1e-9));
    if (bucket > 0) expect(seconds).toBeGreaterThan(answerBucketBound(bucket - 1));
  });
  it.each([
    [0, 0],
    [3599, 0],
    [3600, 1],
    [86_399, 1],
    [86_400, 2],
    [3 * 86_400, 3],
    [7 * 86_400 - 1, 3],
    [7 * 86_400, 4],
  ])('a delay of %s s is in delay bucket %s', (seconds, bucket) => {
    expect(delayBucket(seconds)).toBe(bucket);
  });
});

describe('quantiles from buckets', () => {
  it('are within a factor √1.5 of the exact quantile', () => {
    // A skewed spread from 3 s to 3 days.
    const samples = Array.from({ length: 1000 }, (_, i) => 3 * Math.exp((i / 999) * Math.log(86_400)));
    const counts = Array.from({ length: ANSWER_BUCKETS }, () => 0);
    for (const s of samples) counts[answerBucket(s)]!++;
    for (const p of [0.5, 0.95]) {
      const exact = samples[Math.ceil(p * samples.length) - 1]!;
      const estimate = quantileOf(counts, p)!;
      expect(estimate / exact).toBeLessThanOrEqual(Math.sqrt(1.5) + 1e-9);
      expect(exact / estimate).toBeLessThanOrEqual(Math.sqrt(1.5) + 1e-9);
    }
  });
  it.each([
    ['no answers', [], 0.5, null],
    ['everything under a second', [4], 0.5, 1],
    ['one answer in bucket 2', [0, 0, 1], 0.5, Math.sqrt(1.5 * 2.25)],
    [
      'the open last bucket: its lower bound',
      [...Array(ANSWER_BUCKETS - 1).fill(0), 3],
      0.95,
      1.5 ** (ANSWER_BUCKETS - 2),
    ],
  ])('%s', (_name, counts, p, expected) => {
    const got = quantileOf(counts as number[], p);
    if (expected === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(expected, 6);
  });
});

describe('rollups', () => {
  it('an answered approval by an agent counts its outcome, decision, times and person', () => {
    const record = answered(90, {
      agent: 'deploy-bot',
      approval: { action: 'deploy', arguments: {}, actionHash: 'sha256:x' } as unknown as AskRecord['approval'],
      result: {
        status: 'answered',
        answers: {},
        decision: 'request_changes',
        answeredBy: by,
        answeredAt: iso(T0 + 90_000),
      },
    });
    expect(rollupOf(record)).toEqual({
      day: iso(T0).slice(0, 10),
      scopes: [
        { dim: 'a', value: 'deploy-bot', cap: 100 },
        { dim: 'c', value: 'telegram', cap: 20 },
        { dim: 'p', value: 'telegram:7', cap: 200 },
      ],
      metrics: ['n', 'o.answered', 'w.0', 'k.approval', `t.${answerBucket(90)}`, 'd.changes_requested'],
    });
  });
  it('an ask without agent or target: only the channel "none", no person, counted on the day it ended', () => {
    const record = askRecord(q, {
      to: null,
      status: 'no_answer',
      createdAt: iso(Date.parse('2030-01-01T23:00:00Z')),
      result: { status: 'no_answer', reason: 'timeout', at: '2030-01-03T01:00:00.000Z' },
    });
    expect(rollupOf(record)).toEqual({
      day: '2030-01-03',
      scopes: [{ dim: 'c', value: 'none', cap: 20 }],
      metrics: ['n', 'o.timed_out', 'w.2'],
    });
  });
  it('a pending ask adds nothing', () => expect(rollupOf(askRecord(q))).toBeNull());
  it('values past the day\'s cap are counted as "other"', () => {
    const day = new Map<string, number>();
    for (let i = 0; i < 5; i++)
      applyRollup(day, {
        day: 'd',
        scopes: [{ dim: 'a', value: `agent-${i % 4}`, cap: 2 }],
        metrics: ['n', 'o.answered'],
      });
    expect(Object.fromEntries(day)).toEqual({
      '#a': 2,
      'n|*': 5,
      'o.answered|*': 5,
      'n|a:agent-0': 2,
      'o.answered|a:agent-0': 2,
      'n|a:agent-1': 1,
      'o.answered|a:agent-1': 1,
      'n|a~': 2,
      'o.answered|a~': 2,
    });
  });
});

describe('the query', () => {
  const now = Date.parse('2030-01-10T12:00:00Z');
  it.each([
    ['defaults: the 7 days ending today', {}, { from: '2030-01-04', to: '2030-01-10', filter: null }],
    [
      'a period and an agent',
      { from: '2030-01-01', to: '2030-01-02', agent: 'x' },
      { from: '2030-01-01', to: '2030-01-02', filter: { dim: 'agent', value: 'x' } },
    ],
    ['bad from', { from: '2030-13-01' }, { field: 'from' }],
    ['bad to', { to: 'yesterday' }, { field: 'to' }],
    ['from after to', { from: '2030-01-05', to: '2030-01-04' }, { field: 'from' }],
    ['too long a period', { from: '2029-01-01', to: '2030-01-01' }, { field: 'from' }],
    ['two filters', { agent: 'a', person: 'p' }, { field: 'person' }],
    ['an empty filter', { channel: '' }, { field: 'channel' }],
    ['a field given twice', { agent: ['a', 'b'] }, { field: 'agent' }],
    ['an unknown field', { color: 'red' }, { field: 'color' }],
  ])('%s', (_name, raw, expected) => {
    expect(parseInsightsQuery(raw as Record<string, unknown>, now)).toMatchObject(expected);
  });
});

describe('the report', () => {
  it('gives every figure with its denominator, filtered by one dimension', () => {
    const day = new Map<string, number>();
    const records = [
      answered(30, { agent: 'a' }),
      answered(7200, { agent: 'b' }),
      ended('skipped'),
      ended('cancelled'),
    ];
    for (const r of records) applyRollup(day, rollupOf(r)!);
    const days = new Map([[iso(T0).slice(0, 10), Object.fromEntries(day)]]);
    const pending = pendingNowOf([T0 - 30 * 60_000, T0 - 2 * 86_400_000], T0);
    const all = insightsReport({ from: '2030-01-01', to: '2030-01-01', filter: null }, days, pending, T0);
    expect(all.asks).toEqual({ count: 4 });
    expect(all.outcomes.answered).toEqual({ count: 2, of: 4 });
    expect(all.outcomes.skipped).toEqual({ count: 1, of: 4 });
    expect(all.timeToAnswer.median.of).toBe(2);
    expect(all.delays.map((d) => d.count)).toEqual([3, 1, 0, 0, 0]);
    expect(all.pending).toMatchObject({ count: 2, oldestWaitSeconds: 2 * 86_400 });
    expect(all.pending.ages.map((a) => [a.count, a.of])).toEqual([
      [1, 2],
      [0, 2],
      [1, 2],
      [0, 2],
      [0, 2],
    ]);
    expect(all.people).toEqual([{ person: 'telegram:7', answers: { count: 2, of: 2 } }]);
    expect(all.dimensions.agents).toEqual(['a', 'b']);
    const b = insightsReport(
      { from: '2030-01-01', to: '2030-01-01', filter: { dim: 'agent', value: 'b' } },
      days,
      pending,
      T0,
    );
    expect(b.asks).toEqual({ count: 1 });
    expect(b.outcomes.answered).toEqual({ count: 1, of: 1 });
    expect(b.timeToAnswer.median.seconds! / 7200).toBeGreaterThan(0.8);
    expect(b.filter).toEqual({ agent: 'b' });
  });
});
