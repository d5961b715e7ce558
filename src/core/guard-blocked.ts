import { z } from 'zod';
import type { AskRecord } from './schemas.js';
import type { TransitionResult } from './ask-events.js';
import { withHistory } from './record-history.js';
import { singleLine } from './shown-text.js';
import { ASK_ID_PATTERN } from './token.js';

/** The longest tool name a `guard_blocked` entry keeps (a shown string: core/text.ts rules). */
export const GUARD_TOOL_MAX = 200;

/**
 * Most `guard_blocked` entries one ask keeps. A guard in a loop may report thousands of blocked
 * calls: past this, each new one drops the oldest of its kind (not the oldest entry of any kind),
 * so blocked calls never push deliveries, reminders or answers out of the capped history, and a
 * record never grows past `HISTORY_LIMIT` entries and this many tool names.
 */
export const GUARD_BLOCKED_KEPT = 20;

/**
 * The body of `POST /v1/runs/:runId/guard-blocked`: the tool's name and, optionally, the ask the guard
 * believes the run waits for. Strict: a body carrying anything else (a tool's arguments) is refused.
 */
export const GuardBlockedRequestSchema = z.strictObject({
  tool: singleLine(GUARD_TOOL_MAX),
  askId: z.string().regex(ASK_ID_PATTERN, 'must be an ask id').optional(),
});
/** See {@link GuardBlockedRequestSchema}. */
export type GuardBlockedRequest = z.output<typeof GuardBlockedRequestSchema>;

/**
 * The `guard_blocked` transition: a blocked tool call noted on an open ask (`already_resolved` once it
 * ended). One entry carrying the tool's name, at most {@link GUARD_BLOCKED_KEPT} of them kept, and the
 * metric; nothing else changes (no job, no publish: no waiter wakes for it).
 */
export function guardBlocked(record: AskRecord, tool: string, now: number): TransitionResult {
  let history = record.history;
  let count = 0;
  for (const entry of history) if (entry.type === 'guard_blocked') count++;
  if (count >= GUARD_BLOCKED_KEPT) {
    const oldest = history.findIndex((e) => e.type === 'guard_blocked');
    history = [...history.slice(0, oldest), ...history.slice(oldest + 1)];
  }
  const next = withHistory({ ...record, rev: record.rev + 1, history }, [{ type: 'guard_blocked', tool }], now);
  return {
    kind: 'changed',
    record: next,
    effects: [{ type: 'metric', metric: { name: 'guard_blocked' } }],
    outcome: { code: 'updated' },
  };
}
