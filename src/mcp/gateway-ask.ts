import { AskgateError, invalid, toIssues } from '../core/errors.js';
import type { Gateway } from '../app/gateway.js';
import { AskRequestSchema } from '../core/schemas.js';
import { abortError } from '../client/errors.js';
import type { AskFn } from './tool.js';

/**
 * Asks through the gateway in this process (the `/mcp` route): no HTTP hop, the same records,
 * lifecycle and guarantees as `POST /v1/asks`. Waits in chunks; an abort cancels the ask.
 */
export function gatewayAsk(gateway: Gateway, chunkMs = 30_000): AskFn {
  return async (input, { signal, onCreated }) => {
    const parsed = AskRequestSchema.safeParse(input);
    if (!parsed.success) throw invalid('invalid_request', toIssues(parsed.error.issues));
    if (signal.aborted) throw abortError(signal);
    const { record } = await gateway.ask(parsed.data);
    onCreated(record);
    let current = record;
    while (current.status === 'pending') {
      if (signal.aborted) {
        await gateway.cancel(record.id).catch((error: unknown) => {
          if (!(error instanceof AskgateError && error.code === 'already_resolved')) throw error;
        });
        throw abortError(signal);
      }
      // Shutting down: waits return at once from now on, so stop here; the ask stays open in the store.
      if (gateway.isStopping) throw new AskgateError('store_unavailable', `askgate is shutting down; ask ${record.id} stays open`);
      current = await gateway.wait(record.id, chunkMs, signal);
    }
    if (!current.result) throw new AskgateError('internal', `ask ${record.id} ended without a result`);
    return current.result;
  };
}
