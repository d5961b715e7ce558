import type { AskRecord, Responder, Target } from './schemas.js';

/** True once an ask is answered or ended without an answer; terminal records never change status. */
export function isTerminal(record: AskRecord): boolean {
  return record.status !== 'pending';
}

/** The ask's deadline in epoch ms. */
export function deadlineOf(record: AskRecord): number {
  return Date.parse(record.expiresAt);
}

/** The channel of an answer given through an answer page link for anyone (src/links/). */
export const LINK_CHANNEL = 'link';

/** True when any target of the ask (initial, escalation or delivered) names who may answer. */
export function namesUsers(record: Pick<AskRecord, 'targets' | 'deliveries' | 'policy'>): boolean {
  const targets = [...record.targets, ...record.deliveries, ...(record.policy?.escalate ?? []).flatMap((s) => s.to)];
  return targets.some((t) => t.users !== undefined && t.users.length > 0);
}

/**
 * True when `by` may answer: API and console answers always, and an answer page link for anyone
 * (channel `link`: minted only for an ask that names no `users`, src/links/); a chat answer when a delivery on its
 * channel (in `chat`, when known) has no `users` list or lists `by.userId`. No delivery on that
 * channel: refused. An ask with no delivery at all (no target, so no chat answer reaches it; or a
 * record built without them) goes by its first target's `users` (none: anyone).
 */
export function mayAnswer(record: AskRecord, by: Responder, chat?: string): boolean {
  if (by.channel === 'api' || by.channel === 'web' || by.channel === LINK_CHANNEL) return true;
  if (record.deliveries.length === 0) {
    const users = record.to?.users;
    return !users || users.includes(by.userId);
  }
  return record.deliveries.some((d, i) => {
    if (d.channel !== by.channel || (chat !== undefined && d.chat !== chat)) return false;
    const users = usersOf(record, i);
    return !users || users.includes(by.userId);
  });
}

/** Who may answer at delivery `index` (its own list; none: anyone there). */
export function usersOf(record: AskRecord, index: number): string[] | undefined {
  return record.deliveries[index]?.users;
}

/** The target delivery `index` was made for (channel, chat, thread, users). */
export function targetOf(record: AskRecord, index: number): Target | null {
  const d = record.deliveries[index];
  if (!d) return null;
  const users = usersOf(record, index);
  return { channel: d.channel, chat: d.chat, ...(d.thread ? { thread: d.thread } : {}), ...(users ? { users } : {}) };
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
