import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AskViewSchema,
  type AnswerRequestSchema,
  type AskRequestSchema,
  type AskResult,
  type AskView,
} from './schemas.js';
import { AskgateApiError, abortError, apiErrorFrom } from './errors.js';
import { parseSse } from './sse.js';
import { HttpCaller } from './http.js';
import {
  AbortRunSchema,
  AnswerLinkSchema,
  type AnswerLink,
  type AnswerLinkInput,
  AskEventsSchema,
  AskListSchema,
  type AskList,
  type ListAsksInput,
  GuardBlockedSchema,
  type GuardBlocked,
  HistoryEventSchema,
  RunEventsSchema,
  RunViewSchema,
  type RunView,
  type StreamedHistoryEvent,
} from './views.js';

export * from './schemas.js';
export * from './errors.js';
export * from './webhook.js';
export {
  actionHash,
  assertApproved,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalInput,
  type ApprovalResult,
  type Decision,
} from './approval.js';
export {
  elicitationHandler,
  ElicitationRefusedError,
  type ElicitationBridgeOptions,
  type ElicitationHandler,
  type ElicitationRefusal,
  type ElicitResult,
} from './elicitation.js';
export { parseSse, type SseMessage } from './sse.js';
export {
  AnswerLinkSchema,
  AskListSchema,
  HistoryEventSchema,
  type AnswerLink,
  type AnswerLinkInput,
  RunViewSchema,
  type AskList,
  type ListAsksInput,
  type GuardBlocked,
  type HistoryEvent,
  type RunView,
  type StreamedHistoryEvent,
} from './views.js';

/**
 * What `ask()` accepts: the body of `POST /v1/asks` (question ids, `kind` and `multiSelect` optional;
 * each question a choice or a typed kind, see {@link QuestionInput}), or instead of questions an
 * `approval` (see {@link ApprovalInput}; check its result with {@link assertApproved}).
 */
export type AskInput = z.input<typeof AskRequestSchema>;
/**
 * What `answer()` accepts: `{answers}` (strings per question), `{values}` (JSON values per question: a
 * number for a number question, e.g. `{values: {replicas: 3}}`), both for different questions, or
 * `{skip: true}`; for an approval `{decision, reason?, arguments?}` (arguments with `edit` only);
 * optionally `by`.
 */
export type AnswerInput = z.input<typeof AnswerRequestSchema>;

/**
 * What `extend()` accepts: `{timeoutSeconds}` (from now) or `{expiresAt}` (ISO 8601 with an offset),
 * optionally `by` (who asked, recorded in the ask's history).
 */
export type ExtendInput = ({ timeoutSeconds: number } | { expiresAt: string }) & { by?: string };

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

const enc = encodeURIComponent;

/** Typed client of askgate's HTTP API (v1). */
export class AskgateClient {
  private readonly http: HttpCaller;

  constructor(options: AskgateClientOptions) {
    this.http = new HttpCaller(
      options.url.replace(/\/+$/, ''),
      options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      options.requestTimeoutMs ?? 30_000,
      options.retryForMs ?? 60_000,
      options.token,
    );
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
    let record = await this.http.retrying(() => this.create(input, { idempotencyKey }));
    opts.onCreated?.(record);
    const wait = opts.waitSeconds ?? 30;
    try {
      while (record.status === 'pending') {
        if (signal?.aborted) throw abortError(signal);
        const id = record.id;
        record = await this.http.retrying(() => this.get(id, { wait, signal }), signal);
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
      await this.http.retrying(() => this.cancel(record.id), undefined, 5_000).catch(() => undefined);
      throw abortError(signal);
    }
    if (!record.result)
      throw new AskgateApiError(200, 'invalid_response', `ask ${record.id} is ${record.status} without a result`);
    return record.result;
  }

  /** Creates an ask (`POST /v1/asks`); `wait` blocks up to that many seconds for the result. */
  create(
    input: AskInput,
    opts: { idempotencyKey?: string; wait?: number; signal?: AbortSignal } = {},
  ): Promise<AskView> {
    const query = opts.wait ? `?wait=${opts.wait}` : '';
    const headers = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : undefined;
    return this.http.request('POST', `/v1/asks${query}`, AskViewSchema, {
      body: input,
      headers,
      signal: opts.signal,
      timeoutMs: this.pollTimeout(opts.wait),
    });
  }

  /** Reads an ask; with `wait` (seconds) long-polls until it is resolved or the wait ends. */
  get(askId: string, opts: { wait?: number; signal?: AbortSignal } = {}): Promise<AskView> {
    const query = opts.wait ? `?wait=${opts.wait}` : '';
    return this.http.request('GET', `/v1/asks/${enc(askId)}${query}`, AskViewSchema, {
      signal: opts.signal,
      timeoutMs: this.pollTimeout(opts.wait),
    });
  }

  /**
   * One page of pending asks, oldest first (`GET /v1/asks`): filter by `runId` or `channel`, and
   * pass `nextCursor` back as `cursor` until it is null. An ask created while you page may show
   * or not; none shows twice.
   */
  listAsks(query: ListAsksInput = {}): Promise<AskList> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const search = params.size > 0 ? `?${params}` : '';
    return this.http.request('GET', `/v1/asks${search}`, AskListSchema, {});
  }

