// The rule for statuses a platform reports after a send (core/delivery-status.ts), as a table:
// each row a delivery as it stands, the status reported, and what becomes of the delivery and the ask.
import { describe, expect, it } from 'vitest';
import { askRecord, T0, iso } from '../helpers/records.js';
import { transition, type AskEvent, type TransitionResult } from '../../src/core/lifecycle.js';
import type { AskRecord, Delivery } from '../../src/core/schemas.js';

const NOW = T0 + 5_000;
const question = {
  id: 'env',
  question: 'Where?',
  options: [{ label: 'Staging' }, { label: 'Prod' }],
  multiSelect: false,
};

/** A WhatsApp delivery to `chat` whose message is `wamid.<n>` once sent. */
const wa = (status: Delivery['status'], n = 1, extra: Partial<Delivery> = {}): Delivery => ({
  channel: 'whatsapp',
  chat: '+15551234567',
  status,
  finalized: 'no',
  ...(status !== 'pending' ? { message: { chat: '+15551234567', messageId: `wamid.${n}` } } : {}),
  ...extra,
});
const tg = (status: Delivery['status']): Delivery => ({
  channel: 'telegram',
  chat: '42',
  status,
  finalized: 'no',
  ...(status === 'sent' ? { message: { chat: '42', messageId: '9' } } : {}),
});
const rec = (deliveries: Delivery[], over: Partial<AskRecord> = {}) =>
  askRecord([question], { rev: 3, deliveries, ...over });
const status = (
  s: 'delivered' | 'read' | 'failed',
  n = 1,
  reason?: string,
  where: { channel?: string; chat?: string } = {},
): AskEvent => ({
  type: 'delivery_status',
  channel: where.channel ?? 'whatsapp',
  chat: where.chat ?? '+15551234567',
  messageId: `wamid.${n}`,
  status: s,
  ...(reason ? { reason } : {}),
});

function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(frozen);
    Object.freeze(value);
  }
  return value;
}
const changed = (r: TransitionResult): AskRecord => {
  if (r.kind !== 'changed') throw new Error(`expected a change, got ${JSON.stringify(r.outcome)}`);
  return r.record;
};

const answered = (deliveries: Delivery[]) =>
  rec(deliveries, {
    status: 'answered',
    result: {
      status: 'answered',
      answers: { env: ['Prod'] },
      answeredBy: { channel: 'whatsapp', userId: '+15551234567' },
      answeredAt: iso(T0 + 1000),
    },
  });

