import { describe, expect, it } from 'vitest';
import { DEADLINE, T0, iso } from '../helpers/records.js';
import type { Effect } from '../../src/core/effects.js';
import { createAsk, mayAnswer, transition, type AskEvent, type TransitionResult } from '../../src/core/lifecycle.js';
import { AskRecordSchema, AskRequestSchema, type AskRecord, type Responder } from '../../src/core/schemas.js';
import { followUp, jobsFor, workFor } from '../../src/core/work.js';

const settings = { graceMs: 30_000, sweepDelayMs: 10_000 };
const env = { id: 'env', question: 'Which env?', options: [{ label: 'Production' }, { label: 'Staging' }] };
const alice: Responder = { channel: 'telegram', userId: 'alice' };
const bob: Responder = { channel: 'slack', userId: 'U2' };
const carol: Responder = { channel: 'telegram', userId: 'carol' };

/** A record created at T0 with a 900 s timeout from a request body (validated like the API). */
function ask(extra: Record<string, unknown>, questions: object[] = [env]): AskRecord {
  const request = AskRequestSchema.parse({ runId: 'r1', questions, ...extra });
  return createAsk(request, 'AbCdEfGhIjKl00', 1, 900, T0).record;
}
function changed(result: TransitionResult): Extract<TransitionResult, { kind: 'changed' }> {
  if (result.kind !== 'changed') throw new Error(`unchanged: ${JSON.stringify(result.outcome)}`);
  return result;
}
/** Applies events in order (each must change the record). */
const apply = (record: AskRecord, events: [AskEvent, number][]) =>
  events.reduce((r, [e, at]) => changed(transition(r, e, at)).record, record);
const sent = (record: AskRecord, ...indexes: number[]) =>
  apply(
    record,
    indexes.map((index): [AskEvent, number] => [
      { type: 'delivered', index, message: { chat: record.deliveries[index]!.chat, messageId: `m${index}` } },
      T0 + 1,
    ]),
  );
const tap = (by: Responder, label: string, chat?: string): AskEvent => ({
  type: 'answer',
  answers: { env: [label] },
  by,
  ...(chat ? { chat } : {}),
});

const fanOut = {
  to: [
    { channel: 'telegram', chat: '42', users: ['alice'] },
    { channel: 'slack', chat: 'C1' },
    { channel: 'telegram', chat: '43', users: ['carol'] },
  ],
};

