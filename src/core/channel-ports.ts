import type { MessageRef, Responder, Target } from './schemas.js';
import type { PromptView } from './prompt-view.js';
import type { OutcomeView } from './outcome-view.js';
import type { FormAnswer, FormProblem } from './forms.js';
import type { ButtonChoice } from './token.js';
import type { DraftKey, StoredDraft } from './form-draft-store.js';
import type { ChannelCapabilities } from './capabilities.js';
import type { Decision } from './approval/decisions.js';

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
  /** The person's language as the platform says (a BCP 47 tag): what only they see is in it (core/i18n). */
  locale?: string;
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
  /** The person's language as the platform says (a BCP 47 tag): what only they see is in it (core/i18n). */
  locale?: string;
}

/**
 * A form submitted on a platform (a Slack or Discord modal, a Telegram draft): every question's
 * choices and own words at once. Everything in it is untrusted.
 */
export interface FormSubmitted {
  channel: string;
  /** The token of the button that opened the form (kind `form`, `other` or `submit`). */
  token: string;
  user: Responder;
  /** Conversation the form was opened from, when the platform says. */
  chat?: string;
  /** One entry per question, in order. */
  answers: FormAnswer[];
  /** The person's language as the platform says (a BCP 47 tag): what only they see is in it (core/i18n). */
  locale?: string;
}

/**
 * A decision on an approval submitted from a channel's form (issue 36: a reason, edited arguments),
 * with the token of the decision button that opened it. Everything in it is untrusted: it is
 * checked like a decision through the API (`edit` against the schema, then hashed).
 */
export interface DecisionSubmitted {
  channel: string;
  token: string;
  user: Responder;
  chat?: string;
  locale?: string;
  decision: Decision;
  reason?: string;
  arguments?: unknown;
}

/**
 * What opening a form found: the prompt to draw (with what the tap asked for) and when the ask ends
 * (`expiresAt`, ISO 8601: state kept for the form, a Telegram draft, ends with the ask), or the
 * notice to show instead.
 */
export type FormOpening =
  /** `view` is in the ask's locale (a shared message); `locale`: the person's, for a form only they see (a modal). */
  | { kind: 'form'; view: PromptView; choice: ButtonChoice; expiresAt?: string; locale?: string }
  /** `view` (with `forbidden` for an open ask): the prompt as those it is for see it, e.g. to draw a read-only copy. */
  | (InboundOutcome & { view?: PromptView });

/**
 * What the human should be told after a tap or a reply. `locale`: the shipped locale its words are
 * in (the person's, else the ask's, else the default) when it is not English, so a channel's own
 * words beside it (e.g. its own-words prompt) can follow.
 */
export type InboundOutcome = { locale?: string } & (
  | { kind: 'recorded'; summary: string }
  | { kind: 'partial'; prompt: string; askId: string }
  | { kind: 'need_text'; prompt: string; askId: string }
  /** `problems`: for a form, what to fix beside each question (e.g. Slack's `response_action: errors`). */
  | { kind: 'invalid'; hint: string; askId: string; problems?: FormProblem[] }
  | { kind: 'already_resolved'; summary: string }
  | { kind: 'expired'; summary: string }
  | { kind: 'forbidden'; summary: string }
  | { kind: 'not_found'; summary: string }
  | { kind: 'ambiguous'; summary: string }
  | { kind: 'ignored' }
);

/**
 * What the platform reported of a message askgate sent (a WhatsApp status webhook). `reason`
 * (`failed`): a short code (`window_closed`, the platform's error code and title), never anyone's
 * words. The history entry it may make is stamped when it is committed, like every other entry, so
 * the platform's own time is not carried.
 */
export interface DeliveryStatusEvent {
  channel: string;
  chat: string;
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  reason?: string;
}

/** Where channels send normalised inbound events. */
export interface InboundSink {
  button(event: ButtonPressed): Promise<InboundOutcome>;
  text(event: TextReceived): Promise<InboundOutcome>;
  /**
   * A tap that opens a form or changes a draft (Answer, Other… where the platform has forms, a toggle):
   * checks the ask, its version, the conversation and the person, like a tap, and returns the prompt.
   */
  openForm(event: ButtonPressed): Promise<FormOpening>;
  /** A submitted form: answers every question at once, with the outcome a typed answer gets. */
  submitForm(event: FormSubmitted): Promise<InboundOutcome>;
  /** A decision from a form (issue 36); optional: test sinks and channels without approval forms have none. */
  decide?(event: DecisionSubmitted): Promise<InboundOutcome>;
  /**
   * A status of a message askgate sent: `failed` fails its delivery, `delivered` and `read` are noted
   * once each; a message askgate does not know changes nothing. Optional: test sinks have none.
   */
  deliveryStatus?(event: DeliveryStatusEvent): Promise<void>;
  /** Binds a follow-up message askgate sent (a hint, a prompt for the rest) to its ask, so replies to it count. */
  bindFollowUp(channel: string, chat: string, messageId: string, askId: string): Promise<void>;
  /** Event ids seen by every replica; without it (test sinks) every delivery is handled. */
  readonly seen?: SeenEvents;
  /**
   * Forms answered step by step on a message, for channels without modals (Telegram's keyboard);
   * test sinks may have none (a channel then passes such taps to `button`).
   */
  readonly formSessions?: FormSessions;
}