  /** Cancels a pending ask (it ends `no_answer`/`cancelled`); 409 `already_resolved` when it had ended. */
  cancel(askId: string): Promise<AskView> {
    return this.http.request('POST', `/v1/asks/${enc(askId)}/cancel`, AskViewSchema, {});
  }

  /**
   * Moves a pending ask's deadline (`POST /v1/asks/:id/extend`): at least 60 s from now, at most
   * the ask's maximum (the long one when it has a way back: `async`, a `callbackUrl`). 409
   * `not_pending` once it ended; 400 naming the field when out of range.
   */
  extend(askId: string, body: ExtendInput): Promise<AskView> {
    return this.http.request('POST', `/v1/asks/${enc(askId)}/extend`, AskViewSchema, { body });
  }

  /** Answers (or skips) an ask through the API, as an operator would: `answers` as strings, or typed `values`. */
  answer(askId: string, body: AnswerInput): Promise<AskView> {
    return this.http.request('POST', `/v1/asks/${enc(askId)}/answer`, AskViewSchema, { body });
  }

  /**
   * A link to the ask's answer page for one recipient, to send through your own systems (needs
   * `ASKGATE_PUBLIC_URL` and `ASKGATE_LINK_SECRET` on the server: else 400 `links_not_configured`);
   * `{}`: a link anyone holding it may use (409 `link_needs_recipient` when the ask names `users`).
   */
  answerLink(askId: string, body: AnswerLinkInput = {}): Promise<AnswerLink> {
    return this.http.request('POST', `/v1/asks/${enc(askId)}/links`, AnswerLinkSchema, { body });
  }

  /** The run's current ask and its asks, newest first. */
  run(runId: string): Promise<RunView> {
    return this.http.request('GET', `/v1/runs/${enc(runId)}`, RunViewSchema, {});
  }

  /** Marks the run aborted: cancels its pending ask, if any. */
  abortRun(runId: string): Promise<z.output<typeof AbortRunSchema>> {
    return this.http.request('DELETE', `/v1/runs/${enc(runId)}`, AbortRunSchema, {});
  }

  /**
   * Notes on the run's open ask that a tool call did not run (what `askgate/guard` reports: a
   * `guard_blocked` history entry). Only the tool's name is sent, never its arguments; `askId` is the
   * ask the caller believes is open. 409 `no_pending_ask` when the run has none.
   */
  recordGuardBlocked(runId: string, blocked: { tool: string; askId?: string }): Promise<GuardBlocked> {
    const body = { tool: blocked.tool, ...(blocked.askId === undefined ? {} : { askId: blocked.askId }) };
    return this.http.request('POST', `/v1/runs/${enc(runId)}/guard-blocked`, GuardBlockedSchema, { body });
  }

  /** The history of an ask, oldest first. */
  events(askId: string): Promise<z.output<typeof AskEventsSchema>> {
    return this.http.request('GET', `/v1/asks/${enc(askId)}/events`, AskEventsSchema, {});
  }

  /** The history of every ask of a run, in time order. */
  runEvents(runId: string): Promise<z.output<typeof RunEventsSchema>> {
    return this.http.request('GET', `/v1/runs/${enc(runId)}/events`, RunEventsSchema, {});
  }

  /** Streams an ask's history (replay, then live) until `signal` aborts or askgate ends the stream (once the ask is done, or after an hour: resume with `lastEventId`). */
  streamEvents(
    askId: string,
    opts: { signal?: AbortSignal; lastEventId?: string } = {},
  ): AsyncGenerator<StreamedHistoryEvent> {
    return this.stream(`/v1/asks/${enc(askId)}/events`, opts);
  }

  /**
   * Streams the history of every ask of a run (ids are `<version>.<index>`) until `signal` aborts or
   * askgate ends it (after an hour: resume with `lastEventId`). A run without an ask yet streams too.
   * `onOpen` is called once askgate accepted the stream (before any entry); `onActivity` on every
   * chunk received, keep-alive comments included (askgate sends one every 15 s on a quiet stream).
   */
  streamRunEvents(
    runId: string,
    opts: { signal?: AbortSignal; lastEventId?: string; onOpen?: () => void; onActivity?: () => void } = {},
  ): AsyncGenerator<StreamedHistoryEvent> {
    return this.stream(`/v1/runs/${enc(runId)}/events`, opts);
  }

  private async *stream(
    path: string,
    opts: { signal?: AbortSignal; lastEventId?: string; onOpen?: () => void; onActivity?: () => void },
  ): AsyncGenerator<StreamedHistoryEvent> {
    const headers: Record<string, string> = { ...this.http.auth(), accept: 'text/event-stream' };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const response = await this.http.send(
      this.http.base + path,
      { method: 'GET', headers, signal: opts.signal },
      opts.signal,
    );
    // 204: the ask is done and every entry was sent (askgate tells an EventSource to stop reconnecting).
    if (response.status === 204) return;
    if (!response.ok || !response.body)
      throw apiErrorFrom(response.status, await response.json().catch(() => undefined));
    opts.onOpen?.();
    for await (const message of parseSse(response.body, opts.signal, opts.onActivity)) {
      const parsed = HistoryEventSchema.safeParse(JSON.parse(message.data));
      if (parsed.success) yield { ...parsed.data, id: message.id ?? '' };
    }
  }

  private pollTimeout(wait: number | undefined): number {
    return wait ? wait * 1000 + 15_000 : this.http.requestTimeoutMs;
  }
}
