/** Stable error codes returned by the API and the SDK. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_answer'
  | 'unauthorized'
  | 'not_found'
  | 'already_resolved'
  | 'idempotency_conflict'
  | 'channel_not_enabled'
  | 'payload_too_large'
  | 'store_unavailable'
  | 'internal';

const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_answer: 400,
  channel_not_enabled: 400,
  unauthorized: 401,
  not_found: 404,
  already_resolved: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  store_unavailable: 503,
  internal: 500,
};

/** One validation problem, with the path of the offending field. */
export interface Issue {
  path: (string | number)[];
  message: string;
}

/** An error with a stable code that maps to one HTTP status. */
export class AskgateError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AskgateError';
  }

  /** The HTTP status for this error's code. */
  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }

  /** The JSON body `{error: {code, message, issues?}}`. */
  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}), ...this.details } };
  }
}

/** Converts zod issues into `{path, message}` pairs. */
export function toIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): Issue[] {
  return issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message }));
}

/** A 400 built from zod issues, naming each offending path in the message. */
export function invalid(code: 'invalid_request' | 'invalid_answer', issues: Issue[]): AskgateError {
  const text = issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  return new AskgateError(code, text || 'invalid input', issues);
}
