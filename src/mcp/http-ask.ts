import { randomUUID } from 'node:crypto';
import { AskgateApiError, abortError, type AskInput, type AskView, type AskgateClient } from '../client/index.js';
import { retryTransient } from '../client/http.js';
import { UnknownAskError, type AskBackend, type WaitOutcome } from './tool.js';

/** Retries transient failures for up to 60 s, as the client's own `ask` does. */
const retrying = <T>(fn: () => Promise<T>, signal?: AbortSignal, forMs = 60_000) => retryTransient(fn, signal, forMs);

/**
 * Asks through askgate's HTTP API (`askgate mcp` on stdio): creation with an idempotency key reused
 * by its retries, then long polls of at most 30 s until the ask ends or `waitMs` passes (then the
 * outcome is `pending` and the ask stays open). An abort cancels the ask.
 */
export function httpAsk(client: AskgateClient): AskBackend {
  const settle = async (
    id: string,
    current: AskView | undefined,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<{ record: AskView; outcome: WaitOutcome }> => {
    const until = Date.now() + waitMs;
    try {
      while (!current || current.status === 'pending') {
        if (signal.aborted) throw abortError(signal);
        // Whole seconds only (the API's unit), rounded (at most 0.5 s past `waitMs`, so a 1 s wait
        // still waits); a plain read when less than half a second is left.
        const wait = Math.min(30, Math.round((until - Date.now()) / 1000));
        if (current && wait < 1)
          return { record: current, outcome: { status: 'pending', askId: id, expiresAt: current.expiresAt } };
        current = await retrying(() => client.get(id, { wait: Math.max(0, wait), signal }), signal);
      }
    } catch (error) {
      if (error instanceof AskgateApiError && error.status === 404) throw new UnknownAskError(`no ask with id "${id}"`);
      if (!signal.aborted) throw error;
      // Also when the first read of `await` was still under way: an unknown id merely fails to cancel.
      await retrying(() => client.cancel(id), undefined, 5_000).catch(() => undefined);
      throw abortError(signal);
    }
    if (!current.result)
      throw new AskgateApiError(200, 'invalid_response', `ask ${id} is ${current.status} without a result`);
    return { record: current, outcome: current.result };
  };

  return {
    async ask(input: AskInput, { signal, waitMs, onCreated }) {
      if (signal.aborted) throw abortError(signal);
      const idempotencyKey = `sdk-${randomUUID()}`;
      // Creation itself is never cut short: an abort after it cancels the ask.
      const record = await retrying(() => client.create(input, { idempotencyKey }));
      onCreated(record);
      return (await settle(record.id, record, waitMs, signal)).outcome;
    },
    async await(askId, { signal, waitMs }) {
      const { record, outcome } = await settle(askId, undefined, waitMs, signal);
      return { outcome, questions: record.questions, createdAt: record.createdAt, expiresAt: record.expiresAt };
    },
    async cancel(askId) {
      await retrying(() => client.cancel(askId), undefined, 5_000).catch((error: unknown) => {
        if (error instanceof AskgateApiError && error.status === 404)
          throw new UnknownAskError(`no ask with id "${askId}"`);
        if (!(error instanceof AskgateApiError && error.status === 409)) throw error;
      });
    },
  };
}
