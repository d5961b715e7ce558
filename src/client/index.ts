import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AskViewSchema, HistoryEntrySchema, type AnswerRequestSchema, type AskRequestSchema, type AskResult, type AskView } from './schemas.js';
import { AskgateApiError, AskgateConnectionError, abortError, apiErrorFrom } from './errors.js';
import { parseSse } from './sse.js';

export * from './schemas.js';
export * from './errors.js';
export * from './webhook.js';
export { parseSse, type SseMessage } from './sse.js';

/** `GET /v1/runs/:runId`: the run's current ask and its asks, newest first. */
export const RunViewSchema = z.object({ runId: z.string(), current: AskViewSchema.nullable(), history: z.array(AskViewSchema) });
/** A run and its asks. */
export type RunView = z.output<typeof RunViewSchema>;

/** One history entry of an ask, as the event routes send it (`version` only on run streams). */
export const HistoryEventSchema = HistoryEntrySchema.extend({ askId: z.string(), index: z.number().int().nonnegative(), version: z.number().int().optional() });
/** One history entry of an ask, as the event routes send it. */
export type HistoryEvent = z.output<typeof HistoryEventSchema>;
/** A history entry received on an event stream, with its SSE id (for `lastEventId`). */
export type StreamedHistoryEvent = HistoryEvent & { id: string };

const AskEventsSchema = z.object({ askId: z.string(), events: z.array(HistoryEntrySchema) });
const RunEventsSchema = z.object({ runId: z.string(), events: z.array(HistoryEventSchema) });
const AbortRunSchema = z.object({ runId: z.string(), cancelled: AskViewSchema.nullable() });

/** What `ask()` accepts: the body of `POST /v1/asks` (question ids and `multiSelect` optional). */
export type AskInput = z.input<typeof AskRequestSchema>;
/** What `answer()` accepts: `{answers}` or `{skip: true}`, optionally `by`. */
export type AnswerInput = z.input<typeof AnswerRequestSchema>;

/** Options of {@link AskgateClient}. */
export interface AskgateClientOptions {
  /** Base URL of askgate, e.g. `http://127.0.0.1:7420`. */
  url: string;
  /** Bearer token (`ASKGATE_API_TOKEN` of the server). */
  token?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Deadline of each call that does not long-poll, in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** How long connection failures and 502/503/504 are retried before giving up, in ms (default 60 000). */
  retryForMs?: number;
}

/** Options of {@link AskgateClient.ask}. */
export interface AskOptions {
  /** Aborting cancels the ask through the API and rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Idempotency key of this ask (default: a fresh one per call, reused by its retries). */
  idempotencyKey?: string;
  /** Length of each long poll in seconds (default 30; at most the server's `ASKGATE_MAX_WAIT_SECONDS`). */
  waitSeconds?: number;
  /** Called once the ask exists, with its record (id, clamped timeout, deadline). */
  onCreated?: (ask: AskView) => void;
}

type Call = { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number };

const enc = encodeURIComponent;
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

