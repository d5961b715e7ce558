import type { AskRecord, Question } from '../../src/core/schemas.js';

/** The fixed "now" of the pure-core tests: 2030-01-01 14:00 UTC. */
export const T0 = Date.parse('2030-01-01T14:00:00.000Z');
/** The default ask's deadline: 900 s after {@link T0}. */
export const DEADLINE = T0 + 900_000;
/** ISO 8601 form of an epoch-ms time. */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A pending ask record to Telegram chat 42, created at {@link T0} with a 900 s timeout; `over` replaces any field
 * (`targets`: `to` alone unless given).
 */
export function askRecord(questions: Question[], over: Partial<AskRecord> = {}): AskRecord {
  const to = over.to === undefined ? { channel: 'telegram', chat: '42' } : over.to;
  return {
    id: 'AbCdEfGhIjKl',
    runId: 'run-1',
    version: 1,
    rev: 1,
    status: 'pending',
    questions,
    to,
    targets: to ? [to] : [],
    createdAt: iso(T0),
    expiresAt: iso(DEADLINE),
    timeoutSeconds: 900,
    result: null,
    partial: {},
    deliveries: [],
    history: [],
    ...over,
  };
}
