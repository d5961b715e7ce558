import type { WebhookPayload } from './schemas.js';

export * from './store-ports.js';
export * from './channel-ports.js';
export * from './form-draft-store.js';

/** Source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The scheduler of each ask's timed steps (defined in core/steps.ts). */
export type { NotYet, ScheduledStep, StepHandler, StepHandlers, StepScheduler } from './steps.js';

/**
 * Work the outbox does with retries: deliver an ask to a target, edit it to its outcome, POST
 * its result to the ask's `callbackUrl` (`index` is unused for webhooks and always 0), post a
 * reminder, re-render an open prompt.
 */
export type OutboxJob =
  | { kind: 'deliver'; askId: string; index: number }
  | { kind: 'finalize'; askId: string; index: number }
  | { kind: 'webhook'; askId: string; index: number }
  /** Posts reminder `n` (1–3) under the message of delivery `index`. */
  | { kind: 'remind'; askId: string; index: number; n: number }
  /** Re-renders the still-open message of delivery `index` (the tally of an ask that needs several answers). */
  | { kind: 'refresh'; askId: string; index: number };

/** What a webhook carries: the terminal result of one ask (defined once, in core/schemas.ts). */
export type { WebhookPayload };

/** A webhook body in another protocol's format (an A2A push notification), with its content type and headers. */
export interface RenderedWebhook {
  body: string;
  contentType: string;
  /** Extra headers (the push config's credentials): secrets, never logged. */
  headers: Record<string, string>;
}

/**
 * Signs and POSTs webhook payloads. Resolves with the HTTP status on 2xx; throws
 * {@link ChannelError} otherwise (`permanent` for 4xx other than 408/429).
 */
export interface WebhookSender {
  /** POSTs `payload` as JSON, or `rendered` instead when given; either is signed. */
  send(url: string, payload: WebhookPayload, rendered?: RenderedWebhook): Promise<{ status: number }>;
  /** Why `url` may not be a callbackUrl (a host its allow list refuses), or undefined; checked at creation. */
  refusal(url: URL): string | undefined;
}

/** Handlers the outbox calls; `run` throws {@link ChannelError} (or any error) to retry. */
export interface OutboxHandlers {
  /**
   * Performs the job; throwing retries it with backoff (or not, for permanent errors).
   * `justQueued`: it runs in this process right after the commit that queued it (the in-process
   * outbox's first attempt), so no other run of it can have started, as that commit made it newly
   * needed: it may start from the store's kept copy instead of reading the record.
   */
  run(job: OutboxJob, justQueued?: boolean): Promise<void>;
  /** Called once when a job gave up: its retries ran out or the error was permanent. */
  giveUp(job: OutboxJob, error: Error): Promise<void>;
}

/** Durable queue of delivery and finalization work with retries and backoff. */
export interface Outbox {
  /** Enqueues a job; enqueuing the same job twice while it waits is harmless. */
  enqueue(job: OutboxJob): Promise<void>;
  /** Starts processing jobs. */
  start(handlers: OutboxHandlers): Promise<void>;
  /** Stops processing and releases connections. */
  close(): Promise<void>;
}

/** Counters and histograms the gateway reports (Prometheus in production). */
export interface Metrics {
  askCreated(channel: string): void;
  askResolved(
    status: string,
    reason: string | null,
    secondsOpen: number,
    labels?: { channel: string; kind: string; outcome: string },
  ): void;
  /** A delivery's message was sent, `seconds` after the ask was created. */
  askDelivered?(channel: string, kind: string, seconds: number): void;
  deliveryFailed(channel: string): void;
  /** A tool call a run's guard did not run, recorded on its open ask. */
  guardBlocked(): void;
}

/** Structured logger; never pass tokens or free-text answers. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
