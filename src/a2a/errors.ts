import {
  A2AError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { AskgateError } from '../core/errors.js';
import type { Logger } from '../core/ports.js';

/**
 * askgate's errors as A2A errors, which the SDK's JSON-RPC handlers turn into their codes:
 * `not_found` -> TaskNotFound (-32001), `already_resolved` -> TaskNotCancelable (-32002), bad
 * input -> invalid params (-32602) with the same message `/v1` gives (it names the field).
 * Anything else becomes a bare internal error (-32603): the SDK would otherwise echo the
 * message of any thrown error, and a Redis error has no business reaching a client.
 */
export function toA2AError(
  error: unknown,
  logger: Pick<Logger, 'error'>,
  isStoreUnavailable: (error: unknown) => boolean,
): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof AskgateError) {
    switch (error.code) {
      case 'not_found':
        return new TaskNotFoundError(error.message);
      case 'already_resolved':
        return new TaskNotCancelableError(error.message);
      case 'invalid_request':
      case 'invalid_answer':
      case 'channel_not_enabled':
      case 'idempotency_conflict':
      case 'payload_too_large':
        return new RequestMalformedError(error.message);
      case 'store_unavailable':
        return new A2AError(STORE_UNAVAILABLE);
      default:
        break;
    }
  }
  if (isStoreUnavailable(error)) return new A2AError(STORE_UNAVAILABLE);
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'a2a call failed');
  return new A2AError(INTERNAL);
}

const STORE_UNAVAILABLE = 'storage is unavailable; retry shortly';
const INTERNAL = 'internal error';

/**
 * Turns the SDK's answer to params it could not read into invalid params (-32602). Every error
 * of askgate's handler is an A2AError ({@link toA2AError}); the SDKs answer anything else thrown
 * (a TypeError in their own `fromJSON` of a malformed request, e.g. a part that is null) as an
 * internal error (-32603) carrying its message, which is the client's bad input, not a fault.
 * Returns the SDK's message of a rewritten error, else null.
 */
export function markUnreadParams(answer: unknown): string | null {
  const error = (answer as { error?: { code?: unknown; message?: unknown; data?: unknown } } | null)?.error;
  if (error?.code !== -32603 || typeof error.message !== 'string') return null;
  if (error.message === INTERNAL || error.message === STORE_UNAVAILABLE) return null;
  const message = error.message;
  error.code = -32602;
  error.message = `Invalid method parameters: ${message.slice(0, 200)}`;
  delete error.data;
  return message;
}

/** Thrown for the methods askgate does not offer (the message says what to do instead). */
export function unsupported(message: string): A2AError {
  return new UnsupportedOperationError(message);
}
