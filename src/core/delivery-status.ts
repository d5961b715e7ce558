// What the platform later says of a message askgate sent (a WhatsApp status webhook): `failed`
// fails a sent delivery (the ask ends `undelivered` once every target failed), `delivered` and
// `read` are noted once each. Pure: the shell finds the ask by the message binding and commits.
import type { AskRecord } from './schemas.js';
import type { AskEvent, TransitionResult } from './ask-events.js';
import { withDeliveries } from './delivery-bookkeeping.js';

/** A status reported for a sent message (`sent` is what askgate recorded itself: no event). */
export type StatusReported = Extract<AskEvent, { type: 'delivery_status' }>;

/** How far a message got, in order: a status that does not go further changes nothing. */
const REACHED_RANK = { delivered: 1, read: 2 } as const;

/** Longest failure reason kept on the delivery and in its history entry. */
export const STATUS_REASON_MAX = 80;

/**
 * Applies a reported status to the delivery whose message it names (channel, chat and message id);
 * a message of no delivery (a notice, an outcome reply, another ask's) changes nothing.
 *
 * | delivery             | `failed`                                   | `delivered` / `read`                       |
 * | -------------------- | ------------------------------------------ | ------------------------------------------ |
 * | `sent`               | `failed` with the reason, `delivery_failed` | `reached` moves on, one `delivery_status`  |
 * | `sent`, reached ≥ it | (as above)                                 | unchanged (a re-sent webhook, or late)      |
 * | `pending`, `failed`  | unchanged                                  | unchanged                                  |
 *
 * The ask's state is no part of it (a terminal ask still records how its message fared); a failure
 * that leaves every delivery failed ends an open ask `undelivered`, as a failed send does.
 */
export function deliveryStatus(record: AskRecord, event: StatusReported, now: number): TransitionResult {
  const index = record.deliveries.findIndex(
    (d) => d.channel === event.channel && d.chat === event.chat && d.message?.messageId === event.messageId,
  );
  const current = record.deliveries[index];
  if (!current || current.status !== 'sent') return { kind: 'unchanged', outcome: { code: 'updated' } };
  const deliveries = [...record.deliveries];
  if (event.status === 'failed') {
    const error = (event.reason ?? 'failed').slice(0, STATUS_REASON_MAX);
    const { reached: _reached, ...rest } = current;
    deliveries[index] = { ...rest, status: 'failed', error };
    return withDeliveries(
      record,
      deliveries,
      { type: 'delivery_failed', channel: current.channel, detail: error },
      now,
    );
  }
  if ((current.reached ? REACHED_RANK[current.reached] : 0) >= REACHED_RANK[event.status])
    return { kind: 'unchanged', outcome: { code: 'updated' } };
  deliveries[index] = { ...current, reached: event.status };
  const entry = { type: 'delivery_status' as const, channel: current.channel, detail: event.status };
  return withDeliveries(record, deliveries, entry, now);
}
