import type { AskRecord, MessageRef, Responder, Target, WebhookPayload } from './schemas.js';
import type { PromptView, OutcomeView } from './prompt-view.js';

/** Source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Result of {@link AskStore.create}. */
export type CreateResult =
  | { status: 'created'; record: AskRecord; superseded: AskRecord | null }
  | { status: 'exists'; record: AskRecord }
  | { status: 'conflict' };

/** Arguments of {@link AskStore.create}. */
export interface CreateArgs {
  /** The new record (status pending, rev 0, version = run's last version + 1). */
  record: AskRecord;
  /** The run's version counter the caller read; the create fails with `conflict` if it moved. */
  expectedVersion: number;
  /** The run's pending ask as read (prev) and its superseded next state, when there was one. */
  supersede: { prev: AskRecord; next: AskRecord } | null;
  /** Time to live of the new record's keys, in ms. */
  ttlMs: number;
  /** Time to live for the superseded record, in ms (the retention window). */
  retentionMs: number;
}

/** Result of {@link AskStore.claimIdempotencyKey}. */
export interface IdempotencyClaim {
  /** The ask id bound to the key: the caller's own when it won, else the earlier one. */
  askId: string;
  /** Hash of the request body that first claimed the key. */
  requestHash: string;
  /** True when this call claimed the key. */
  won: boolean;
}

/** A conversation on a platform: where text replies are routed from. */
export interface ConversationKey {
  channel: string;
  chat: string;
}

/**
 * Durable storage of asks. Every state change is one atomic compare-and-set on the record's
 * `rev`; implementations: Redis (Lua) and memory. All methods are safe to call concurrently.
 */
export interface AskStore {
  /** Binds an idempotency key to an ask id (SET NX semantics); returns the winning binding. */
  claimIdempotencyKey(key: string, requestHash: string, askId: string, ttlMs: number): Promise<IdempotencyClaim>;
  /**
   * Creates a record atomically: `exists` when the ask id already exists (idempotent retry),
   * `conflict` when the run's version or the superseded record's rev moved (re-read and retry).
   * A superseded record that reaches a terminal state is published on the result bus. Both
   * records' history growth is announced on the bus (`notifyHistory`) in the same atomic step.
   */
  create(args: CreateArgs): Promise<CreateResult>;
  /** Reads a record by ask id, or null when unknown or expired. */
  get(askId: string): Promise<AskRecord | null>;
  /** The run's latest ask (pending or not) and its version counter (0 for an unknown run). */
  getRun(runId: string): Promise<{ current: AskRecord | null; version: number }>;
  /** The run's asks, newest first, at most `limit`. */
  history(runId: string, limit: number): Promise<AskRecord[]>;
  /**
   * Replaces `prev` with `next` if the stored rev still equals `prev.rev` (`next.rev` must be
   * `prev.rev + 1`). With `publish`, announces `next.id` on the result bus in the same atomic step;
   * every commit also announces the history growth (`notifyHistory`) in that step.
   */
  commit(prev: AskRecord, next: AskRecord, opts: { ttlMs: number; publish: boolean }): Promise<'ok' | 'conflict' | 'missing'>;

  /** The most recently created asks (pending or not), newest first, at most `limit`. */
  recent(limit: number): Promise<AskRecord[]>;

  /**
   * Schedules the reconciler to look at an ask at `atMs` or earlier: the earlier of the existing
   * and the new time, and always a change of the stored time (1 ms earlier when the existing one
   * is already earlier), so a reconciler pass that read the ask before this mark cannot move it
   * later ({@link rescheduleSweep} with `seenAt`).
   */
  markForSweep(askId: string, atMs: number): Promise<void>;
  /** Asks whose sweep time is at or before `nowMs`, oldest first, with that time. */
  dueForSweep(nowMs: number, limit: number): Promise<SweepEntry[]>;
  /**
   * Sets the next sweep time of an ask; with `seenAt`, only if its sweep time is still the one
   * listed by {@link dueForSweep} (returns false when it moved: someone marked it meanwhile).
   */
  rescheduleSweep(askId: string, atMs: number, seenAt?: number): Promise<boolean>;
  /** Removes an ask from the sweep index. */
  unmarkSweep(askId: string): Promise<void>;

