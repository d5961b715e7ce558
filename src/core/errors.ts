/** Stable error codes returned by the API and the SDK. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_answer'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'already_resolved'
  | 'idempotency_conflict'
  /** The run has no open ask (e.g. a guard reporting a blocked call after the answer came). */
  | 'no_pending_ask'
  /** The ask is no longer pending (ended, or past its deadline): its deadline cannot move. */
  | 'not_pending'
  | 'channel_not_enabled'
  /** An answer link was asked for, but `ASKGATE_PUBLIC_URL` (and `ASKGATE_LINK_SECRET`) are not set. */
  | 'links_not_configured'
  /** A link for anyone holding it was asked for an ask that names who may answer (`users`). */
  | 'link_needs_recipient'
  | 'payload_too_large'
  | 'store_unavailable'
  | 'too_many_connections'
  | 'internal';

const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_answer: 400,
  channel_not_enabled: 400,
  links_not_configured: 400,
  link_needs_recipient: 409,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  already_resolved: 409,
  idempotency_conflict: 409,
  no_pending_ask: 409,
  not_pending: 409,
  payload_too_large: 413,
  store_unavailable: 503,
  too_many_connections: 503,
  internal: 500,
};

/** Where a request carries a value other than its JSON body. */
export type IssueLocation = 'path' | 'query' | 'header';

/** One validation problem, with the path of the offending field (in the body unless `in` says otherwise). */
export interface Issue {
  in?: IssueLocation;
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
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.issues ? { issues: this.issues } : {}),
        ...this.details,
      },
    };
  }
}

/** A zod issue as far as {@link toIssues} reads it (`errors`: the branches of a failed union). */
type ZodLikeIssue = { path: PropertyKey[]; message: string; code?: string; errors?: ZodLikeIssue[][] };

/**
 * Converts zod issues into `{path, message}` pairs. A failed union (`to`: a target or a list)
 * reports the branch whose type matched, so the message names the real field, not "Invalid input".
 */
export function toIssues(issues: ReadonlyArray<ZodLikeIssue>): Issue[] {
  return issues.flatMap((i): Issue[] => {
    if (i.code === 'invalid_union' && i.errors) {
      const typed = i.errors.filter((b) => !b.some((e) => e.code === 'invalid_type' && e.path.length === 0));
      if (typed.length === 1) return toIssues(typed[0]!.map((e) => ({ ...e, path: [...i.path, ...e.path] })));
    }
    return [{ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message }];
  });
}

/** Moves issues to a path parameter, query parameter or header; `name` prefixes their paths (a parameter parsed on its own has none). */
export function locate(issues: Issue[], where: IssueLocation, name?: string): Issue[] {
  return issues.map((i) => ({ in: where, path: name === undefined ? i.path : [name, ...i.path], message: i.message }));
}

const WHERE: Record<IssueLocation, string> = { path: 'path parameter', query: 'query parameter', header: 'header' };

/** A 400 built from zod issues, naming each offending path (and where it is, outside the body) in the message. */
export function invalid(code: 'invalid_request' | 'invalid_answer', issues: Issue[]): AskgateError {
  const text = issues
    .map((i) => `${i.in ? `${WHERE[i.in]} ${i.path.join('.')}` : i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
  return new AskgateError(code, text || 'invalid input', issues);
}
