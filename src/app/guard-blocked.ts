import { AskgateError } from '../core/errors.js';
import { isTerminal } from '../core/record-state.js';
import type { AskStore } from '../core/ports.js';
import type { AskEvent } from '../core/lifecycle.js';

/**
 * Notes a tool call a run's guard did not run (`POST /v1/runs/:runId/guard-blocked`) on the run's
 * open ask: one read of the run (its current ask) and one transition, so one compare-and-set per
 * blocked call. A run has at most one open ask, so the ask the guard names (`askId`) only says
 * what it believed: the entry goes on the open one. 404 for an unknown run, 409 `no_pending_ask`
 * when nothing is open (or the ask ended meanwhile).
 */
export async function recordGuardBlocked(
  store: Pick<AskStore, 'getRun'>,
  gateway: { apply(askId: string, event: AskEvent): Promise<{ outcome: { code: string } }> },
  runId: string,
  tool: string,
): Promise<{ askId: string }> {
  const { current, version } = await store.getRun(runId);
  if (version === 0) throw new AskgateError('not_found', `no run with id "${runId}"`);
  if (current && !isTerminal(current)) {
    const applied = await gateway.apply(current.id, { type: 'guard_blocked', tool });
    if (applied.outcome.code === 'updated') return { askId: current.id };
  }
  throw new AskgateError('no_pending_ask', `run "${runId}" has no open ask: nothing to record a blocked call on`);
}