  /** Records that an ask waits for replies in a conversation until `untilMs`. */
  addToConversation(conv: ConversationKey, askId: string, untilMs: number): Promise<void>;
  /** Removes an ask from a conversation's pending set. */
  removeFromConversation(conv: ConversationKey, askId: string): Promise<void>;
  /** Ask ids waiting in a conversation whose `untilMs` is after `nowMs`. */
  pendingInConversation(conv: ConversationKey, nowMs: number): Promise<string[]>;
  /** Maps a platform message id to its ask, so replies to that message find the ask. */
  bindMessage(conv: ConversationKey, messageId: string, askId: string, ttlMs: number): Promise<void>;
  /** The ask a platform message belongs to, or null. */
  findByMessage(conv: ConversationKey, messageId: string): Promise<string | null>;

  /** Throws when the store cannot serve requests. */
  ping(): Promise<void>;
}

/** An ask due for the reconciler, with the sweep time it was listed at. */
export interface SweepEntry {
  askId: string;
  at: number;
}

/** Wakes waiters when an ask reaches a terminal state, across processes. */
export interface ResultBus {
  /** Calls `listener` when `askId` is announced; returns an unsubscribe function. */
  subscribe(askId: string, listener: () => void): () => void;
  /** Calls `listener` whenever the history of any ask grows; returns an unsubscribe function. */
  subscribeHistory(listener: (askId: string, runId: string) => void): () => void;
  /** Announces that an ask's history grew; stores that cannot do it atomically call it (best effort, readers re-read). */
  notifyHistory(askId: string, runId: string): Promise<void>;
  /** Stops delivering and unsubscribes; connections passed in stay open for their owner to close. */
  close(): Promise<void>;
}

/** The scheduler of each ask's timed steps (defined in core/steps.ts). */
export type { StepHandler, StepHandlers, StepScheduler } from './steps.js';

/**
 * Work the outbox does with retries: deliver an ask to a target, edit it to its outcome, or POST
 * its result to the ask's `callbackUrl` (`index` is unused for webhooks and always 0).
 */
export type OutboxJob =
  | { kind: 'deliver'; askId: string; index: number }
  | { kind: 'finalize'; askId: string; index: number }
  | { kind: 'webhook'; askId: string; index: number };

/** What a webhook carries: the terminal result of one ask (defined once, in core/schemas.ts). */
export type { WebhookPayload };

/**
 * Signs and POSTs webhook payloads. Resolves with the HTTP status on 2xx; throws
 * {@link ChannelError} otherwise (`permanent` for 4xx other than 408/429).
 */
export interface WebhookSender {
  send(url: string, payload: WebhookPayload): Promise<{ status: number }>;
  /** Why `url` may not be a callbackUrl (a host its allow list refuses), or undefined; checked at creation. */
  refusal(url: URL): string | undefined;
}

/** Handlers the outbox calls; `run` throws {@link ChannelError} (or any error) to retry. */
export interface OutboxHandlers {
  /** Performs the job; throwing retries it with backoff (or not, for permanent errors). */
  run(job: OutboxJob): Promise<void>;
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

/** Where a {@link ChannelError} came from: the channel, the platform method, the error it maps (kept as `cause`, never logged whole). */
export interface ChannelErrorContext {
  channel?: string;
  method?: string;
  cause?: unknown;
}

/** A platform error: `permanent` errors are not retried; `retryAfterMs` honours the platform's hint. */
export class ChannelError extends Error {
  /** The channel that failed (`telegram`, `slack`, …), when known. */
  readonly channel?: string;
  /** The platform method or action that failed (`sendMessage`, `chat.update`, …), when known. */
  readonly method?: string;

