import type { AskRecord, AskRequest } from './schemas.js';
import type { Effect } from './effects.js';
import { deadlineOf } from './record-state.js';

/** A new pending record for `request` (version = the run's next, `key` = its Idempotency-Key). */
export function newAskRecord(
  request: AskRequest,
  id: string,
  version: number,
  timeoutSeconds: number,
  now: number,
  key?: string,
): AskRecord {
  const to = request.to ?? null;
  return {
    id,
    runId: request.runId,
    version,
    rev: 0,
    status: 'pending',
    questions: request.questions,
    to,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutSeconds * 1000).toISOString(),
    timeoutSeconds,
    result: null,
    partial: {},
    history: [{ type: 'created', at: new Date(now).toISOString(), ...(to ? { channel: to.channel } : {}) }],
    ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
    deliveries: to
      ? [
          {
            channel: to.channel,
            chat: to.chat,
            ...(to.thread ? { thread: to.thread } : {}),
            status: 'pending',
            finalized: 'no',
          },
        ]
      : [],
    ...(key ? { idempotencyKey: key } : {}),
  };
}

/** Creating an ask, as a transition from nothing: the record and its effects (count it, schedule its timeout). */
export function createAsk(
  request: AskRequest,
  id: string,
  version: number,
  timeoutSeconds: number,
  now: number,
  key?: string,
): { record: AskRecord; effects: Effect[] } {
  const record = newAskRecord(request, id, version, timeoutSeconds, now, key);
  return {
    record,
    effects: [
      { type: 'metric', metric: { name: 'ask_created', channel: record.to?.channel ?? 'none' } },
      { type: 'schedule', step: 'timeout', at: deadlineOf(record) },
    ],
  };
}