describe('delivery status: the rule table', () => {
  // name | record | event | the delivery after | the history entry added | the ask's status after
  it.each<[string, AskRecord, AskEvent, Partial<Delivery>, object, 'pending' | 'answered' | 'no_answer']>([
    [
      'failed on the only sent delivery: failed with the reason, the ask undelivered at once',
      rec([wa('sent')]),
      status('failed', 1, 'window_closed'),
      { status: 'failed', error: 'window_closed' },
      { type: 'no_answer', reason: 'undelivered' },
      'no_answer',
    ],
    [
      'failed next to a sent Telegram delivery: failed, the ask stays pending',
      rec([wa('sent'), tg('sent')]),
      status('failed', 1, 'window_closed'),
      { status: 'failed', error: 'window_closed' },
      { type: 'delivery_failed', channel: 'whatsapp', detail: 'window_closed' },
      'pending',
    ],
    [
      'failed, the other delivery already failed: undelivered',
      rec([tg('failed'), wa('sent')]),
      status('failed', 1, 'error 131026: Message undeliverable'),
      { status: 'failed', error: 'error 131026: Message undeliverable' },
      { type: 'no_answer', reason: 'undelivered' },
      'no_answer',
    ],
    [
      'failed with an escalation step left: failed, the ask waits for the step',
      rec([wa('sent')], { policy: { escalate: [{ afterSeconds: 60, to: [{ channel: 'telegram', chat: '42' }] }] } }),
      status('failed', 1, 'window_closed'),
      { status: 'failed', error: 'window_closed' },
      { type: 'delivery_failed', channel: 'whatsapp', detail: 'window_closed' },
      'pending',
    ],
    [
      'failed after read: failed, how far it got forgotten',
      rec([wa('sent', 1, { reached: 'read' })]),
      status('failed', 1),
      { status: 'failed', error: 'failed' },
      { type: 'no_answer', reason: 'undelivered' },
      'no_answer',
    ],
    [
      'failed on an answered ask: the delivery failed, the answer stands',
      answered([wa('sent')]),
      status('failed', 1, 'window_closed'),
      { status: 'failed', error: 'window_closed' },
      { type: 'delivery_failed', channel: 'whatsapp', detail: 'window_closed' },
      'answered',
    ],
    [
      'a long reason is cut to 80 characters',
      rec([wa('sent'), tg('sent')]),
      status('failed', 1, 'x'.repeat(300)),
      { status: 'failed', error: 'x'.repeat(80) },
      { type: 'delivery_failed', detail: 'x'.repeat(80) },
      'pending',
    ],
    [
      'delivered: noted once',
      rec([wa('sent')]),
      status('delivered'),
      { status: 'sent', reached: 'delivered' },
      { type: 'delivery_status', channel: 'whatsapp', detail: 'delivered' },
      'pending',
    ],
    [
      'read after delivered: noted',
      rec([wa('sent', 1, { reached: 'delivered' })]),
      status('read'),
      { status: 'sent', reached: 'read' },
      { type: 'delivery_status', channel: 'whatsapp', detail: 'read' },
      'pending',
    ],
    [
      'read first (delivered came late or never): noted',
      rec([wa('sent')]),
      status('read'),
      { status: 'sent', reached: 'read' },
      { type: 'delivery_status', detail: 'read' },
      'pending',
    ],
    [
      'read on an answered ask: still noted',
      answered([wa('sent', 1, { reached: 'delivered' })]),
      status('read'),
      { status: 'sent', reached: 'read' },
      { type: 'delivery_status', detail: 'read' },
      'answered',
    ],
    [
      'the second of two WhatsApp deliveries: only its own',
      rec([
        wa('sent', 1),
        wa('sent', 2, { chat: '+15559876543', message: { chat: '+15559876543', messageId: 'wamid.2' } }),
      ]),
      status('delivered', 2, undefined, { chat: '+15559876543' }),
      { chat: '+15559876543', reached: 'delivered' },
      { type: 'delivery_status', detail: 'delivered' },
      'pending',
    ],
  ])('%s', (_name, record, event, delivery, entry, askStatus) => {
    const result = transition(frozen(record), event, NOW);
    const next = changed(result);
    expect(next.rev).toBe(record.rev + 1);
    const index = next.deliveries.findIndex((x) => x.message?.messageId === (event as { messageId: string }).messageId);
    expect(next.deliveries[index]).toMatchObject(delivery);
    if (record.deliveries[index]!.reached && delivery.status === 'failed')
      expect(next.deliveries[index]).not.toHaveProperty('reached');
    // The other deliveries are as they were.
    next.deliveries.forEach((x, i) => i !== index && expect(x).toEqual(record.deliveries[i]));
    expect(next.history.at(-1)).toMatchObject({ ...entry, at: iso(NOW) });
    expect(next.status).toBe(askStatus);
    if (askStatus === 'no_answer' && record.status === 'pending') {
      expect(next.history.at(-2)).toMatchObject({ type: 'delivery_failed', channel: 'whatsapp' });
      expect(next.result).toEqual({ status: 'no_answer', reason: 'undelivered', at: iso(NOW) });
      expect(result).toMatchObject({ outcome: { code: 'resolved' } });
      expect((result as { effects: { type: string }[] }).effects.map((e) => e.type)).toContain('publish');
    } else expect(result).toMatchObject({ effects: [], outcome: { code: 'updated' } });
  });

  it.each<[string, AskRecord, AskEvent]>([
    ['delivered again (a re-sent webhook)', rec([wa('sent', 1, { reached: 'delivered' })]), status('delivered')],
    ['read again', rec([wa('sent', 1, { reached: 'read' })]), status('read')],
    ['delivered after read (out of order)', rec([wa('sent', 1, { reached: 'read' })]), status('delivered')],
    ['failed again', rec([wa('failed', 1, { error: 'window_closed' })]), status('failed', 1, 'window_closed')],
    ['delivered after it failed', rec([wa('failed', 1, { error: 'window_closed' })]), status('delivered')],
    ['a message of no delivery (a notice, an outcome reply)', rec([wa('sent')]), status('failed', 7)],
    ['the right id in another chat', rec([wa('sent')]), status('failed', 1, 'x', { chat: '+15550000000' })],
    ['the right id on another channel', rec([wa('sent')]), status('failed', 1, 'x', { channel: 'telegram' })],
    ['a delivery still pending (no message yet)', rec([wa('pending')]), status('failed')],
    ['no deliveries at all (an API-only ask)', rec([]), status('read')],
  ])('changes nothing: %s', (_name, record, event) => {
    expect(transition(frozen(record), event, NOW)).toEqual({ kind: 'unchanged', outcome: { code: 'updated' } });
  });

  it('a failure reported by the platform keeps its reason, never more than the short code', () => {
    const next = changed(transition(rec([wa('sent'), tg('sent')]), status('failed', 1, 'window_closed'), NOW));
    expect(JSON.stringify(next.history.at(-1))).toBe(
      JSON.stringify({ type: 'delivery_failed', channel: 'whatsapp', detail: 'window_closed', at: iso(NOW) }),
    );
  });

  it('the outbox’s delivery_failed still leaves a sent delivery alone (a late failure of a retried send)', () => {
    const record = rec([wa('sent')]);
    expect(transition(record, { type: 'delivery_failed', index: 0, error: 'x' }, NOW)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'updated' },
    });
  });
});