/** Typed client of askgate's HTTP API (v1). */
export class AskgateClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly requestTimeoutMs: number;
  private readonly retryForMs: number;

  constructor(private readonly options: AskgateClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.retryForMs = options.retryForMs ?? 60_000;
  }

  /**
   * Asks and waits for the result. Retries after a dropped connection reuse the call's
   * idempotency key, so they never create a second ask. Creation itself is never cut short:
   * an abort after it cancels the ask, so no question is left open in the chat.
   */
  async ask(input: AskInput, opts: AskOptions = {}): Promise<AskResult> {
    const { signal } = opts;
    if (signal?.aborted) throw abortError(signal);
    const idempotencyKey = opts.idempotencyKey ?? `sdk-${randomUUID()}`;
    let record = await this.retrying(() => this.create(input, { idempotencyKey }));
    opts.onCreated?.(record);
    const wait = opts.waitSeconds ?? 30;
    try {
      while (record.status === 'pending') {
        if (signal?.aborted) throw abortError(signal);
        const id = record.id;
        record = await this.retrying(() => this.get(id, { wait, signal }), signal);
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
      await this.retrying(() => this.cancel(record.id), undefined, 5_000).catch(() => undefined);
      throw abortError(signal);
    }
    if (!record.result) throw new AskgateApiError(200, 'invalid_response', `ask ${record.id} is ${record.status} without a result`);
    return record.result;
  }

  /** Creates an ask (`POST /v1/asks`); `wait` blocks up to that many seconds for the result. */
  create(input: AskInput, opts: { idempotencyKey?: string; wait?: number; signal?: AbortSignal } = {}): Promise<AskView> {
    const query = opts.wait ? `?wait=${opts.wait}` : '';
    const headers = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : undefined;
    return this.request('POST', `/v1/asks${query}`, AskViewSchema, { body: input, headers, signal: opts.signal, timeoutMs: this.pollTimeout(opts.wait) });
  }

  /** Reads an ask; with `wait` (seconds) long-polls until it is resolved or the wait ends. */
  get(askId: string, opts: { wait?: number; signal?: AbortSignal } = {}): Promise<AskView> {
    const query = opts.wait ? `?wait=${opts.wait}` : '';
    return this.request('GET', `/v1/asks/${enc(askId)}${query}`, AskViewSchema, { signal: opts.signal, timeoutMs: this.pollTimeout(opts.wait) });
  }

  /** Cancels a pending ask (it ends `no_answer`/`cancelled`); 409 `already_resolved` when it had ended. */
  cancel(askId: string): Promise<AskView> {
    return this.request('POST', `/v1/asks/${enc(askId)}/cancel`, AskViewSchema, {});
  }

  /** Answers (or skips) an ask through the API, as an operator would. */
  answer(askId: string, body: AnswerInput): Promise<AskView> {
    return this.request('POST', `/v1/asks/${enc(askId)}/answer`, AskViewSchema, { body });
  }

  /** The run's current ask and its asks, newest first. */
  run(runId: string): Promise<RunView> {
    return this.request('GET', `/v1/runs/${enc(runId)}`, RunViewSchema, {});
  }

  /** Marks the run aborted: cancels its pending ask, if any. */
  abortRun(runId: string): Promise<z.output<typeof AbortRunSchema>> {
    return this.request('DELETE', `/v1/runs/${enc(runId)}`, AbortRunSchema, {});
  }

  /** The history of an ask, oldest first. */
  events(askId: string): Promise<z.output<typeof AskEventsSchema>> {
    return this.request('GET', `/v1/asks/${enc(askId)}/events`, AskEventsSchema, {});
  }

  /** The history of every ask of a run, in time order. */
  runEvents(runId: string): Promise<z.output<typeof RunEventsSchema>> {
    return this.request('GET', `/v1/runs/${enc(runId)}/events`, RunEventsSchema, {});
  }

  /** Streams an ask's history (replay, then live) until `signal` aborts or askgate ends the stream. */
  streamEvents(askId: string, opts: { signal?: AbortSignal; lastEventId?: string } = {}): AsyncGenerator<StreamedHistoryEvent> {
    return this.stream(`/v1/asks/${enc(askId)}/events`, opts);
  }

  /** Streams the history of every ask of a run (ids are `<version>.<index>`). */
  streamRunEvents(runId: string, opts: { signal?: AbortSignal; lastEventId?: string } = {}): AsyncGenerator<StreamedHistoryEvent> {
    return this.stream(`/v1/runs/${enc(runId)}/events`, opts);
  }

  private async *stream(path: string, opts: { signal?: AbortSignal; lastEventId?: string }): AsyncGenerator<StreamedHistoryEvent> {
    const headers: Record<string, string> = { ...this.auth(), accept: 'text/event-stream' };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const response = await this.send(this.base + path, { method: 'GET', headers, signal: opts.signal }, opts.signal);
    if (!response.ok || !response.body) throw apiErrorFrom(response.status, await response.json().catch(() => undefined));
    for await (const message of parseSse(response.body, opts.signal)) {
      const parsed = HistoryEventSchema.safeParse(JSON.parse(message.data));
      if (parsed.success) yield { ...parsed.data, id: message.id ?? '' };
    }
  }

  private pollTimeout(wait: number | undefined): number {
    return wait ? wait * 1000 + 15_000 : this.requestTimeoutMs;
  }

  private auth(): Record<string, string> {
    return this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
  }

  private async send(url: string, init: RequestInit, caller: AbortSignal | undefined, timeout?: AbortSignal): Promise<Response> {
    try {
      return await this.fetchImpl(url, init);
    } catch (error) {
      if (caller?.aborted) throw abortError(caller);
      const why = timeout?.aborted ? 'no answer in time' : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      throw new AskgateConnectionError(`could not reach askgate at ${this.base}: ${why}`, { cause: error });
    }
  }

  private async request<S extends z.ZodType>(method: string, path: string, schema: S, call: Call): Promise<z.output<S>> {
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
      if (!response.ok) throw new AskgateApiError(response.status, response.status >= 500 ? 'internal' : 'http_error', `askgate answered HTTP ${response.status}`);
      throw new AskgateApiError(response.status, 'invalid_response', 'askgate answered with invalid JSON');
    }
    if (!response.ok) throw apiErrorFrom(response.status, json);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new AskgateApiError(response.status, 'invalid_response', `unexpected response from askgate: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  }

  /** Retries connection failures and 502/503/504 with backoff (same request, same idempotency key). */
  private async retrying<T>(fn: () => Promise<T>, signal?: AbortSignal, forMs = this.retryForMs): Promise<T> {
    const until = Date.now() + forMs;
    for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        return await fn();
      } catch (error) {
        const transient = error instanceof AskgateConnectionError || (error instanceof AskgateApiError && error.transient);
        if (!transient || signal?.aborted || Date.now() + delay > until) throw error;
        await sleep(delay, signal);
        if (signal?.aborted) throw abortError(signal);
      }
    }
  }
}
