import { describe, it, expect } from 'vitest';
import { askRecord, DEADLINE, T0, iso } from '../helpers/records.js';
import {
  deadlineOf,
  deliveriesToFinalize,
  isSettled,
  isTerminal,
  mayAnswer,
  namesUsers,
  transition,
  type AskEvent,
  type TransitionResult,
} from '../../src/core/lifecycle.js';
import type { AskRecord, Delivery, Question, Responder } from '../../src/core/schemas.js';

/** Ending an ask: wake the waiters, drop its timeout, leave each conversation it was sent to, count the outcome. */
const terminal = (conversations = 0) => [
  { type: 'publish' },
  { type: 'unschedule', step: 'timeout' },
  ...Array.from({ length: conversations }, () => ({
    type: 'leave',
    conversation: { channel: 'telegram', chat: '42' },
  })),
  { type: 'metric', metric: { name: 'ask_resolved' } },
];
const TERMINAL = terminal();

function q(id: string, labels: string[], multiSelect = false): Question {
  return { id, question: `Which ${id}?`, options: labels.map((label) => ({ label })), multiSelect };
}

const env = q('env', ['Staging (Recommended)', 'Prod']);
const region = q('region', ['eu', 'us', 'ap'], true);
const size = q('size', ['S', 'M', 'L']);

const rec = (over: Partial<AskRecord> = {}) => askRecord([env], { rev: 4, ...over });

const multi = (over: Partial<AskRecord> = {}) => rec({ questions: [env, region, size], ...over });
const alice: Responder = { channel: 'telegram', userId: '1001', username: 'alice' };
const mallory: Responder = { channel: 'telegram', userId: '666' };
const api: Responder = { channel: 'api', userId: 'ops' };
const web: Responder = { channel: 'web', userId: 'console' };
const restricted = (over: Partial<AskRecord> = {}) =>
  rec({ to: { channel: 'telegram', chat: '42', users: ['1001'] }, ...over });

const answeredRec = rec({
  status: 'answered',
  result: { status: 'answered', answers: { env: ['Prod'] }, answeredBy: alice, answeredAt: iso(T0 + 1000) },
});
const noAnswerRec = rec({
  status: 'no_answer',
  result: { status: 'no_answer', reason: 'cancelled', at: iso(T0 + 1000) },
});

