import type { AskRecord } from './schemas.js';
import { deadlineOf, isTerminal } from './record-state.js';

/**
 * How long from `now` (ms) something kept until `until` (epoch ms) plus the retention lives: an
 * ask's record and what points at it (message bindings, the id map, Telegram drafts) are kept until
 * the ask's end plus `retentionMs`, for late taps, `GET` and audit.
 */
export function keptForMs(until: number, now: number, retentionMs: number): number {
  return until - now + retentionMs;
}

/**
 * The time to live of an ask's record written at `now`, and of what points at it: a pending ask
 * until its deadline plus the retention (it may end as late as that), an ended one the retention.
 */
export function recordTtlMs(record: AskRecord, now: number, retentionMs: number): number {
  return keptForMs(isTerminal(record) ? now : deadlineOf(record), now, retentionMs);
}
