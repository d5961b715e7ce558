/** One validation problem reported by askgate, with the path of the offending field. */
export interface ApiIssue {
  path: (string | number)[];
  message: string;
}

/** An error response from askgate's API: `code` is stable (e.g. `invalid_request`, `already_resolved`). */
export class AskgateApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: ApiIssue[],
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AskgateApiError';
  }

  /** True for errors worth retrying with the same request (askgate or its store briefly unavailable). */
  get transient(): boolean {
    return this.status === 502 || this.status === 503 || this.status === 504;
  }
}

/** askgate could not be reached (connection refused or dropped, DNS, timeout) after the allowed retries. */
export class AskgateConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AskgateConnectionError';
  }
}

/** The `AbortError` an aborted call rejects with (the signal's reason when it already is one). */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/** True for the error an aborted fetch or ask rejects with. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Builds an {@link AskgateApiError} from an error response body `{error: {code, message, issues?}}`. */
export function apiErrorFrom(status: number, body: unknown): AskgateApiError {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!error || typeof error !== 'object')
    return new AskgateApiError(status, status >= 500 ? 'internal' : 'http_error', `askgate answered HTTP ${status}`);
  const { code, message, issues, ...details } = error;
  return new AskgateApiError(
    status,
    typeof code === 'string' ? code : 'http_error',
    typeof message === 'string' ? message : `askgate answered HTTP ${status}`,
    Array.isArray(issues) ? (issues as ApiIssue[]) : undefined,
    details,
  );
}