/** Deep-freezes a record so a transition that mutates its input throws. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(frozen);
    Object.freeze(value);
  }
  return value;
}

function changed(result: TransitionResult): AskRecord {
  if (result.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(result.outcome)}`);
  return result.record;
}

describe('transition: answers', () => {
  it.each<[string, AskRecord, Record<string, string[]>, Record<string, string[]>]>([
    ['a label', rec(), { env: ['Prod'] }, { env: ['Prod'] }],
    ['a label in other case is stored as declared', rec(), { env: [' prod '] }, { env: ['Prod'] }],
    ['a label without its "(Recommended)"', rec(), { env: ['staging'] }, { env: ['Staging (Recommended)'] }],
    [
      'a label with the suffix in other case',
      rec(),
      { env: ['STAGING (recommended)'] },
      { env: ['Staging (Recommended)'] },
    ],
    ['own words, trimmed', rec(), { env: ['  after lunch '] }, { env: ['after lunch'] }],
    ['duplicates collapse on single choice', rec(), { env: ['Prod', 'prod'] }, { env: ['Prod'] }],
    [
      'every question at once, in question order',
      multi(),
      { size: ['l'], env: ['Prod'], region: ['EU', 'ap'] },
      { env: ['Prod'], region: ['eu', 'ap'], size: ['L'] },
    ],
    [
      'the rest after a partial',
      multi({ partial: { env: ['Prod'] } }),
      { region: ['us'], size: ['S'] },
      { env: ['Prod'], region: ['us'], size: ['S'] },
    ],
    [
      'a partial answer corrected on completion',
      multi({ partial: { env: ['Prod'] } }),
      { env: ['staging'], region: ['us'], size: ['S'] },
      { env: ['Staging (Recommended)'], region: ['us'], size: ['S'] },
    ],
  ])('resolves with %s', (_name, record, answers, stored) => {
    const now = T0 + 5000;
    const result = transition(frozen(record), { type: 'answer', answers, by: alice }, now);
    expect(result).toMatchObject({ kind: 'changed', effects: TERMINAL, outcome: { code: 'resolved' } });
    const next = changed(result);
    expect(next.status).toBe('answered');
    expect(next.rev).toBe(record.rev + 1);
    expect(next.partial).toEqual({});
    expect(next.result).toEqual({
      status: 'answered',
      answers: stored,
      values: stored,
      answeredBy: alice,
      answeredAt: iso(now),
    });
    expect(Object.keys(next.result!.status === 'answered' ? next.result!.answers : {})).toEqual(
      record.questions.map((x) => x.id),
    );
  });

  it.each<[string, AskRecord, Record<string, string[]>, Record<string, string[]>, string[]]>([
    ['first of three', multi(), { env: ['prod'] }, { env: ['Prod'] }, ['region', 'size']],
    ['two of three', multi(), { env: ['Prod'], size: ['m'] }, { env: ['Prod'], size: ['M'] }, ['region']],
    [
      'adds to an earlier partial',
      multi({ partial: { env: ['Prod'] } }),
      { region: ['eu'] },
      { env: ['Prod'], region: ['eu'] },
      ['size'],
    ],
    [
      'replaces an earlier partial answer',
      multi({ partial: { env: ['Prod'] } }),
      { env: ['Staging'] },
      { env: ['Staging (Recommended)'] },
      ['region', 'size'],
    ],
  ])('stores a partial answer: %s', (_name, record, answers, partial, missing) => {
    const result = transition(frozen(record), { type: 'answer', answers, by: alice }, T0 + 5000);
    expect(result).toMatchObject({ kind: 'changed', effects: [], outcome: { code: 'partial', missing } });
    const next = changed(result);
    const { history, ...rest } = next;
    expect(rest).toEqual({ ...record, rev: record.rev + 1, partial, history: undefined });
    expect(history).toEqual([
      {
        type: 'partial',
        channel: alice.channel,
        userId: alice.userId,
        questions: Object.keys(answers),
        at: iso(T0 + 5000),
      },
    ]);
  });

  it('completes an ask across two partial replies', () => {
    const first = changed(
      transition(multi(), { type: 'answer', answers: { region: ['eu', 'us'] }, by: alice }, T0 + 1000),
    );
    const second = changed(transition(first, { type: 'answer', answers: { env: ['Prod'] }, by: alice }, T0 + 2000));
    const third = transition(second, { type: 'answer', answers: { size: ['S'] }, by: mallory }, T0 + 3000);
    expect(third).toMatchObject({ kind: 'changed', outcome: { code: 'resolved' } });
    expect(changed(third)).toMatchObject({
      status: 'answered',
      rev: 7,
      result: {
        answers: { env: ['Prod'], region: ['eu', 'us'], size: ['S'] },
        answeredBy: mallory,
        answeredAt: iso(T0 + 3000),
      },
    });
  });

  it.each<[string, AskRecord, Record<string, string[]>, RegExp]>([
    ['an unknown question id', rec(), { nope: ['Prod'] }, /no question has id "nope"/],
    ['two values for a single-choice question', rec(), { env: ['Prod', 'Staging'] }, /single answer/],
    ['no values', rec(), { env: [] }, /at least one value/],
    ['an unknown id next to a valid answer', multi(), { env: ['Prod'], zzz: ['x'] }, /no question has id "zzz"/],
  ])('rejects %s', (_name, record, answers, message) => {
    const result = transition(frozen(record), { type: 'answer', answers, by: alice }, T0 + 1000);
    expect(result.kind).toBe('unchanged');
    expect(result.outcome.code).toBe('invalid');
    expect(result.outcome.code === 'invalid' && result.outcome.issues.map((i) => i.message).join(' ')).toMatch(message);
  });

  // Core refuses blank values itself: it is the last line for every inbound path, not only the API.
  it('rejects a blank value', () => {
    const result = transition(rec(), { type: 'answer', answers: { env: ['   '] }, by: alice }, T0 + 1000);
    expect(result).toMatchObject({ kind: 'unchanged', outcome: { code: 'invalid' } });
  });

  // An answer that answers nothing must not commit an empty "partial".
  it('rejects an answer event that answers nothing', () => {
    const result = transition(multi(), { type: 'answer', answers: {}, by: alice }, T0 + 1000);
    expect(result).toMatchObject({ kind: 'unchanged', outcome: { code: 'invalid' } });
  });
});

describe('namesUsers: whether any target says who may answer', () => {
  it('no users anywhere; users on a target or a delivery', () => {
    expect(namesUsers(rec())).toBe(false);
    expect(namesUsers(restricted())).toBe(true);
  });
});

describe('transition: who may answer', () => {
  it.each<[string, AskRecord, Responder, 'changed' | 'unchanged', string]>([
    ['anyone without a users list', rec(), mallory, 'changed', 'resolved'],
    ['anyone when `to` is null (API-only ask)', rec({ to: null }), mallory, 'changed', 'resolved'],
    ['a listed user', restricted(), alice, 'changed', 'resolved'],
    ['an unlisted user is forbidden', restricted(), mallory, 'unchanged', 'forbidden'],
    ['the API always', restricted(), api, 'changed', 'resolved'],
    ['the web console always', restricted(), web, 'changed', 'resolved'],
    // An answer page link for anyone (src/links/): minted only when the ask names no users.
    ['an answer page link for anyone', rec(), { channel: 'link', userId: 'link' }, 'changed', 'resolved'],
  ])('answer: %s', (_name, record, by, kind, code) => {
    const result = transition(record, { type: 'answer', answers: { env: ['Prod'] }, by }, T0 + 1000);
    expect(result.kind).toBe(kind);
    expect(result.outcome.code).toBe(code);
    expect(mayAnswer(record, by)).toBe(code !== 'forbidden');
  });

  it.each<[string, AskEvent]>([
    ['answer', { type: 'answer', answers: { env: ['Prod'] }, by: mallory }],
    ['skip', { type: 'skip', by: mallory }],
  ])('an unlisted user is forbidden even after the deadline (%s)', (_name, event) => {
    expect(transition(restricted(), event, DEADLINE + 60_000)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'forbidden' },
    });
  });
});

describe('transition: deadline', () => {
  it.each<[string, number, 'changed' | 'unchanged']>([
    ['before the deadline', DEADLINE - 1, 'unchanged'],
    ['at the deadline', DEADLINE, 'changed'],
    ['after the deadline', DEADLINE + 1, 'changed'],
  ])('timeout %s', (_name, now, kind) => {
    const result = transition(frozen(rec()), { type: 'timeout' }, now);
    expect(result.kind).toBe(kind);
    if (kind === 'unchanged') expect(result.outcome.code).toBe('updated');
    else {
      expect(result).toMatchObject({ effects: TERMINAL, outcome: { code: 'resolved' } });
      expect(changed(result)).toMatchObject({
        status: 'no_answer',
        rev: 5,
        result: { status: 'no_answer', reason: 'timeout', at: iso(now) },
      });
    }
  });

  it.each<[string, AskEvent, AskRecord]>([
    ['an answer', { type: 'answer', answers: { env: ['Prod'] }, by: alice }, rec()],
    ['a partial answer', { type: 'answer', answers: { env: ['Prod'] }, by: alice }, multi()],
    ['an invalid answer', { type: 'answer', answers: { nope: ['x'] }, by: alice }, rec()],
    ['a skip', { type: 'skip', by: alice }, rec()],
  ])('%s after the deadline ends the ask as a timeout and reports expired', (_name, event, record) => {
    const now = DEADLINE + 1;
    const result = transition(frozen(record), event, now);
    expect(result).toMatchObject({ kind: 'changed', effects: TERMINAL, outcome: { code: 'expired' } });
    expect(changed(result)).toMatchObject({
      status: 'no_answer',
      rev: record.rev + 1,
      result: { status: 'no_answer', reason: 'timeout', at: iso(now) },
    });
  });

  it('an answer exactly at the deadline still counts (the timeout may race it; first commit wins)', () => {
    const result = transition(rec(), { type: 'answer', answers: { env: ['Prod'] }, by: alice }, DEADLINE);
    expect(result.outcome.code).toBe('resolved');
    expect(deadlineOf(rec())).toBe(DEADLINE);
  });
});

describe('transition: cancel, supersede, skip', () => {
  it.each<[string, AskEvent, string, Responder | undefined]>([
    ['cancel', { type: 'cancel' }, 'cancelled', undefined],
    ['supersede', { type: 'supersede' }, 'superseded', undefined],
    ['skip', { type: 'skip', by: alice }, 'skipped', alice],
    ['skip through the API', { type: 'skip', by: api }, 'skipped', api],
  ])('%s ends the ask', (_name, event, reason, by) => {
    const now = T0 + 3000;
    const result = transition(frozen(multi({ partial: { env: ['Prod'] } })), event, now);
    expect(result).toMatchObject({ kind: 'changed', effects: TERMINAL, outcome: { code: 'resolved' } });
    const next = changed(result);
    expect(next.status).toBe('no_answer');
    expect(next.rev).toBe(5);
    expect(next.result).toEqual({ status: 'no_answer', reason, at: iso(now), ...(by ? { by } : {}) });
  });

  it.each<[string, AskEvent]>([
    ['cancel', { type: 'cancel' }],
    ['supersede', { type: 'supersede' }],
  ])('%s after the deadline still ends with its own reason', (_name, event) => {
    expect(changed(transition(rec(), event, DEADLINE + 5000)).result).toMatchObject({
      reason: event.type === 'cancel' ? 'cancelled' : 'superseded',
    });
  });
});

describe('transition: terminal records never change status', () => {
  const events: [string, AskEvent][] = [
    ['answer', { type: 'answer', answers: { env: ['Staging'] }, by: alice }],
    ['invalid answer', { type: 'answer', answers: { nope: ['x'] }, by: alice }],
    ['answer from a forbidden user', { type: 'answer', answers: { env: ['Prod'] }, by: mallory }],
    ['skip', { type: 'skip', by: alice }],
    ['timeout', { type: 'timeout' }],
    ['cancel', { type: 'cancel' }],
    ['supersede', { type: 'supersede' }],
  ];
  it.each(
    events.flatMap(([name, event]) => [
      [`${name} on answered`, answeredRec, event] as const,
      [`${name} on no_answer`, noAnswerRec, event] as const,
      [`${name} on answered, after the deadline`, answeredRec, event] as const,
    ]),
  )('%s is already_resolved', (name, record, event) => {
    const now = name.includes('after the deadline') ? DEADLINE + 1 : T0 + 2000;
    expect(isTerminal(record)).toBe(true);
    expect(transition(frozen(record), event, now)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'already_resolved' },
    });
  });
});

const ref = { chat: '42', messageId: '9' };
const d = (
  status: Delivery['status'],
  finalized: Delivery['finalized'] = 'no',
  extra: Partial<Delivery> = {},
): Delivery => ({
  channel: 'telegram',
  chat: '42',
  status,
  finalized,
  ...(status === 'sent' ? { message: ref } : {}),
  ...extra,
});

describe('transition: delivery bookkeeping', () => {
  it.each<[string, AskRecord, AskEvent, Delivery[]]>([
    ['delivered', rec({ deliveries: [d('pending')] }), { type: 'delivered', index: 0, message: ref }, [d('sent')]],
    [
      'delivered after a failure (late success)',
      rec({ deliveries: [d('failed', 'no', { error: 'boom' })] }),
      { type: 'delivered', index: 0, message: ref },
      [d('sent', 'no', { error: undefined })],
    ],
    [
      'failed',
      rec({ deliveries: [d('pending'), d('sent')] }),
      { type: 'delivery_failed', index: 0, error: '403' },
      [d('failed', 'no', { error: '403' }), d('sent')],
    ],
    ['finalized', answeredRec, { type: 'finalized', index: 0, ok: true }, [d('sent', 'done')]],
    ['finalization gave up', answeredRec, { type: 'finalized', index: 0, ok: false }, [d('sent', 'failed')]],
    [
      'delivered on a terminal record',
      { ...answeredRec, deliveries: [d('pending')] },
      { type: 'delivered', index: 0, message: ref },
      [d('sent')],
    ],
    [
      'the last delivery fails on a terminal record',
      { ...noAnswerRec, deliveries: [d('pending')] },
      { type: 'delivery_failed', index: 0, error: 'x' },
      [d('failed', 'no', { error: 'x' })],
    ],
  ])('%s', (_name, base, event, deliveries) => {
    const record = base.deliveries.length > 0 ? base : { ...base, deliveries: [d('sent')] };
    const result = transition(frozen(record), event, T0 + 1000);
    // A message sent reports its time to deliver (seconds since the ask was created); nothing else has effects.
    const metric = {
      name: 'ask_delivered',
      channel: 'telegram',
      kind: 'choice',
      seconds: (T0 + 1000 - Date.parse(record.createdAt)) / 1000,
    };
    const effects = event.type === 'delivered' ? [{ type: 'metric', metric }] : [];
    expect(result).toMatchObject({ kind: 'changed', effects, outcome: { code: 'updated' } });
    const next = changed(result);
    expect({ ...next, history: record.history }).toEqual({ ...record, rev: record.rev + 1, deliveries });
    const types = {
      delivered: 'delivered',
      delivery_failed: 'delivery_failed',
      finalized: event.type === 'finalized' && !event.ok ? 'finalize_failed' : 'finalized',
    };
    expect(next.history.at(-1)).toMatchObject({
      type: types[event.type as keyof typeof types],
      channel: 'telegram',
      at: iso(T0 + 1000),
    });
  });

  it('keeps the history bounded: the first entry and the newest ones', () => {
    let record = rec({ history: [{ type: 'created', at: iso(T0) }] });
    for (let i = 0; i < 150; i++)
      record = changed(
        transition(record, { type: 'note', entry: { type: 'reply_rejected', reason: `r${i}` } }, T0 + i),
      );
    expect(record.history).toHaveLength(100);
    expect(record.history[0]).toEqual({ type: 'created', at: iso(T0) });
    expect(record.history.at(-1)).toMatchObject({ type: 'reply_rejected', reason: 'r149' });
    expect(record.history[1]).toMatchObject({ reason: 'r51' });
  });

  it('records who answered and why an ask ended, never the free text', () => {
    const answered = changed(
      transition(rec(), { type: 'answer', answers: { env: ['my secret words'] }, by: alice }, T0 + 1000),
    );
    expect(answered.history.at(-1)).toEqual({
      type: 'answered',
      channel: alice.channel,
      userId: alice.userId,
      at: iso(T0 + 1000),
    });
    expect(JSON.stringify(answered.history)).not.toContain('secret');
    const ended = changed(transition(rec(), { type: 'timeout' }, T0 + 3_600_000));
    expect(ended.history.at(-1)).toEqual({ type: 'no_answer', reason: 'timeout', at: iso(T0 + 3_600_000) });
  });

  it.each<[string, AskRecord, AskEvent]>([
    ['delivered twice', rec({ deliveries: [d('sent')] }), { type: 'delivered', index: 0, message: ref }],
    ['failed after it was sent', rec({ deliveries: [d('sent')] }), { type: 'delivery_failed', index: 0, error: 'x' }],
    ['failed twice', rec({ deliveries: [d('failed')] }), { type: 'delivery_failed', index: 0, error: 'x' }],
    [
      'finalized twice',
      { ...answeredRec, deliveries: [d('sent', 'done')] },
      { type: 'finalized', index: 0, ok: false },
    ],
  ])('ignores a repeat: %s', (_name, record, event) => {
    expect(transition(record, event, T0)).toEqual({ kind: 'unchanged', outcome: { code: 'updated' } });
  });

  it.each<[string, AskEvent]>([
    ['delivered', { type: 'delivered', index: 1, message: ref }],
    ['delivery_failed', { type: 'delivery_failed', index: -1, error: 'x' }],
    ['finalized', { type: 'finalized', index: 7, ok: true }],
  ])('rejects an unknown delivery index (%s)', (_name, event) => {
    expect(transition(rec({ deliveries: [d('pending')] }), event, T0)).toMatchObject({
      kind: 'unchanged',
      outcome: { code: 'invalid' },
    });
  });

  it.each<[string, Delivery[], boolean]>([
    ['the only delivery failing ends the ask undelivered', [d('pending')], true],
    ['the last of two failing ends it', [d('failed'), d('pending')], true],
    ['one of two failing leaves it pending', [d('pending'), d('pending')], false],
    ['a failure next to a sent delivery leaves it pending', [d('pending'), d('sent')], false],
  ])('%s', (_name, deliveries, ends) => {
    const record = rec({ deliveries });
    const index = deliveries.findIndex((x) => x.status === 'pending');
    const result = transition(frozen(record), { type: 'delivery_failed', index, error: 'chat not found' }, T0 + 1000);
    const next = changed(result);
    expect(next.rev).toBe(record.rev + 1);
    expect(next.deliveries[index]).toMatchObject({ status: 'failed', error: 'chat not found' });
    if (ends) {
      expect(result).toMatchObject({ effects: terminal(deliveries.length), outcome: { code: 'resolved' } });
      expect(next.status).toBe('no_answer');
      expect(next.result).toEqual({ status: 'no_answer', reason: 'undelivered', at: iso(T0 + 1000) });
    } else {
      expect(result).toMatchObject({ effects: [], outcome: { code: 'updated' } });
      expect(next.status).toBe('pending');
    }
  });
});

describe('deliveriesToFinalize and isSettled', () => {
  it.each<[string, AskRecord, number[], boolean]>([
    ['pending, nothing to finalize', rec({ deliveries: [d('sent')] }), [], false],
    ['terminal, no deliveries (API only)', { ...answeredRec, deliveries: [] }, [], true],
    [
      'terminal, sent and not finalized',
      { ...answeredRec, deliveries: [d('sent'), d('sent', 'done'), d('failed')] },
      [0],
      false,
    ],
    [
      'terminal, all finalized or failed',
      { ...answeredRec, deliveries: [d('sent', 'done'), d('sent', 'failed'), d('failed')] },
      [],
      true,
    ],
    [
      'terminal, a delivery still pending',
      { ...noAnswerRec, deliveries: [d('pending'), d('sent', 'done')] },
      [],
      false,
    ],
    [
      'terminal, several to finalize',
      { ...noAnswerRec, deliveries: [d('sent'), d('failed'), d('sent')] },
      [0, 2],
      false,
    ],
  ])('%s', (_name, record, toFinalize, settled) => {
    expect(deliveriesToFinalize(record)).toEqual(toFinalize);
    expect(isSettled(record)).toBe(settled);
  });
});
