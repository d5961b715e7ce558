import type { AskRecord, Responder } from './schemas.js';

/** True once an ask is answered or ended without an answer; terminal records never change status. */
export function isTerminal(record: AskRecord): boolean {
  return record.status !== 'pending';
}

/** The ask's deadline in epoch ms. */
export function deadlineOf(record: AskRecord): number {
  return Date.parse(record.expiresAt);
}

/** True when `userId` may answer (no `users` list means anyone in the conversation). */
export function mayAnswer(record: AskRecord, by: Responder): boolean {
  if (by.channel === 'api' || by.channel === 'web') return true;
  const users = record.to?.users;
  return !users || users.includes(by.userId);
}

/** Indexes of deliveries whose message still needs its outcome edit. */
export function deliveriesToFinalize(record: AskRecord): number[] {
  if (!isTerminal(record)) return [];
  return record.deliveries.flatMap((d, i) => (d.status === 'sent' && d.finalized === 'no' ? [i] : []));
}

/** True when no delivery or finalization work is left for this record. */
export function isSettled(record: AskRecord): boolean {
  if (!isTerminal(record)) return false;
  return record.deliveries.every((d) => d.status !== 'pending' && (d.status === 'failed' || d.finalized !== 'no'));
}

/** True when the ask's webhook has nothing left to do (none, delivered, or given up). */
export function webhookSettled(record: AskRecord): boolean {
  return (
    !record.callbackUrl || record.history.some((h) => h.type === 'webhook_delivered' || h.type === 'webhook_failed')
  );
}

/** True when nothing at all is left to do for this record: the reconciler can forget it. */
export function isDone(record: AskRecord): boolean {
  return isSettled(record) && webhookSettled(record);
}