describe('several targets', () => {
  it('delivers to each target, keeps `to` as the first and copies users onto each delivery', () => {
    const record = ask(fanOut);
    expect(record.to).toEqual(fanOut.to[0]);
    expect(record.targets).toEqual(fanOut.to);
    expect(record.deliveries.map((d) => [d.channel, d.chat, d.users, d.status])).toEqual([
      ['telegram', '42', ['alice'], 'pending'],
      ['slack', 'C1', undefined, 'pending'],
      ['telegram', '43', ['carol'], 'pending'],
    ]);
    expect(jobsFor(record)).toEqual([0, 1, 2].map((index) => ({ kind: 'deliver', index })));
    expect(AskRecordSchema.parse(JSON.parse(JSON.stringify(record)))).toEqual(record);
  });

  it('checks who may answer per delivery: the chat, then its users; no delivery on a channel refuses', () => {
    const record = ask(fanOut);
    expect(mayAnswer(record, alice, '42')).toBe(true);
    expect(mayAnswer(record, alice, '43')).toBe(false);
    expect(mayAnswer(record, carol, '43')).toBe(true);
    expect(mayAnswer(record, carol)).toBe(true);
    expect(mayAnswer(record, { channel: 'telegram', userId: 'mallory' })).toBe(false);
    expect(mayAnswer(record, { channel: 'slack', userId: 'anyone' }, 'C1')).toBe(true);
    expect(mayAnswer(record, { channel: 'slack', userId: 'anyone' }, 'C9')).toBe(false);
    expect(mayAnswer(record, { channel: 'discord', userId: 'alice' })).toBe(false);
    expect(mayAnswer(record, { channel: 'api', userId: 'ops' })).toBe(true);
    expect(transition(record, tap(alice, 'Staging', '43'), T0 + 5).outcome).toEqual({ code: 'forbidden' });
  });

  it('ends undelivered only when every target failed', () => {
    let record = ask(fanOut);
    record = apply(record, [
      [{ type: 'delivery_failed', index: 0, error: 'x' }, T0 + 1],
      [{ type: 'delivery_failed', index: 2, error: 'x' }, T0 + 1],
    ]);
    expect(record.status).toBe('pending');
    record = apply(record, [[{ type: 'delivery_failed', index: 1, error: 'x' }, T0 + 2]]);
    expect(record.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
  });

  it('stays pending when every target failed but an escalation step is still to come', () => {
    const record = apply(
      ask({
        to: { channel: 'telegram', chat: '42' },
        escalate: [{ afterSeconds: 60, to: { channel: 'slack', chat: 'C1' } }],
      }),
      [[{ type: 'delivery_failed', index: 0, error: 'x' }, T0 + 1]],
    );
    expect(record.status).toBe('pending');
    const escalated = apply(record, [[{ type: 'escalate', n: 1 }, T0 + 60_000]]);
    const failed = apply(escalated, [[{ type: 'delivery_failed', index: 1, error: 'x' }, T0 + 61_000]]);
    expect(failed.result).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
  });

  it('the first valid answer wins; later taps anywhere are already_resolved', () => {
    const record = sent(ask(fanOut), 0, 1, 2);
    const won = changed(transition(record, tap(bob, 'Staging', 'C1'), T0 + 10));
    expect(won.record.result).toMatchObject({ status: 'answered', answeredBy: bob });
    expect(transition(won.record, tap(alice, 'Production', '42'), T0 + 11).outcome).toEqual({
      code: 'already_resolved',
    });
    expect(followUp(record, won.record, won.effects).filter((e) => e.type === 'enqueue')).toEqual(
      [0, 1, 2].map((index) => ({ type: 'enqueue', job: { kind: 'finalize', index } })),
    );
  });
});

const reminders = { to: fanOut.to.slice(0, 2), remindAfterSeconds: [60, 300] };

describe('reminders', () => {
  it('are scheduled at creation with the timeout and every escalation step', () => {
    const request = AskRequestSchema.parse({
      runId: 'r1',
      questions: [env],
      ...reminders,
      escalate: [{ afterSeconds: 120, to: { channel: 'discord', chat: '9' } }],
    });
    const { effects } = createAsk(request, 'id', 1, 900, T0);
    expect(effects.filter((e) => e.type === 'schedule')).toEqual([
      { type: 'schedule', step: 'timeout', at: DEADLINE },
      { type: 'schedule', step: 'remind-1', at: T0 + 60_000 },
      { type: 'schedule', step: 'remind-2', at: T0 + 300_000 },
      { type: 'schedule', step: 'escalate-1', at: T0 + 120_000 },
    ]);
  });

  it('fire once, for every sent message, and are noted per message', () => {
    const record = sent(ask(reminders), 0);
    const fired = changed(transition(record, { type: 'remind', n: 1 }, T0 + 60_000));
    expect(fired.record.reminded).toBe(1);
    expect(fired.record.history.at(-1)).toMatchObject({ type: 'reminded' });
    expect(fired.effects).toEqual([{ type: 'enqueue', job: { kind: 'remind', index: 0, n: 1 } }]);
    expect(followUp(record, fired.record, fired.effects)).toEqual(fired.effects);
    expect(transition(fired.record, { type: 'remind', n: 1 }, T0 + 61_000)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'updated' },
    });
    // The reconciler re-queues a reminder whose job was lost until the message shows it.
    expect(jobsFor(fired.record)).toContainEqual({ kind: 'remind', index: 0, n: 1 });
    const posted = apply(fired.record, [[{ type: 'reminder_posted', index: 0, n: 1 }, T0 + 62_000]]);
    expect(jobsFor(posted).filter((j) => j.kind === 'remind')).toEqual([]);
    expect(transition(posted, { type: 'reminder_posted', index: 0, n: 1 }, T0 + 63_000).kind).toBe('unchanged');
    // A message sent after the reminder fired does not get it.
    const late = sent(posted, 1);
    expect(late.deliveries[1]!.reminded).toBe(1);
    expect(jobsFor(late).filter((j) => j.kind === 'remind')).toEqual([]);
  });

  it('never fire early, at or after the deadline, or for an ended ask', () => {
    const record = sent(ask(reminders), 0);
    expect(transition(record, { type: 'remind', n: 1 }, T0 + 59_999).kind).toBe('unchanged');
    expect(transition(record, { type: 'remind', n: 2 }, DEADLINE).kind).toBe('unchanged');
    const ended = apply(record, [[{ type: 'cancel' }, T0 + 10]]);
    expect(transition(ended, { type: 'remind', n: 1 }, T0 + 60_000).outcome).toEqual({ code: 'already_resolved' });
    expect(transition(record, { type: 'remind', n: 3 }, T0 + 600_000).outcome.code).toBe('invalid');
  });

  it('an ended ask unschedules the steps that did not fire', () => {
    const record = apply(sent(ask(reminders), 0), [[{ type: 'remind', n: 1 }, T0 + 60_000]]);
    const ended = changed(transition(record, { type: 'cancel' }, T0 + 70_000));
    expect(ended.effects.filter((e) => e.type === 'unschedule')).toEqual([
      { type: 'unschedule', step: 'timeout' },
      { type: 'unschedule', step: 'remind-2' },
    ]);
    expect(jobsFor(ended.record).filter((j) => j.kind === 'remind')).toEqual([]);
  });
});

