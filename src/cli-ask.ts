import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  AskgateApiError,
  AskgateClient,
  AskgateConnectionError,
  ExpiresAtSchema,
  LocaleSchema,
  TimeZoneSchema,
  type AskInput,
  type AskView,
} from './client/index.js';
import { policyFromFlags, UsageError } from './cli-ask-policy.js';
import { QUESTION_OPTIONS, questionsFromTokens } from './cli-ask-question.js';
import { APPROVAL_OPTIONS, APPROVAL_SINGLE, approvalFromFlags } from './cli-ask-approval.js';

/**
 * Exit codes of `askgate ask`, documented in the README. `notApproved`: an approval answered with
 * reject or request_changes, so `askgate ask --approval-action ... --wait && run` never runs it.
 */
export const EXIT = { answered: 0, error: 1, usage: 2, noAnswer: 3, pending: 4, notApproved: 5 } as const;

/** How `ask` and `wait` retry an unreachable askgate: default `--retry-for` (with `--wait`), margin past the deadline, backoff. */
export const RETRY = { defaultWaitSeconds: 60, pastDeadlineMs: 60_000, firstDelayMs: 200, maxDelayMs: 5_000 } as const;

export { UsageError };

/** What `askgate ask` sends: the ask body, whether to wait, and the optional URL and idempotency key. */
export interface AskArgs {
  body: Record<string, unknown>;
  wait: boolean;
  url?: string;
  key?: string;
  /** How long to retry an unreachable askgate, in seconds. */
  retryFor: number;
}

const SINGLE = [
  'run',
  'agent',
  'timeout',
  'expires-at',
  'url',
  'idempotency-key',
  'retry-for',
  'agree',
  'remind-every',
  'hours',
  'locale',
  'time-zone',
  ...APPROVAL_SINGLE,
] as const;
/** A user-given value for an error message: quoted, shortened, control and format characters (bidi, zero-width) escaped. */
export const shown = (value: string) =>
  JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value).replace(
    /\p{C}/gu,
    (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );

/** Builds the ask body from ordered CLI tokens: each question flag (--option, --kind, --min, …) belongs to the latest --question. */
export function askBodyFromArgs(argv: string[]): AskArgs {
  const { values, tokens } = parseArgs({
    args: argv,
    tokens: true,
    strict: true,
    options: {
      run: { type: 'string' },
      agent: { type: 'string' },
      to: { type: 'string', multiple: true },
      remind: { type: 'string', multiple: true },
      'remind-every': { type: 'string' },
      hours: { type: 'string' },
      escalate: { type: 'string', multiple: true },
      default: { type: 'string', multiple: true },
      agree: { type: 'string' },
      ...QUESTION_OPTIONS,
      ...APPROVAL_OPTIONS,
      timeout: { type: 'string' },
      'expires-at': { type: 'string' },
      async: { type: 'boolean' },
      wait: { type: 'boolean' },
      url: { type: 'string' },
      'idempotency-key': { type: 'string' },
      'retry-for': { type: 'string' },
      locale: { type: 'string' },
      'time-zone': { type: 'string' },
    },
  });
  const questions = questionsFromTokens(tokens, shown);
  for (const name of SINGLE) {
    if (tokens.filter((t) => t.kind === 'option' && t.name === name).length > 1)
      throw new UsageError(`--${name} is given more than once`);
  }
  if (!values.run) throw new UsageError('--run is required');
  const approval = approvalFromFlags(values, shown);
  if (approval && questions.length > 0) throw new UsageError('give --question or --approval-action, not both');
  if (approval && values.default) throw new UsageError('--default goes with questions (use --timeout-decision)');
  const body: Record<string, unknown> = {
    runId: values.run,
    ...(approval ?? { questions }),
    ...policyFromFlags(values, shown),
  };
  if (values.agent !== undefined) body.agent = values.agent;
  if (values.timeout !== undefined) body.timeoutSeconds = wholeSeconds('--timeout', values.timeout, 1);
  if (values['expires-at'] !== undefined) {
    if (values.timeout !== undefined) throw new UsageError('give --timeout or --expires-at, not both');
    body.expiresAt = isoTime('--expires-at', values['expires-at']);
  }
  // An async ask may wait for days: its caller comes back with `askgate wait <askId>`, not --wait.
  if (values.async) {
    if (values.wait)
      throw new UsageError('--async asks are not waited for: leave out --wait, then run askgate wait <askId>');
    body.async = true;
  }
  if (values.locale !== undefined) {
    if (!LocaleSchema.safeParse(values.locale).success)
      throw new UsageError(`--locale must be a BCP 47 language tag such as "pt-BR", not ${shown(values.locale)}`);
    body.locale = values.locale;
  }
  if (values['time-zone'] !== undefined) {
    const zone = values['time-zone'];
    if (!TimeZoneSchema.safeParse(zone).success)
      throw new UsageError(`--time-zone must be an IANA time zone such as "America/Sao_Paulo", not ${shown(zone)}`);
    body.timeZone = zone;
  }
  const wait = values.wait ?? false;
  const retryFor =
    values['retry-for'] === undefined
      ? wait
        ? RETRY.defaultWaitSeconds
        : 0
      : wholeSeconds('--retry-for', values['retry-for'], 0);
  return { body, wait, url: values.url, key: values['idempotency-key'], retryFor };
}

/** A whole number of seconds of at least `min` from flag `flag`, or a UsageError naming it. */
export function wholeSeconds(flag: string, value: string, min: number): number {
  const seconds = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= min))
    throw new UsageError(
      `${flag} must be a whole number of seconds${min ? ` of at least ${min}` : ''}, not ${shown(value)}`,
    );
  return seconds;
}

