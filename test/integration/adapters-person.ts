import { eventually } from '../helpers/http.js';
import type { RecordingChannel } from '../helpers/test-channel.js';
import type { AskgateClient } from '../../src/client/index.js';
import type { DeliveryRequest } from '../../src/core/ports.js';
import type { RunningAskgate } from '../../src/main.js';

/** A person in the test channel's chat: sees each ask askgate delivers there, taps a button or replies. */
export class Person {
  private seen = 0;
  readonly user = { channel: 'test', userId: 'u-person', username: 'person' };

  constructor(
    private readonly channel: RecordingChannel,
    private readonly sdk: AskgateClient,
    readonly chat: string,
  ) {}

  /** The next ask delivered to this chat (in order). */
  async nextAsk(): Promise<DeliveryRequest> {
    const request = await eventually(
      async () => this.channel.delivered.filter((d) => d.target.chat === this.chat)[this.seen],
      15_000,
    );
    this.seen++;
    return request;
  }

  /** Waits for the next ask and taps the button with this label. */
  async tap(label: string): Promise<DeliveryRequest> {
    const request = await this.nextAsk();
    const button = request.view.buttons?.find((b) => b.label.startsWith(label));
    if (!button) throw new Error(`no button "${label}" on ask ${request.askId}`);
    const outcome = await this.channel.sink!.button({
      channel: 'test',
      token: button.token,
      user: this.user,
      chat: this.chat,
    });
    if (outcome.kind !== 'recorded') throw new Error(`tap was ${outcome.kind}`);
    return request;
  }

  /** Waits for the next ask and replies to its message with this text (a number, a label or own words). */
  async reply(text: string): Promise<DeliveryRequest> {
    const request = await this.nextAsk();
    const messageId = await eventually(async () => {
      const view = await this.sdk.get(request.askId);
      const delivery = view.deliveries[0];
      return delivery?.status === 'sent' ? delivery.message?.messageId : undefined;
    });
    const outcome = await this.channel.sink!.text({
      channel: 'test',
      chat: this.chat,
      replyTo: messageId,
      privateChat: false,
      user: this.user,
      text,
    });
    if (outcome.kind !== 'recorded') throw new Error(`reply was ${outcome.kind}`);
    return request;
  }

  /** Waits for the next ask and skips it. */
  skip(): Promise<DeliveryRequest> {
    return this.reply('skip');
  }
}

/** Closes askgate (its close drops a socket that never sent a request: test/integration/shutdown.test.ts). */
export async function closeApp(app: RunningAskgate | undefined): Promise<void> {
  await app?.close();
}