/**
 * What reaches a form session: a tap on a step's control (`onAsksMessage`: the tapped message shows
 * this ask's controls), a Skip tapped on such a message (held back while someone else holds the
 * form), or a reply to the session's own-words prompt (`replyTo`: that prompt's id).
 */
export type FormInput =
  | { kind: 'tap'; event: ButtonPressed & { chat: string }; messageId: string; onAsksMessage: boolean }
  | { kind: 'skip'; event: ButtonPressed & { chat: string }; messageId: string }
  | { kind: 'words'; event: TextReceived & { replyTo: string } };

/**
 * What the channel does after a form input: tell the person `notice` (empty: nothing; `locale`: its
 * shipped locale when not English), then draw the form's current step on the message (`draw`), after
 * asking for own words for `askOwn.question` (the channel sends the prompt, then `sent` its id).
 * `recorded`: the answer was recorded (it shows in the finalized message).
 */
export interface FormReply {
  notice: string;
  locale?: string;
  recorded?: boolean;
  draw?: { key: DraftKey; view: PromptView };
  askOwn?: { question: number; sent(promptId: string): Promise<void> };
}

/**
 * The form session of a prompt answered on its message (app/form-session.ts): a draft per message
 * and holder, every input applied by compare-and-set, a complete draft answered like a typed answer.
 */
export interface FormSessions {
  /** Applies one input; a submit costs one record read and one commit. Null: not the session's (a Skip not held, an ordinary reply). */
  step(input: FormInput): Promise<FormReply | null>;
  /** The draft a message shows now, for drawing it (null: none yet). */
  shown(key: DraftKey): Promise<StoredDraft | null>;
  /** Marks a message's draft finalized, before the outcome edit (a racing keyboard edit then undoes itself). */
  close(key: DraftKey): Promise<void>;
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
  /** When the ask ends (ISO 8601): links a channel hands out (the answer page's) expire with it. */
  expiresAt?: string;
}

/** An inbound HTTP request as a channel sees it: headers, the exact raw body (for signatures; empty for a GET) and the query. */
export interface InboundHttpRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The query string's parameters (a signed link's), each name's last value; untrusted. */
  query?: Record<string, string>;
}

/** The response a channel's inbound route sends. */
export interface InboundHttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; an object as JSON. */
  body?: string | object;
}

/** A route a channel serves on askgate's one HTTP port (e.g. `POST /slack/events`, or `GET` for a signed link). */
export interface InboundRoute {
  method: 'GET' | 'POST';
  path: string;
  /** Largest body it takes, in bytes, when it is not the server's (e.g. a raw mail); larger ones get 413. */
  bodyLimit?: number;
  handle(request: InboundHttpRequest): Promise<InboundHttpResponse>;
}

/** A chat platform adapter. */
export interface Channel {
  /** Channel name used in `to.channel`. */
  readonly name: string;
  /** What it renders (core/capabilities.ts); absent: every control (test channels). */
  readonly capabilities?: ChannelCapabilities;
  /** Sends the question; returns where the message lives. Throws {@link ChannelError}. */
  deliver(request: DeliveryRequest): Promise<MessageRef>;
  /**
   * Edits a delivered message to show the outcome and removes its buttons; `view` is the prompt as
   * delivered, so the edit can keep the question text without reading the message back.
   * Throws {@link ChannelError}.
   */
  finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void>;
  /**
   * Posts the outcome as a new message in the delivered message's conversation, for a channel whose
   * capabilities say it cannot edit (`edits: false`); returns where it lives. Throws {@link ChannelError}.
   */
  post?(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<MessageRef>;
  /**
   * Posts a short reminder tied to a delivered message (a reply to it; a thread reply on Slack), mentions
   * suppressed. `stillWanted` is asked right before the post, after any wait for the platform's rate
   * limit: when it says no (the ask ended meanwhile), nothing is posted and the result is null.
   * Throws {@link ChannelError}.
   */
  remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null>;
  /**
   * Re-renders a still-open prompt with its buttons (e.g. the tally of an ask that needs several matching
   * answers). `target`: who the delivery is for (its `users`, when it names them), for a channel that
   * draws the prompt for them alone (Teams' `refresh.userIds`). Throws {@link ChannelError}.
   */
  refresh(ref: MessageRef, view: PromptView, target?: { users?: readonly string[] }): Promise<void>;
  /** Starts receiving inbound events. */
  start(sink: InboundSink): Promise<void>;
  /** Stops receiving and releases resources. */
  stop(): Promise<void>;
  /** HTTP routes this channel serves (webhooks), registered before the server listens. */
  routes?(): InboundRoute[];
}

/** One conversation a channel learned: its key (the conversation id) and what the channel keeps of it (its own JSON). */
export interface DirectoryEntry {
  key: string;
  value: string;
}

/**
 * Conversations the channels learned, shared by every replica and kept across restarts: what a
 * channel needs to post there later (a Teams conversation reference: its service URL, tenant and
 * name), and what an operator lists to find ids (`GET /v1/channels/:channel/conversations`).
 */
export interface ChannelDirectory {
  /** Keeps (or replaces) what `channel` knows of the conversation `key`. */
  put(channel: string, key: string, value: string): Promise<void>;
  /** What `channel` keeps of `key`, or null. */
  get(channel: string, key: string): Promise<string | null>;
  /** A page of `channel`'s conversations (unordered); `cursor` continues a listing, absent in the last page. */
  list(
    channel: string,
    page: { cursor?: string; limit: number },
  ): Promise<{ entries: DirectoryEntry[]; cursor?: string }>;
}