const escalation = {
  to: { channel: 'telegram', chat: '42', users: ['alice'] },
  escalate: [
    {
      afterSeconds: 120,
      to: [
        { channel: 'slack', chat: 'C1', users: ['U2'] },
        { channel: 'discord', chat: '9' },
      ],
    },
    { afterSeconds: 240, to: { channel: 'telegram', chat: '43' } },
  ],
};

describe('escalation', () => {
  it('adds the step’s deliveries (step n, users kept) once; their deliver jobs follow; earlier messages stay answerable', () => {
    const record = sent(ask(escalation), 0);
    expect(mayAnswer(record, bob)).toBe(false);
    const fired = changed(transition(record, { type: 'escalate', n: 1 }, T0 + 120_000));
    expect(fired.record.escalated).toBe(1);
    expect(fired.record.deliveries.slice(1)).toEqual([
      { channel: 'slack', chat: 'C1', users: ['U2'], step: 1, status: 'pending', finalized: 'no' },
      { channel: 'discord', chat: '9', step: 1, status: 'pending', finalized: 'no' },
    ]);
    expect(fired.record.history.at(-1)).toMatchObject({ type: 'escalated', detail: 'step 1: slack, discord' });
    expect(followUp(record, fired.record, fired.effects)).toEqual([
      { type: 'enqueue', job: { kind: 'deliver', index: 1 } },
      { type: 'enqueue', job: { kind: 'deliver', index: 2 } },
    ]);
    expect(transition(fired.record, { type: 'escalate', n: 1 }, T0 + 130_000).kind).toBe('unchanged');
    expect(mayAnswer(fired.record, bob, 'C1')).toBe(true);
    expect(changed(transition(fired.record, tap(alice, 'Staging', '42'), T0 + 121_000)).record.status).toBe('answered');
  });
});

describe('onTimeout.default', () => {
  const record = ask({ to: { channel: 'telegram', chat: '42' }, onTimeout: { default: { env: ['staging'] } } });

  it('a timeout ends no_answer/timeout and carries the defaults (never as answers)', () => {
    const ended = changed(transition(record, { type: 'timeout' }, DEADLINE));
    expect(ended.record.result).toEqual({
      status: 'no_answer',
      reason: 'timeout',
      at: iso(DEADLINE),
      defaults: { env: ['Staging'] },
      values: { env: ['Staging'] },
    });
  });

  it('an answer after the deadline ends it the same way', () => {
    const late = changed(transition(record, tap(alice, 'Production'), DEADLINE + 1));
    expect(late.outcome).toEqual({ code: 'expired' });
    expect(late.record.result).toMatchObject({ reason: 'timeout', defaults: { env: ['Staging'] } });
  });

  it('other endings carry no defaults', () => {
    expect(changed(transition(record, { type: 'cancel' }, T0 + 1)).record.result).not.toHaveProperty('defaults');
    expect(changed(transition(record, { type: 'skip', by: alice }, T0 + 1)).record.result).not.toHaveProperty(
      'defaults',
    );
  });
});

