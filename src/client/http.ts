import { z } from 'zod';
import { AskgateApiError, AskgateConnectionError, abortError, apiErrorFrom } from './errors.js';

/** One API call's options. */
export type Call = { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The client's HTTP plumbing: auth, deadlines, JSON and error mapping, retries. */
export class HttpCaller {
  constructor(
    readonly base: string,
    private readonly fetchImpl: typeof fetch,
    readonly requestTimeoutMs: number,
    readonly retryForMs: number,
    private readonly token: string | undefined,
  ) {}

  auth(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  async send(
    url: string,
    init: RequestInit,
    caller: AbortSignal | undefined,
    timeout?: AbortSignal,
  ): Promise<Response> {
    try {
      return await this.fetchImpl(url, init);
    } catch (error) {
      if (caller?.aborted) throw abortError(caller);
      const why = timeout?.aborted
        ? 'no answer in time'
        : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      throw new AskgateConnectionError(`could not reach askgate at ${this.base}: ${why}`, { cause: error });
    }
  }

  async request<S extends z.ZodType>(method: string, path: string, schema: S, call: Call): Promise<z.output<S>> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.auth(), ...call.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(call.timeoutMs ?? this.requestTimeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const response = await this.send(this.base + path, { method, headers, body, signal }, call.signal, timeout);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (call.signal?.aborted) throw abortError(call.signal);
      throw new AskgateConnectionError(`connection to askgate dropped while reading the response`, { cause: error });
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      if (!response.ok)
        throw new AskgateApiError(
          response.status,
          response.status >= 500 ? 'internal' : 'http_error',
          `askgate answered HTTP ${response.status}`,
        );
      throw new AskgateApiError(response.status, 'invalid_response', 'askgate answered with invalid JSON');
    }
    if (!response.ok) throw apiErrorFrom(response.status, json);
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new AskgateApiError(
        response.status,
        'invalid_response',
        `unexpected response from askgate: ${z.prettifyError(parsed.error)}`,
      );
    return parsed.data;
  }

  /** {@link retryTransient} for up to this client's `retryForMs`. */
  retrying<T>(fn: () => Promise<T>, signal?: AbortSignal, forMs = this.retryForMs): Promise<T> {
    return retryTransient(fn, signal, forMs);
  }
}

/** Retries connection failures and 502/503/504 with capped backoff for up to `forMs` (same request, same idempotency key). */
export async function retryTransient<T>(
  fn: () => Promise<T>,
  signal: AbortSignal | undefined,
  forMs: number,
): Promise<T> {
  const until = Date.now() + forMs;
  for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await fn();
    } catch (error) {
      const transient =
        error instanceof AskgateConnectionError || (error instanceof AskgateApiError && error.transient);
      if (!transient || signal?.aborted || Date.now() + delay > until) throw error;
      await sleep(delay, signal);
      if (signal?.aborted) throw abortError(signal);
    }
  }
}
