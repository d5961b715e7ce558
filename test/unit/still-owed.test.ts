import { describe, expect, it } from 'vitest';
import { askRecord, DEADLINE, T0, iso } from '../helpers/records.js';
import type { Job } from '../../src/core/effects.js';
import type { AskRecord, Delivery } from '../../src/core/schemas.js';
import { stillOwed } from '../../src/core/work.js';

const d = (status: Delivery['status'], over: Partial<Delivery> = {}): Delivery => ({
  channel: 'telegram',
  chat: '42',
  status,
  finalized: 'no',
  ...(status === 'sent' ? { message: { chat: '42', messageId: '7' } } : {}),
  ...over,
});
const q = [
  { id: 'env', question: 'Which env?', options: [{ label: 'Prod' }, { label: 'Staging' }], multiSelect: false },
];
const open = (over: Partial<AskRecord> = {}) => askRecord(q, over);
const ended = (over: Partial<AskRecord> = {}) =>
  open({
    status: 'answered',
    result: {
      status: 'answered',
      answers: { env: ['Prod'] },
      answeredBy: { channel: 'api', userId: 'ops' },
      answeredAt: iso(T0),
    },
    ...over,
  });
const hook = 'https://hooks.example.com/a';
const now = T0 + 1000;

describe('stillOwed: an outbox job acts only while jobsFor still lists it', () => {
  const rows: [string, AskRecord, Job, number, boolean][] = [
    ['a pending delivery is owed', open({ deliveries: [d('pending')] }), { kind: 'deliver', index: 0 }, now, true],
    [
      'a pending delivery of an ended ask is owed (it is marked failed)',
      ended({ deliveries: [d('pending')] }),
      { kind: 'deliver', index: 0 },
      now,
      true,
    ],
    ['a sent delivery is not sent again', open({ deliveries: [d('sent')] }), { kind: 'deliver', index: 0 }, now, false],
    [
      'a failed delivery is not tried again',
      open({ deliveries: [d('failed')] }),
      { kind: 'deliver', index: 0 },
      now,
      false,
    ],
    ['no such delivery', open({ deliveries: [] }), { kind: 'deliver', index: 0 }, now, false],
    [
      'the outcome edit of a sent message of an ended ask',
      ended({ deliveries: [d('sent')] }),
      { kind: 'finalize', index: 0 },
      now,
      true,
    ],
    [
      'no outcome edit while the ask is open',
      open({ deliveries: [d('sent')] }),
      { kind: 'finalize', index: 0 },
      now,
      false,
    ],
    [
      'no outcome edit twice',
      ended({ deliveries: [d('sent', { finalized: 'done' })] }),
      { kind: 'finalize', index: 0 },
      now,
      false,
    ],
    [
      'no outcome edit once given up',
      ended({ deliveries: [d('sent', { finalized: 'failed' })] }),
      { kind: 'finalize', index: 0 },
      now,
      false,
    ],
    [
      'no outcome edit of a message never sent',
      ended({ deliveries: [d('failed')] }),
      { kind: 'finalize', index: 0 },
      now,
      false,
    ],
    [
      'the webhook of an ended ask with a callbackUrl',
      ended({ callbackUrl: hook }),
      { kind: 'webhook', index: 0 },
      now,
      true,
    ],
    ['no webhook without a callbackUrl', ended(), { kind: 'webhook', index: 0 }, now, false],
    ['no webhook while the ask is open', open({ callbackUrl: hook }), { kind: 'webhook', index: 0 }, now, false],
    [
      'no webhook once delivered',
      ended({ callbackUrl: hook, history: [{ type: 'webhook_delivered', at: iso(T0) }] }),
      { kind: 'webhook', index: 0 },
      now,
      false,
    ],
    [
      'no webhook once given up',
      ended({ callbackUrl: hook, history: [{ type: 'webhook_failed', at: iso(T0) }] }),
      { kind: 'webhook', index: 0 },
      now,
      false,
    ],
    [
      'the fired reminder on a sent message',
      open({ reminded: 1, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      true,
    ],
    [
      'not a reminder that did not fire',
      open({ deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      false,
    ],
    [
      'not a reminder the message showed',
      open({ reminded: 1, deliveries: [d('sent', { reminded: 1 })] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      false,
    ],
    [
      'not a reminder on a message not sent',
      open({ reminded: 1, deliveries: [d('pending')] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      false,
    ],
    [
      'not an older reminder once a later one fired (the latest says the same)',
      open({ reminded: 2, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      false,
    ],
    [
      'not a reminder of an ended ask',
      ended({ reminded: 1, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      now,
      false,
    ],
    [
      'not a reminder at the deadline',
      open({ reminded: 1, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      DEADLINE,
      false,
    ],
    [
      'not a reminder in the last 250 ms before the deadline (it would land after the ask ended)',
      open({ reminded: 1, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      DEADLINE - 250,
      false,
    ],
    [
      'a reminder just before that cut-off',
      open({ reminded: 1, deliveries: [d('sent')] }),
      { kind: 'remind', index: 0, n: 1 },
      DEADLINE - 251,
      true,
    ],
    ['a refresh of an open sent message', open({ deliveries: [d('sent')] }), { kind: 'refresh', index: 0 }, now, true],
    [
      'no refresh of an ended ask (its outcome edit instead)',
      ended({ deliveries: [d('sent')] }),
      { kind: 'refresh', index: 0 },
      now,
      false,
    ],
    [
      'no refresh of a message not sent',
      open({ deliveries: [d('pending')] }),
      { kind: 'refresh', index: 0 },
      now,
      false,
    ],
  ];
  it.each(rows)('%s', (_, record, job, at, owed) => {
    expect(stillOwed(record, job, at)).toBe(owed);
  });
});
