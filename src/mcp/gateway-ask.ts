import { AskgateError, invalid, toIssues } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import { AskRequestSchema, type AskRecord } from '../core/schemas.js';
import { abortError } from '../client/errors.js';
import { UnknownAskError, type AskBackend, type WaitOutcome } from './tool.js';

/**
 * Asks through the gateway in this process (the `/mcp` route): no HTTP hop, the same records,
 * lifecycle and guarantees as `POST /v1/asks`. Waits in chunks, at most `waitMs` per call
 * (then the outcome is `pending` and the ask stays open); an abort cancels the ask.
 */
export function gatewayAsk(gateway: Gateway, chunkMs = 30_000): AskBackend {
  /** Waits on `id` (its record `current` when already read) until it ends, `waitMs` passes or `signal` aborts. */
  const settle = async (
    id: string,
    current: AskRecord | undefined,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<{ record: AskRecord; outcome: WaitOutcome }> => {
    const until = Date.now() + waitMs;
    while (!current || current.status === 'pending') {
      if (signal.aborted) {
        await gateway.cancel(id).catch((error: unknown) => {
          if (!(error instanceof AskgateError && (error.code === 'already_resolved' || error.code === 'not_found')))
            throw error;
        });
        throw abortError(signal);
      }
      // Shutting down: waits return at once from now on, so stop here; the ask stays open in the store.
      if (gateway.isStopping)
        throw new AskgateError('store_unavailable', `askgate is shutting down; ask ${id} stays open`);
      const left = until - Date.now();
      if (current && left <= 0)
        return { record: current, outcome: { status: 'pending', askId: id, expiresAt: current.expiresAt } };
      try {
        current = await gateway.wait(id, Math.max(0, Math.min(chunkMs, left)), signal);
      } catch (error) {
        if (error instanceof AskgateError && error.code === 'not_found')
          throw new UnknownAskError(`no ask with id "${id}"`);
        throw error;
      }
    }
    if (!current.result) throw new AskgateError('internal', `ask ${id} ended without a result`);
    return { record: current, outcome: current.result };
  };

  return {
    async ask(input, { signal, waitMs, onCreated }) {
      const parsed = AskRequestSchema.safeParse(input);
      if (!parsed.success) throw invalid('invalid_request', toIssues(parsed.error.issues));
      if (signal.aborted) throw abortError(signal);
      const { record } = await gateway.ask(parsed.data);
      onCreated(record);
      return (await settle(record.id, record, waitMs, signal)).outcome;
    },
    async await(askId, { signal, waitMs }) {
      const { record, outcome } = await settle(askId, undefined, waitMs, signal);
      return { outcome, questions: record.questions, createdAt: record.createdAt, expiresAt: record.expiresAt };
    },
    async cancel(askId) {
      await gateway.cancel(askId).catch((error: unknown) => {
        if (error instanceof AskgateError && error.code === 'not_found')
          throw new UnknownAskError(`no ask with id "${askId}"`);
        if (!(error instanceof AskgateError && error.code === 'already_resolved')) throw error;
      });
    },
  };
}
