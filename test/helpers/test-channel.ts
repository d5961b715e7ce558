import { ChannelError, type Channel, type DeliveryRequest, type InboundSink } from '../../src/core/ports.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { OutcomeView } from '../../src/core/outcome-view.js';
import type { PromptView } from '../../src/core/prompt-view.js';
import type { ChannelCapabilities } from '../../src/core/capabilities.js';

/** A channel for tests: records what askgate sends and fails on demand, like a platform would. */
export class RecordingChannel implements Channel {
  readonly delivered: DeliveryRequest[] = [];
  readonly finalized: { ref: MessageRef; outcome: OutcomeView }[] = [];
  /** Outcomes posted as new messages (a channel declaring `edits: false`), with the message they follow. */
  readonly posted: { ref: MessageRef; outcome: OutcomeView; sent: MessageRef }[] = [];
  /** Reminders posted: the question they reply to, the text, and the reminder's own ref. */
  readonly reminded: { ref: MessageRef; text: string; sent: MessageRef }[] = [];
  /** Prompts re-rendered while open (tallies), with the view sent. */
  readonly refreshed: { ref: MessageRef; view: PromptView }[] = [];
  sink: InboundSink | null = null;
  private failures: ChannelError[] = [];
  private nextId = 1;

  /** `capabilities`: what it declares it renders (absent: every control, like most test channels). */
  constructor(
    readonly name = 'test',
    readonly capabilities?: ChannelCapabilities,
  ) {}

  private held: { started: () => void; released: Promise<void> } | null = null;

  /**
   * The next `refresh` waits until `release` is called (a platform call still in flight); `started`
   * resolves once that refresh has begun.
   */
  holdNextRefresh(): { started: Promise<void>; release: () => void } {
    let release!: () => void;
    let started!: () => void;
    const begun = new Promise<void>((resolve) => (started = resolve));
    this.held = { started, released: new Promise<void>((resolve) => (release = resolve)) };
    return { started: begun, release };
  }

  /** The next `deliver`/`finalize`/`remind`/`refresh` calls throw these errors, in order. */
  failNext(...errors: ChannelError[]): void {
    this.failures.push(...errors);
  }

  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.delivered.push(request);
    return { chat: request.target.chat, messageId: String(this.nextId++) };
  }

  async finalize(ref: MessageRef, outcome: OutcomeView): Promise<void> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.finalized.push({ ref, outcome });
  }

  async post(ref: MessageRef, outcome: OutcomeView): Promise<MessageRef> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    const sent = { chat: ref.chat, messageId: String(this.nextId++) };
    this.posted.push({ ref, outcome, sent });
    return sent;
  }

  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    if (stillWanted && !(await stillWanted())) return null;
    const failure = this.failures.shift();
    if (failure) throw failure;
    const sent = { chat: ref.chat, messageId: String(this.nextId++), ...(ref.thread ? { thread: ref.thread } : {}) };
    this.reminded.push({ ref, text, sent });
    return sent;
  }

  async refresh(ref: MessageRef, view: PromptView): Promise<void> {
    const held = this.held;
    this.held = null;
    if (held) {
      held.started();
      await held.released;
    }
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.refreshed.push({ ref, view });
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = null;
  }
}
