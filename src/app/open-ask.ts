import { AskgateError, invalid, type Issue } from '../core/errors.js';
import { policyIssues } from '../core/policy.js';
import { cadenceIssues, REMIND_EVERY_MIN_SECONDS } from '../core/cadence.js';
import { askDeadline, hasWayBack, maxWaitOf } from '../core/deadline.js';
import { targetList } from '../core/request-policy.js';
import { createAsk, isTerminal, transition } from '../core/lifecycle.js';
import { actionHash } from './action-hash.js';
import { schemaProblem } from './approval-edits.js';
import type { AskRecord, AskRequest, PushConfig } from '../core/schemas.js';
import { recordTtlMs } from '../core/retention.js';
import { createPlan, foldAlong, followUp } from '../core/work.js';
import type { Effect } from '../core/effects.js';
import type { AlongWrites, AskStore } from '../core/ports.js';
import type { GatewayDeps } from './gateway.js';

/** Most compare-and-set attempts at one change before giving up. */
export const MAX_CAS_ATTEMPTS = 64;

/**
 * A create's or commit's plan as the store runs it: on an ordered store its index writes go
 * inside the write itself ({@link foldAlong}); elsewhere (Redis Cluster) they run around it.
 */
export function foldFor(
  deps: { store: Pick<AskStore, 'ordered'> },
  plan: { ahead: Effect[]; after: Effect[] },
): { ahead: Effect[]; after: Effect[]; along?: AlongWrites } {
  return deps.store.ordered ? foldAlong(plan) : plan;
}

/**
 * {@link Gateway.ask}: finds the deadline (core/deadline.ts: a timeout is clamped into the bounds,
 * the long maximum for an ask with a way back; an `expiresAt` out of them is a 400), creates the
 * ask (superseding the run's pending one), schedules its timeout and queues its delivery.
 */
export async function openAsk(
  deps: GatewayDeps,
  request: AskRequest,
  idempotency?: { key: string; requestHash: string },
  presetId?: string,
  push?: PushConfig,
): Promise<{ record: AskRecord; created: boolean }> {
  const { store, channels, settings, clock, runner } = deps;
  checkChannels(channels, request);
  const wayBack = hasWayBack(request);
  const found = askDeadline(request, wayBack, settings.timeouts, clock.now());
  if (!found.ok) throw invalid('invalid_request', found.issues);
  const timeoutSeconds = found.seconds;
  // An absolute deadline stays as given; a timeout counts from the moment the record is made.
  const deadline = request.expiresAt !== undefined ? { deadline: found.at } : {};
  const now = clock.now();
  const late = [
    ...policyIssues(request, timeoutSeconds),
    ...cadenceIssues(
      request,
      targetList(request.to),
      now,
      request.expiresAt !== undefined ? found.at : now + timeoutSeconds * 1000,
      settings.timeouts.remindEveryMinSeconds ?? REMIND_EVERY_MIN_SECONDS,
    ),
  ];
  if (late.length > 0) throw invalid('invalid_request', late);
  if (request.callbackUrl !== undefined) checkCallbackUrl(deps.webhooks, request.callbackUrl);
  const schema = request.approval?.argumentsSchema;
  const badSchema = schema && schemaProblem(schema);
  if (badSchema) throw invalid('invalid_request', [badSchema]);
  const approvalHash = request.approval && actionHash(request.approval.action, request.approval.arguments);
  let askId = presetId ?? deps.newId();
  if (idempotency) {
    // The key answers replays for as long as the ask may first wait, plus the retention.
    const ttl = settings.retentionMs + maxWaitOf(settings.timeouts, wayBack) * 1000;
    const claim = await store.claimIdempotencyKey(idempotency.key, idempotency.requestHash, askId, ttl);
    if (claim.requestHash !== idempotency.requestHash) {
      throw new AskgateError('idempotency_conflict', 'this Idempotency-Key was used with a different request body');
    }
    askId = claim.askId;
    const existing = await store.get(askId);
    if (existing) return { record: existing, created: false };
  }
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const now = clock.now();
    // Only a pending ask is superseded: an ended one is not even read.
    const { current, version } = await store.getRun(request.runId, { pendingOnly: true });
    const { record, effects } = createAsk(request, askId, version + 1, timeoutSeconds, now, {
      ...(idempotency ? { key: idempotency.key } : {}),
      ...(push ? { push } : {}),
      ...(approvalHash ? { actionHash: approvalHash } : {}),
      ...deadline,
    });
    const superseding = current && !isTerminal(current) ? transition(current, { type: 'supersede' }, now) : null;
    const supersede = superseding?.kind === 'changed' && current ? { prev: current, next: superseding.record } : null;
    const plan = foldFor(deps, createPlan(record, effects, now, settings));
    const create = () =>
      store.create({
        record,
        expectedVersion: version,
        supersede,
        ttlMs: recordTtlMs(record, now, settings.retentionMs),
        retentionMs: settings.retentionMs,
        ...(plan.along && { along: plan.along }),
      });
    const result = await runner.ahead(askId, plan.ahead, create);
    if (result.status === 'conflict') continue;
    if (result.status === 'exists') return { record: result.record, created: false };
    if (supersede && superseding?.kind === 'changed')
      await runner.settle(supersede.next.id, followUp(supersede.prev, supersede.next, superseding.effects));
    // Unlike a later change, creation fails when its timeout or delivery cannot be queued.
    await runner.strict(askId, plan.after);
    return { record: result.record, created: true };
  }
  throw new AskgateError('internal', 'too many concurrent asks on this run; retry');
}

/** Refuses a target (initial or escalation) whose channel is not enabled, naming it (`to.channel`, `to[1].channel`, `escalate[0].to.channel`). */
function checkChannels(channels: GatewayDeps['channels'], request: AskRequest): void {
  const lists: [Issue['path'], AskRequest['to']][] = [
    [['to'], request.to],
    ...(request.escalate ?? []).map((s, i): [Issue['path'], AskRequest['to']] => [['escalate', i, 'to'], s.to]),
  ];
  for (const [path, to] of lists) {
    const targets = targetList(to);
    const bad = targets.findIndex((t) => !channels.has(t.channel));
    if (bad < 0) continue;
    const enabled = [...channels.keys()];
    throw new AskgateError(
      'channel_not_enabled',
      `channel "${targets[bad]!.channel}" is not enabled (enabled: ${enabled.join(', ') || 'none'})`,
      [{ path: [...path, ...(Array.isArray(to) ? [bad] : []), 'channel'], message: 'channel not enabled' }],
    );
  }
}

/** Refuses a callbackUrl that could never be sent, carries credentials, or points where the webhook allow list refuses. */
function checkCallbackUrl(webhooks: GatewayDeps['webhooks'], callbackUrl: string): void {
  const refuse = (message: string) =>
    new AskgateError('invalid_request', `callbackUrl: ${message}`, [{ path: ['callbackUrl'], message }]);
  if (!webhooks) throw refuse('webhooks are not configured on this askgate (set ASKGATE_WEBHOOK_SECRET)');
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    throw refuse('must be an http(s) URL');
  }
  // Never echoed: the userinfo may be a password.
  if (url.username !== '' || url.password !== '')
    throw refuse('must not contain credentials (user:password@); authenticate the webhook by its signature');
  const refusal = webhooks.refusal(url);
  if (refusal) throw refuse(refusal);
}
