import { AskgateError, invalid } from '../core/errors.js';
import { extendDeadline, type ExtendBy } from '../core/deadline.js';
import type { AskRecord, Responder } from '../core/schemas.js';
import type { Applied, GatewayDeps } from './gateway.js';

/**
 * {@link Gateway.extend}: checks the new deadline against the ask's bounds at this moment (400
 * naming `timeoutSeconds` or `expiresAt`), then applies core's `extend` transition through the
 * gateway's compare-and-set. 404 for an unknown ask; 409 `not_pending` once it ended or its
 * deadline passed.
 */
export async function extendAsk(
  deps: Pick<GatewayDeps, 'store' | 'clock' | 'settings'>,
  gateway: { apply(askId: string, event: { type: 'extend'; at: number; by: Responder }): Promise<Applied> },
  askId: string,
  by: ExtendBy,
  who: Responder,
): Promise<AskRecord> {
  const record = await deps.store.get(askId);
  if (!record) throw new AskgateError('not_found', `no ask with id "${askId}"`);
  if (record.status !== 'pending') throw notPending(record);
  const found = extendDeadline(record, by, deps.settings.timeouts, deps.clock.now());
  if (!found.ok) throw invalid('invalid_request', found.issues);
  const applied = await gateway.apply(askId, { type: 'extend', at: found.at, by: who });
  if (!applied.record) throw new AskgateError('not_found', `no ask with id "${askId}"`);
  if (applied.outcome.code !== 'updated') throw notPending(applied.record);
  return applied.record;
}

/** The 409 for an ask whose deadline can no longer move. */
function notPending(record: AskRecord): AskgateError {
  const why = record.status === 'pending' ? 'is past its deadline' : 'has ended';
  return new AskgateError('not_pending', `ask ${record.id} ${why}: only a pending ask can be extended`, undefined, {
    status: record.status,
    result: record.result,
  });
}
