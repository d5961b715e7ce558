import { describe, expect, it } from 'vitest';
import { DEADLINE, T0 } from '../helpers/records.js';
import { askRecord } from '../helpers/records.js';
import type { Step } from '../../src/core/effects.js';
import { stepCall, type StepCall } from '../../src/core/step-due.js';
import type { AskRecord, Question } from '../../src/core/schemas.js';

const q: Question[] = [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'Yes' }, { label: 'No' }] }];
/** Reminders at +60 s and +120 s, one escalation step at +300 s. */
const policy = {
  remindAfterSeconds: [60, 120],
  escalate: [{ afterSeconds: 300, to: [{ channel: 'slack', chat: 'C1' }] }],
};
const pending = askRecord(q, { policy });
const ended = askRecord(q, {
  policy,
  status: 'no_answer',
  result: { status: 'no_answer', reason: 'cancelled', at: new Date(T0 + 1).toISOString() },
} as Partial<AskRecord>);

describe('stepCall: whether a step job applies its step now, waits, or has nothing to do', () => {
  const rows: [string, AskRecord, Step, number, StepCall][] = [
    [
      'the timeout before the deadline waits for it',
      pending,
      'timeout',
      DEADLINE - 1,
      { kind: 'wait', notBefore: DEADLINE },
    ],
    [
      'the timeout at the deadline applies',
      pending,
      'timeout',
      DEADLINE,
      { kind: 'apply', event: { type: 'timeout' } },
    ],
    [
      'the timeout after the deadline applies',
      pending,
      'timeout',
      DEADLINE + 5,
      { kind: 'apply', event: { type: 'timeout' } },
    ],
    ['a reminder before its time waits', pending, 'remind-1', T0 + 59_999, { kind: 'wait', notBefore: T0 + 60_000 }],
    [
      'a reminder at its time applies',
      pending,
      'remind-1',
      T0 + 60_000,
      { kind: 'apply', event: { type: 'remind', n: 1 } },
    ],
    [
      'the second reminder has its own time',
      pending,
      'remind-2',
      T0 + 60_000,
      { kind: 'wait', notBefore: T0 + 120_000 },
    ],
    [
      'an escalation step at its time applies',
      pending,
      'escalate-1',
      T0 + 300_000,
      { kind: 'apply', event: { type: 'escalate', n: 1 } },
    ],
    ['a step the policy lacks does nothing', pending, 'remind-3', T0 + 600_000, { kind: 'none' }],
    ['an escalation step the policy lacks does nothing', pending, 'escalate-2', DEADLINE, { kind: 'none' }],
    ['an ended ask needs no timeout', ended, 'timeout', DEADLINE + 5, { kind: 'none' }],
    ['an ended ask needs no reminder, even early', ended, 'remind-1', T0, { kind: 'none' }],
  ];
  it.each(rows)('%s', (_, record, step, now, expected) => {
    expect(stepCall(record, step, now)).toEqual(expected);
  });
});