const twoOf = {
  to: [
    { channel: 'telegram', chat: '42' },
    { channel: 'slack', chat: 'C1' },
  ],
  agree: 2,
};

describe('agree', () => {
  it('stays open until 2 people give the same answers; the result lists every response', () => {
    let record = sent(ask(twoOf), 0, 1);
    const first = changed(transition(record, tap(alice, 'Production'), T0 + 10));
    expect(first.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    expect(first.effects).toEqual([0, 1].map((index) => ({ type: 'enqueue', job: { kind: 'refresh', index } })));
    expect(first.record.history.at(-1)).toEqual({
      type: 'response',
      channel: 'telegram',
      userId: 'alice',
      at: iso(T0 + 10),
    });
    const second = changed(transition(first.record, tap(bob, 'Staging'), T0 + 20));
    expect(second.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    record = second.record;
    const third = changed(transition(record, tap(carol, ' production '), T0 + 30));
    expect(third.outcome).toEqual({ code: 'resolved' });
    expect(third.record.result).toEqual({
      status: 'answered',
      answers: { env: ['Production'] },
      values: { env: ['Production'] },
      answeredBy: carol,
      answeredAt: iso(T0 + 30),
      responses: [
        { answers: { env: ['Production'] }, answeredBy: alice, answeredAt: iso(T0 + 10) },
        { answers: { env: ['Staging'] }, answeredBy: bob, answeredAt: iso(T0 + 20) },
        { answers: { env: ['Production'] }, answeredBy: carol, answeredAt: iso(T0 + 30) },
      ],
    });
    expect(transition(third.record, tap(bob, 'Production'), T0 + 40).outcome).toEqual({ code: 'already_resolved' });
  });

  it('one person is one response: tapping twice never agrees with oneself, a new answer replaces theirs', () => {
    const record = sent(ask(twoOf), 0, 1);
    const twice = apply(record, [
      [tap(alice, 'Production'), T0 + 10],
      [tap(alice, 'Production'), T0 + 11],
    ]);
    expect(twice.status).toBe('pending');
    expect(twice.responses).toHaveLength(1);
    const changedMind = apply(twice, [[tap(alice, 'Staging'), T0 + 12]]);
    expect(changedMind.responses).toEqual([
      { answers: { env: ['Staging'] }, answeredBy: alice, answeredAt: iso(T0 + 12) },
    ]);
    // The same user id on another channel is another person.
    const other = changed(transition(changedMind, tap({ channel: 'slack', userId: 'alice' }, 'Staging'), T0 + 13));
    expect(other.record.status).toBe('answered');
  });

  it('refuses a skip (a skip is nobody’s answer) and refuses people outside the users lists', () => {
    const record = sent(ask({ ...twoOf, to: [{ channel: 'telegram', chat: '42', users: ['alice', 'carol'] }] }), 0);
    expect(transition(record, { type: 'skip', by: alice }, T0 + 1).outcome).toEqual({
      code: 'invalid',
      issues: [{ path: ['skip'], message: 'This question needs 2 matching answers: tap an option.' }],
    });
    expect(transition(record, tap({ channel: 'telegram', userId: 'mallory' }, 'Production'), T0 + 1).outcome).toEqual({
      code: 'forbidden',
    });
  });

  it('keeps partial answers per person until their response answers every question', () => {
    const checks = {
      id: 'checks',
      question: 'Checks?',
      options: [{ label: 'Lint' }, { label: 'Tests' }],
      multiSelect: true,
    };
    const record = sent(ask(twoOf, [env, checks]), 0);
    const part = changed(transition(record, { type: 'answer', answers: { env: ['Production'] }, by: alice }, T0 + 1));
    expect(part.outcome).toEqual({ code: 'partial', missing: ['checks'] });
    expect(part.record.partials).toEqual({ 'telegram:alice': { env: ['Production'] } });
    expect(part.record.responses ?? []).toEqual([]);
    // Bob's own words are not alice's partial.
    const bobPart = changed(
      transition(part.record, { type: 'answer', answers: { checks: ['tests', 'lint'] }, by: bob }, T0 + 2),
    );
    expect(bobPart.outcome).toEqual({ code: 'partial', missing: ['env'] });
    const aliceDone = changed(
      transition(bobPart.record, { type: 'answer', answers: { checks: ['Lint', 'Tests'] }, by: alice }, T0 + 3),
    );
    expect(aliceDone.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    expect(aliceDone.record.partials).toEqual({ 'slack:U2': { checks: ['Tests', 'Lint'] } });
    // Same answers in another order agree.
    const bobDone = changed(
      transition(aliceDone.record, { type: 'answer', answers: { env: ['production'] }, by: bob }, T0 + 4),
    );
    expect(bobDone.outcome).toEqual({ code: 'resolved' });
    expect(bobDone.record.result).toMatchObject({
      answers: { env: ['Production'], checks: ['Tests', 'Lint'] },
      answeredBy: bob,
    });
  });

  it('a timeout carries the responses so far (and the defaults)', () => {
    const record = apply(sent(ask({ ...twoOf, onTimeout: { default: { env: ['Staging'] } } }), 0), [
      [tap(alice, 'Production'), T0 + 1],
    ]);
    expect(changed(transition(record, { type: 'timeout' }, DEADLINE)).record.result).toEqual({
      status: 'no_answer',
      reason: 'timeout',
      at: iso(DEADLINE),
      defaults: { env: ['Staging'] },
      values: { env: ['Staging'] },
      responses: [{ answers: { env: ['Production'] }, answeredBy: alice, answeredAt: iso(T0 + 1) }],
    });
  });

  it('person keys never touch Object.prototype (a user id "__proto__")', () => {
    const record = sent(
      ask({ ...twoOf, to: [{ channel: 'telegram', chat: '42' }] }, [
        env,
        { id: 'b', question: 'B?', options: [{ label: 'X' }, { label: 'Y' }] },
      ]),
      0,
    );
    const hostile = { channel: 'telegram', userId: '__proto__' };
    const part = changed(transition(record, { type: 'answer', answers: { env: ['Production'] }, by: hostile }, T0 + 1));
    expect(Object.keys(part.record.partials!)).toEqual(['telegram:__proto__']);
    expect(Object.getPrototypeOf(part.record.partials)).toBe(Object.prototype);
    expect(AskRecordSchema.parse(JSON.parse(JSON.stringify(part.record))).partials).toEqual(part.record.partials);
  });
});

describe('the reconciler (workFor)', () => {
  const record = sent(
    ask({ ...reminders, escalate: [{ afterSeconds: 120, to: { channel: 'discord', chat: '9' } }] }),
    0,
    1,
  );
  const kinds = (effects: Effect[]) =>
    effects.map((e) => ('step' in e ? `${e.type} ${e.step}` : e.type === 'resweep' ? `resweep ${e.at - T0}` : e.type));

  it('re-schedules future steps and looks again when the next one would be lost', () => {
    expect(kinds(workFor(record, T0 + 1_000, settings))).toEqual([
      'schedule timeout',
      'schedule remind-1',
      'schedule remind-2',
      'schedule escalate-1',
      'resweep 90000',
    ]);
  });

  it('runs lost steps (past their time + grace) in order, once each', () => {
    expect(kinds(workFor(record, T0 + 200_000, settings))).toEqual([
      'due remind-1',
      'due escalate-1',
      'schedule timeout',
      'schedule remind-2',
      'resweep 210000',
    ]);
    const fired = apply(record, [
      [{ type: 'remind', n: 1 }, T0 + 200_000],
      [{ type: 'escalate', n: 1 }, T0 + 200_000],
    ]);
    const again = workFor(fired, T0 + 200_001, settings);
    expect(kinds(again).filter((k) => k.startsWith('due'))).toEqual([]);
    // ... and the jobs their commits needed, should those enqueues have been lost.
    expect(again.filter((e) => e.type === 'enqueue')).toEqual([
      { type: 'enqueue', job: { kind: 'deliver', index: 2 } },
      { type: 'enqueue', job: { kind: 'remind', index: 0, n: 1 } },
      { type: 'enqueue', job: { kind: 'remind', index: 1, n: 1 } },
    ]);
  });

  it('fires nothing for an ended ask', () => {
    const ended = apply(record, [[{ type: 'cancel' }, T0 + 1]]);
    expect(workFor(ended, T0 + 600_000, settings).filter((e) => e.type === 'due' || e.type === 'schedule')).toEqual([]);
  });
});