/** An ISO 8601 time with an offset from flag `flag`, or a UsageError naming it. */
export function isoTime(flag: string, value: string): string {
  if (!ExpiresAtSchema.safeParse(value).success)
    throw new UsageError(
      `${flag} must be an ISO 8601 time with an offset, e.g. 2026-12-24T17:00:00Z, not ${shown(value)}`,
    );
  return value;
}

/** The base URL askgate is reached at: `--url`, else `ASKGATE_URL`, else `http://127.0.0.1:$PORT`. */
export function askgateUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const [source, raw] =
    flag !== undefined
      ? ['--url', flag]
      : env.ASKGATE_URL
        ? ['ASKGATE_URL', env.ASKGATE_URL]
        : ['PORT', `http://127.0.0.1:${env.PORT ?? 7420}`];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source} is not a URL: ${shown(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${source} must be an http:// or https:// URL`);
  // Never echoed: the URL shows up in error messages, and a password in it would land in logs.
  if (url.username || url.password)
    throw new UsageError(`${source} must not contain a user name or password (use ASKGATE_API_TOKEN)`);
  if (url.search || url.hash) throw new UsageError(`${source} must not have a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Why a call failed to reach askgate, from the fetch error's cause (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...). */
function connectionCause(error: AskgateConnectionError): string {
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    const { code, name } = cause as Error & { code?: unknown };
    if (typeof code === 'string') return code.startsWith('UND_ERR') ? cause.message : code;
    if (name === 'TimeoutError') return 'no response in time';
    if (!(cause.cause instanceof Error)) return cause.message;
    cause = cause.cause;
  }
  return error.message;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `call` until it succeeds, retrying connection failures and 502/503/504 with capped backoff
 * for `minMs` after the first failure, or until `untilMs` (epoch ms) when that is later.
 * Says once on stderr that askgate is unreachable and until when it retries.
 */
async function retrying<T>(
  base: string,
  bound: { minMs: number; untilMs: number },
  call: () => Promise<T>,
): Promise<T> {
  let giveUpAt = 0;
  let announced = false;
  for (let delay: number = RETRY.firstDelayMs; ; delay = Math.min(delay * 2, RETRY.maxDelayMs)) {
    try {
      return await call();
    } catch (error) {
      const transient =
        error instanceof AskgateConnectionError || (error instanceof AskgateApiError && error.transient);
      if (!transient) throw error;
      giveUpAt ||= Math.max(Date.now() + bound.minMs, bound.untilMs);
      if (Date.now() + delay > giveUpAt) throw error;
      if (!announced) {
        const why =
          error instanceof AskgateConnectionError
            ? `cannot reach ${base} (${connectionCause(error)})`
            : `${base} answered HTTP ${error.status}`;
        console.error(`askgate: ${why}; retrying until ${new Date(giveUpAt).toISOString()}`);
        announced = true;
      }
      await sleep(delay);
    }
  }
}

/** `askgate ask`: creates the ask, with `--wait` waits for its result; returns the exit code. */
export async function runAsk(argv: string[]): Promise<number> {
  const { body, wait, url, key, retryFor } = askBodyFromArgs(argv);
  const base = askgateUrl(url, process.env);
  const client = clientFor(base);
  try {
    // The key makes a retried POST return the ask that a lost response had already created.
    const idempotencyKey = key ?? (retryFor > 0 ? `cli-${randomUUID()}` : undefined);
    const record: AskView = await retrying(base, { minMs: retryFor * 1000, untilMs: 0 }, () =>
      client.create(body as AskInput, { idempotencyKey }),
    );
    if (!wait) {
      console.log(JSON.stringify(record, null, 2));
      return EXIT.answered;
    }
    return await printResult(base, client, record.id, retryFor, record);
  } catch (error) {
    return failure(base, error);
  }
}

/** The SDK client of the CLI commands, with `ASKGATE_API_TOKEN` when set. */
export const clientFor = (base: string) =>
  new AskgateClient({ url: base, token: process.env.ASKGATE_API_TOKEN || undefined });

/**
 * Long-polls ask `id` (from `record` when the caller already has it) until it is resolved, retrying an
 * unreachable askgate for `retryFor` seconds and, once the deadline is known, until 60 s past it;
 * prints the result and returns its exit code.
 */
export async function printResult(
  base: string,
  client: AskgateClient,
  id: string,
  retryFor: number,
  record?: AskView,
): Promise<number> {
  const bound = { minMs: retryFor * 1000, untilMs: 0 };
  while (record === undefined || record.status === 'pending') {
    if (record) bound.untilMs = Date.parse(record.expiresAt) + RETRY.pastDeadlineMs;
    record = await retrying(base, bound, () => client.get(id, { wait: 30 }));
  }
  console.log(JSON.stringify(record.result, null, 2));
  const result = record.result;
  if (result?.status !== 'answered') return EXIT.noAnswer;
  return result.decision === 'reject' || result.decision === 'request_changes' ? EXIT.notApproved : EXIT.answered;
}

/** The exit code of a failed call, after saying on stderr what failed (the URL, the cause, the API's error). */
export function failure(base: string, error: unknown): number {
  if (error instanceof AskgateConnectionError) {
    console.error(`askgate: cannot reach ${base} (${connectionCause(error)})`);
    return EXIT.error;
  }
  if (error instanceof AskgateApiError) {
    const { status, code, message, issues, details } = error;
    console.error(`askgate: ${base} answered HTTP ${status}`);
    console.error(JSON.stringify({ error: { ...details, code, message, ...(issues ? { issues } : {}) } }, null, 2));
    return status === 400 ? EXIT.usage : EXIT.error;
  }
  throw error;
}