  constructor(
    message: string,
    readonly permanent: boolean,
    readonly retryAfterMs?: number,
    context: ChannelErrorContext = {},
  ) {
    super(message, context.cause !== undefined ? { cause: context.cause } : undefined);
    this.name = 'ChannelError';
    if (context.channel !== undefined) this.channel = context.channel;
    if (context.method !== undefined) this.method = context.method;
  }
}

/** A button tap, normalised. `token` is untrusted data from the platform. */
export interface ButtonPressed {
  channel: string;
  token: string;
  user: Responder;
  /** Conversation the tap came from, when the platform says. */
  chat?: string;
}

/** A text message that may be a reply to an ask. */
export interface TextReceived {
  channel: string;
  chat: string;
  /** Id of the message this one replies to (or the thread root), when any. */
  replyTo?: string;
  /** True for one-to-one conversations (DMs), where the next message may count as a reply. */
  privateChat: boolean;
  user: Responder;
  text: string;
}

/** What the human should be told after a tap or a reply. */
export type InboundOutcome =
  | { kind: 'recorded'; summary: string }
  | { kind: 'partial'; prompt: string; askId: string }
  | { kind: 'need_text'; prompt: string; askId: string }
  | { kind: 'invalid'; hint: string; askId: string }
  | { kind: 'already_resolved'; summary: string }
  | { kind: 'expired'; summary: string }
  | { kind: 'forbidden'; summary: string }
  | { kind: 'not_found'; summary: string }
  | { kind: 'ambiguous'; summary: string }
  | { kind: 'ignored' };

/** Where channels send normalised inbound events. */
export interface InboundSink {
  button(event: ButtonPressed): Promise<InboundOutcome>;
  text(event: TextReceived): Promise<InboundOutcome>;
  /** Binds a follow-up message askgate sent (a hint, a prompt for the rest) to its ask, so replies to it count. */
  bindFollowUp(channel: string, chat: string, messageId: string, askId: string): Promise<void>;
  /** Event ids seen by every replica; without it (test sinks) every delivery is handled. */
  readonly seen?: SeenEvents;
}

/** A platform event claimed by {@link SeenEvents.claim}: `new`, or `retry` (an earlier attempt took it and never settled it). */
export interface EventClaim {
  readonly status: 'new' | 'retry';
  /** Marks it handled, right before its first visible effect: false when another attempt already did (show nothing). */
  settle(): Promise<boolean>;
  /** Gives it up after a failure, so a re-send is processed at once. */
  release(): Promise<void>;
}

/** How long one attempt holds an event (`leaseMs`), and how long it is remembered (`keepMs`, the re-send window). */
export type SeenTtl = { leaseMs: number; keepMs: number };

/**
 * Platform event ids (Slack `event_id`, Telegram `update_id`, Discord message ids) shared by every
 * replica: `done` when an attempt settled it, `busy` while another attempt's lease runs.
 */
export interface SeenEvents {
  claim(channel: string, eventId: string, ttl: SeenTtl): Promise<EventClaim | 'done' | 'busy'>;
}

/** What a channel needs to deliver one ask. */
export interface DeliveryRequest {
  askId: string;
  version: number;
  target: Target;
  view: PromptView;
}

/** An inbound HTTP request as a channel sees it: headers and the exact raw body (for signatures). */
export interface InboundHttpRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

/** The response a channel's inbound route sends. */
export interface InboundHttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; an object as JSON. */
  body?: string | object;
}

/** A route a channel serves on askgate's one HTTP port (e.g. `POST /slack/events`). */
export interface InboundRoute {
  method: 'POST';
  path: string;
  handle(request: InboundHttpRequest): Promise<InboundHttpResponse>;
}

/** A chat platform adapter. */
export interface Channel {
  /** Channel name used in `to.channel`. */
  readonly name: string;
  /** Sends the question; returns where the message lives. Throws {@link ChannelError}. */
  deliver(request: DeliveryRequest): Promise<MessageRef>;
  /**
   * Edits a delivered message to show the outcome and removes its buttons; `view` is the prompt as
   * delivered, so the edit can keep the question text without reading the message back.
   * Throws {@link ChannelError}.
   */
  finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void>;
  /** Starts receiving inbound events. */
  start(sink: InboundSink): Promise<void>;
  /** Stops receiving and releases resources. */
  stop(): Promise<void>;
  /** HTTP routes this channel serves (webhooks), registered before the server listens. */
  routes?(): InboundRoute[];
}

/** Counters and histograms the gateway reports (Prometheus in production). */
export interface Metrics {
  askCreated(channel: string): void;
  askResolved(status: string, reason: string | null, secondsOpen: number): void;
  deliveryFailed(channel: string): void;
}

/** Structured logger; never pass tokens or free-text answers. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
