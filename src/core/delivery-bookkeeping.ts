import type { AskRecord, HistoryEntry } from './schemas.js';
import type { AskEvent, TransitionResult } from './lifecycle.js';
import { end } from './ask-ending.js';
import { withHistory } from './record-history.js';
import { isTerminal } from './record-state.js';

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
    deliveries[event.index] = { ...current, status: 'sent', message: event.message, error: undefined };
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
  const next = withHistory({ ...record, rev: record.rev + 1, deliveries }, [entry], now);
  const allFailed = deliveries.length > 0 && deliveries.every((d) => d.status === 'failed');
  if (!isTerminal(next) && allFailed) {
    const ended = end(next, 'undelivered', now);
    if (ended.kind === 'changed') return { ...ended, record: { ...ended.record, rev: record.rev + 1 } };
  }
  return { kind: 'changed', record: next, effects: [], outcome: { code: 'updated' } };
}
