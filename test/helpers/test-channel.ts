import { ChannelError, type Channel, type DeliveryRequest, type InboundSink } from '../../src/core/ports.js';
import type { MessageRef } from '../../src/core/schemas.js';
import type { OutcomeView } from '../../src/core/prompt-view.js';

/** A channel for tests: records what askgate sends and fails on demand, like a platform would. */
export class RecordingChannel implements Channel {
  readonly delivered: DeliveryRequest[] = [];
  readonly finalized: { ref: MessageRef; outcome: OutcomeView }[] = [];
  sink: InboundSink | null = null;
  private failures: ChannelError[] = [];
  private nextId = 1;

  constructor(readonly name = 'test') {}

  /** The next `deliver`/`finalize` calls throw these errors, in order. */
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

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = null;
  }
}
