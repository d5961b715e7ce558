import type { AskRecord, HistoryEntry } from './schemas.js';
import type { AskEvent, TransitionResult } from './ask-events.js';
import { end } from './ask-ending.js';
import { withHistory } from './record-history.js';
import { isTerminal } from './record-state.js';
import { askKind } from './insights.js';
import type { Effect } from './effects.js';

type Bookkeeping = Extract<AskEvent, { type: 'delivered' | 'delivery_failed' | 'finalized' }>;

/** Delivery and finalization bookkeeping; the only changes a terminal record still takes. */
export function bookkeeping(record: AskRecord, event: Bookkeeping, now: number): TransitionResult {
  const current = record.deliveries[event.index];
  if (!current)
    return {
      kind: 'unchanged',
      outcome: { code: 'invalid', issues: [{ path: ['index'], message: 'no such delivery' }] },
    };
  const deliveries = [...record.deliveries];
  let entry: Omit<HistoryEntry, 'at'>;
  if (event.type === 'delivered') {
    if (current.status === 'sent') return { kind: 'unchanged', outcome: { code: 'updated' } };
    // A message sent after a reminder fired does not get that reminder (it is new itself).
    const reminded = record.reminded ? { reminded: record.reminded } : {};
    deliveries[event.index] = { ...current, status: 'sent', message: event.message, error: undefined, ...reminded };
    entry = { type: 'delivered', channel: current.channel, messageId: event.message.messageId };
  } else if (event.type === 'delivery_failed') {
    if (current.status !== 'pending') return { kind: 'unchanged', outcome: { code: 'updated' } };
    deliveries[event.index] = { ...current, status: 'failed', error: event.error };
    entry = { type: 'delivery_failed', channel: current.channel, detail: event.error };
  } else {
    if (current.finalized !== 'no') return { kind: 'unchanged', outcome: { code: 'updated' } };
    deliveries[event.index] = { ...current, finalized: event.ok ? 'done' : 'failed' };
    entry = { type: event.ok ? 'finalized' : 'finalize_failed', channel: current.channel };
  }
  const seconds = Math.max(0, (now - Date.parse(record.createdAt)) / 1000);
  const metric = { name: 'ask_delivered', channel: current.channel, kind: askKind(record), seconds } as const;
  const effects: Effect[] = event.type === 'delivered' ? [{ type: 'metric', metric }] : [];
  return withDeliveries(record, deliveries, entry, now, effects);
}

/**
 * `record` with its deliveries replaced and `entry` in its history, one revision on; it ends
 * `undelivered` when every target has failed and no escalation step is left to add more;
 * `effects` go with the change (the time-to-deliver metric of a delivery).
 */
export function withDeliveries(
  record: AskRecord,
  deliveries: AskRecord['deliveries'],
  entry: Omit<HistoryEntry, 'at'>,
  now: number,
  effects: Effect[] = [],
): TransitionResult {
  const next = withHistory({ ...record, rev: record.rev + 1, deliveries }, [entry], now);
  const allFailed = deliveries.length > 0 && deliveries.every((d) => d.status === 'failed');
  const stepsLeft = (record.policy?.escalate?.length ?? 0) > (record.escalated ?? 0);
  if (!isTerminal(next) && allFailed && !stepsLeft) {
    const ended = end(next, 'undelivered', now);
    if (ended.kind === 'changed') return { ...ended, record: { ...ended.record, rev: record.rev + 1 } };
  }
  return { kind: 'changed', record: next, effects, outcome: { code: 'updated' } };
}
