import type { AskRecord, AskRequest, Delivery, PushConfig, Target } from './schemas.js';
import type { Effect } from './effects.js';
import { nextCadenceStep, policyOf, policySteps } from './policy.js';
import { targetList } from './request-policy.js';
import { deadlineOf } from './record-state.js';
import { storedApproval } from './approval/approval-schema.js';

/** A pending delivery of the ask to `target` (`step` 0: initial; n: escalation step n). */
export function deliveryTo(target: Target, step: number): Delivery {
  return {
    channel: target.channel,
    chat: target.chat,
    ...(target.thread ? { thread: target.thread } : {}),
    status: 'pending',
    finalized: 'no',
    ...(target.users ? { users: [...target.users] } : {}),
    ...(step > 0 ? { step } : {}),
  };
}

/** What a new record may carry besides its request: its Idempotency-Key, and how its result is pushed. */
export interface NewAskExtras {
  key?: string;
  push?: PushConfig;
  /** An approval's `sha256:` hash of `{action, arguments}` (computed by the shell: core does no hashing). */
  actionHash?: string;
  /** The deadline (epoch ms) when the request gave `expiresAt`; else created + `timeoutSeconds`. */
  deadline?: number;
}

/** A new pending record for `request` (version = the run's next). */
export function newAskRecord(
  request: AskRequest,
  id: string,
  version: number,
  timeoutSeconds: number,
  now: number,
  { key, push, actionHash, deadline }: NewAskExtras = {},
): AskRecord {
  const targets = targetList(request.to);
  const to = targets[0] ?? null;
  const policy = policyOf(request);
  return {
    id,
    runId: request.runId,
    ...(request.agent !== undefined ? { agent: request.agent } : {}),
    version,
    rev: 0,
    status: 'pending',
    questions: request.questions,
    ...(request.approval ? { approval: storedApproval(request.approval, actionHash ?? '') } : {}),
    to,
    targets,
    ...(policy ? { policy } : {}),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(deadline ?? now + timeoutSeconds * 1000).toISOString(),
    timeoutSeconds,
    ...(request.async === true ? { async: true } : {}),
    result: null,
    partial: {},
    history: [{ type: 'created', at: new Date(now).toISOString(), ...(to ? { channel: to.channel } : {}) }],
    ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
    ...(request.locale ? { locale: request.locale } : {}),
    ...(request.timeZone ? { timeZone: request.timeZone } : {}),
    ...(request.callbackUrl && push ? { push } : {}),
    deliveries: targets.map((t) => deliveryTo(t, 0)),
    ...(key ? { idempotencyKey: key } : {}),
  };
}

/**
 * Creating an ask, as a transition from nothing: the record and its effects (count it, schedule
 * its timeout and every reminder and escalation step of its policy).
 */
export function createAsk(
  request: AskRequest,
  id: string,
  version: number,
  timeoutSeconds: number,
  now: number,
  extras: NewAskExtras = {},
): { record: AskRecord; effects: Effect[] } {
  const record = newAskRecord(request, id, version, timeoutSeconds, now, extras);
  return {
    record,
    effects: [
      { type: 'metric', metric: { name: 'ask_created', channel: record.to?.channel ?? 'none' } },
      { type: 'schedule', step: 'timeout', at: deadlineOf(record) },
      ...policySteps(record).map((s): Effect => ({ type: 'schedule', step: s.step, at: s.at })),
      // Of the cadence, only its first reminder: each schedules the next (core/policy-events.ts).
      ...[nextCadenceStep(record)].flatMap((s): Effect[] =>
        s && s.at < deadlineOf(record) ? [{ type: 'schedule', step: s.step, at: s.at }] : [],
      ),
    ],
  };
}
