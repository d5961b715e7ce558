import { randomUUID } from 'node:crypto';
import { isAbortError } from './errors.js';
import { elicitResultOf, mapElicitation, type ElicitResult } from './elicitation-form.js';
import type { AskInput, AskOptions, AskgateClient } from './index.js';

export {
  ElicitationRefusedError,
  elicitResultOf,
  mapElicitation,
  type ElicitResult,
  type ElicitationRefusal,
  type FieldMapping,
  type MappedForm,
} from './elicitation-form.js';

/** Options of {@link elicitationHandler}. */
export interface ElicitationBridgeOptions {
  /** Where the questions go (default: the server's `ASKGATE_DEFAULT_TO`). */
  to?: AskInput['to'];
  /**
   * The run each elicitation is asked on: a string (one run: a new elicitation supersedes a
   * pending one, which then answers `cancel`) or a function of the params. Default: a fresh
   * run per elicitation, so concurrent elicitations never supersede each other.
   */
  runId?: string | ((params: unknown) => string);
  /** How long the human has, in seconds (clamped by the server); keep it below the MCP request timeout. */
  timeoutSeconds?: number;
  /** Length of each long poll in seconds (see {@link AskOptions.waitSeconds}). */
  waitSeconds?: number;
  /** Called once the ask exists (its id, deadline), e.g. to log which ask an elicitation became. */
  onCreated?: AskOptions['onCreated'];
}

/** What {@link elicitationHandler} returns: give it the `elicitation/create` params and the request's signal. */
export type ElicitationHandler = (params: unknown, opts?: { signal?: AbortSignal }) => Promise<ElicitResult>;

/**
 * The elicitation bridge: an `elicitation/create` handler for an MCP host that asks the form
 * through askgate. The form must be representable (see {@link mapElicitation}): otherwise it
 * throws {@link ElicitationRefusedError} (JSON-RPC -32602 with the reason) before anything is
 * asked. Answers `accept` with the chosen `const` values and the typed values (a number field's as
 * a JSON number), `decline` when the human skips, `cancel` on timeout, cancellation, supersede,
 * undelivered, or an answer in their own words to a choice.
 * Aborting `signal` (the server cancelled its request) cancels the ask and answers `cancel`.
 * Errors reaching askgate are thrown as the SDK's errors.
 *
 * ```ts
 * const elicit = elicitationHandler(askgate, { to: { channel: 'slack', chat: 'C0123' } });
 * mcpClient.setRequestHandler('elicitation/create', (request, ctx) =>
 *   elicit(request.params, { signal: ctx.mcpReq.signal }));
 * ```
 */
export function elicitationHandler(
  client: Pick<AskgateClient, 'ask'>,
  options: ElicitationBridgeOptions = {},
): ElicitationHandler {
  return async (params, { signal } = {}) => {
    const form = mapElicitation(params);
    if (signal?.aborted) return { action: 'cancel' };
    const runId =
      typeof options.runId === 'function' ? options.runId(params) : (options.runId ?? `elicit-${randomUUID()}`);
    const input: AskInput = { runId, questions: form.questions };
    if (options.to !== undefined) input.to = options.to;
    if (options.timeoutSeconds !== undefined) input.timeoutSeconds = options.timeoutSeconds;
    const askOptions: AskOptions = signal ? { signal } : {};
    if (options.waitSeconds !== undefined) askOptions.waitSeconds = options.waitSeconds;
    if (options.onCreated) askOptions.onCreated = options.onCreated;
    try {
      return elicitResultOf(form, await client.ask(input, askOptions));
    } catch (error) {
      if (signal?.aborted && isAbortError(error)) return { action: 'cancel' };
      throw error;
    }
  };
}
