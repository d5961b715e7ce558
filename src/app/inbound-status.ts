// Statuses the platforms report for messages askgate sent (WhatsApp's status webhooks): found by
// the message binding, then one core event committed through the gateway (core/delivery-status.ts).
import type { AskIndexes, DeliveryStatusEvent } from '../core/ports.js';
import type { Gateway } from './gateway.js';

/** What recording a status reads and commits through. */
export interface StatusDeps {
  gateway: Pick<Gateway, 'apply'>;
  indexes: Pick<AskIndexes, 'findByMessage'>;
}

/**
 * Records a reported status on the ask whose message it names. `sent` is what askgate recorded
 * itself when the send was accepted: nothing is read for it. Otherwise one binding read, then the
 * gateway's apply (from the kept copy when this process has one; a commit only when something
 * changes: a re-sent status, or one for a message of no delivery, such as a notice, commits nothing).
 * A message with no binding (an outcome reply, an unknown id) is ignored.
 */
export async function recordDeliveryStatus(deps: StatusDeps, event: DeliveryStatusEvent): Promise<void> {
  if (event.status === 'sent') return;
  const { channel, chat, messageId, status } = event;
  const askId = await deps.indexes.findByMessage({ channel, chat }, messageId);
  if (!askId) return;
  const reason = status === 'failed' && event.reason ? { reason: event.reason } : {};
  await deps.gateway.apply(askId, { type: 'delivery_status', channel, chat, messageId, status, ...reason });
}
