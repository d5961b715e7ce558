// The WhatsApp channel (Cloud API): a question is one message to the target's number (reply
// buttons, a list or text: render.ts), and everything after it (the outcome, reminders, notices) is
// a text reply to it (`context`), since WhatsApp cannot edit a business message. Inbound: the
// signed webhook (webhook.ts), each message claimed by its id so a re-delivery answers once, and
// each status of a sent message a delivery event (failed, delivered, read: app/inbound-status.ts).
import type {
  Channel,
  Clock,
  DeliveryRequest,
  InboundHttpRequest,
  InboundHttpResponse,
  InboundOutcome,
  InboundRoute,
  InboundSink,
  Logger,
} from '../../core/ports.js';
import { ChannelError } from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { outcomeNotice } from '../../core/notices.js';
import { systemClock } from '../../system-clock.js';
import { describeError } from '../shared/errors.js';
import { responderOf } from '../shared/responder.js';
import { settleOrShow, takeEvent } from '../shared/take-event.js';
import { WHATSAPP_CAPABILITIES } from './capabilities.js';
import { sendMessage, WINDOW_CLOSED_REASON, type GraphTarget } from './graph-api.js';
import { renderPrompt, templateMessage, textMessage } from './render.js';
import {
  readDelivery,
  signatureCheck,
  verifyChallenge,
  WEBHOOK_PATH,
  WebhookBody,
  type InboundMessage,
  type InboundStatus,
} from './webhook.js';

/** An E.164 number: `+`, then up to 15 digits. */
const E164 = /^\+[1-9]\d{6,14}$/;
/** One attempt holds a message for 10 s; its id is remembered 7 days (Meta re-delivers for up to 7 days). */
const MESSAGE_TTL = { leaseMs: 10_000, keepMs: 7 * 86_400_000 };
/** Largest webhook body taken. */
const WEBHOOK_BODY_MAX = 1_048_576;

/** Options of {@link WhatsAppChannel}. */
export interface WhatsAppChannelOptions extends GraphTarget {
  appSecret: string;
  verifyToken: string;
  /** WHATSAPP_TEMPLATE (`name:language`): sent when the 24-hour window is closed; without it, the delivery fails `window_closed`. */
  template?: string;
  logger: Logger;
  clock?: Clock;
}

/** The WhatsApp channel. */
export class WhatsAppChannel implements Channel {
  readonly name = 'whatsapp';
  readonly capabilities = WHATSAPP_CAPABILITIES;
  private readonly clock: Clock;
  private sink: InboundSink | null = null;

  constructor(private readonly options: WhatsAppChannelOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Sends the question to the target's number; its `wamid` is the message binding. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const { target, view } = request;
    if (!E164.test(target.chat))
      throw new ChannelError('not an E.164 number: the target needs "+" and the number', true, undefined, {
        channel: 'whatsapp',
      });
    const to = target.chat.slice(1);
    try {
      return { chat: target.chat, messageId: await sendMessage(this.options, { to, ...renderPrompt(view) }) };
    } catch (error) {
      // Outside the 24-hour window only an approved template may be sent: the operator's, when set.
      const template = this.options.template;
      if (!template || !(error instanceof ChannelError) || !error.message.startsWith(WINDOW_CLOSED_REASON)) throw error;
      const id = await sendMessage(this.options, { to, ...templateMessage(template, view) });
      this.options.logger.info({ channel: 'whatsapp', askId: request.askId }, 'window closed: sent the template');
      return { chat: target.chat, messageId: id };
    }
  }

  /** WhatsApp cannot edit a business message: the outcome is a reply to the question (the outbox calls {@link post}). */
  async finalize(ref: MessageRef, outcome: OutcomeView, _view: PromptView): Promise<void> {
    await this.post(ref, outcome);
  }

  /** Replies to the question with the outcome. */
  async post(ref: MessageRef, outcome: OutcomeView): Promise<MessageRef> {
    return { chat: ref.chat, messageId: await this.reply(ref.chat, ref.messageId, outcome.text) };
  }

  /** Replies to the question with a reminder, unless the ask ended meanwhile. */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    if (stillWanted && !(await stillWanted())) return null;
    return { chat: ref.chat, messageId: await this.reply(ref.chat, ref.messageId, text) };
  }

  /** Nothing to re-render: a sent message stays as sent (edits: false). */
  async refresh(): Promise<void> {}

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.options.logger.info({ channel: 'whatsapp' }, 'whatsapp channel started (webhook)');
  }

  async stop(): Promise<void> {
    this.sink = null;
  }

  /** `GET /whatsapp/webhook` (verification) and `POST /whatsapp/webhook` (deliveries). */
  routes(): InboundRoute[] {
    return [
      { method: 'GET', path: WEBHOOK_PATH, handle: async (r) => verifyChallenge(r, this.options.verifyToken) },
      { method: 'POST', path: WEBHOOK_PATH, bodyLimit: WEBHOOK_BODY_MAX, handle: (r) => this.onWebhook(r) },
    ];
  }

  /** A delivery: signature first (nothing read before it), then every message handled, then 200. */
  private async onWebhook(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    const signature = signatureCheck(request, this.options.appSecret);
    if (signature === 'missing') return { status: 401, body: { error: 'unauthorized' } };
    if (signature === 'forged') return { status: 403, body: { error: 'forbidden' } };
    let parsed;
    try {
      parsed = WebhookBody.safeParse(JSON.parse(request.rawBody.toString('utf8')));
    } catch {
      return { status: 400, body: { error: 'invalid_json' } };
    }
    // A shape askgate does not read is acknowledged: Meta would otherwise re-send it for days.
    if (!parsed.success) return { status: 200, body: { status: 'ignored' } };
    const sink = this.sink;
    if (!sink) return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'not_started' } };
    const { messages, statuses } = readDelivery(parsed.data, this.options.phoneNumberId);
    try {
      // A status is recorded at most once by core (a re-sent one changes nothing), so none is claimed.
      for (const s of statuses) await this.onStatus(sink, s);
      let busy = false;
      for (const message of messages) if ((await this.onMessage(sink, message)) === 'busy') busy = true;
      if (busy) return { status: 503, headers: { 'retry-after': '10' }, body: { error: 'busy' } };
    } catch (error) {
      this.options.logger.warn({ channel: 'whatsapp', err: describeError(error) }, 'webhook not handled');
      return { status: 503, headers: { 'retry-after': '10' }, body: { error: 'not_handled' } };
    }
    return { status: 200, body: { status: 'ok' } };
  }

  /** A status of a message askgate sent, as a delivery event; a failed one is also logged for the operator. */
  private async onStatus(sink: InboundSink, status: InboundStatus): Promise<void> {
    const { messageId, chat, reason } = status;
    if (status.status === 'failed')
      this.options.logger.warn({ channel: 'whatsapp', reason }, 'message reported failed');
    if (!chat || !sink.deliveryStatus) return;
    await sink.deliveryStatus({
      channel: 'whatsapp',
      chat,
      messageId,
      status: status.status,
      ...(reason ? { reason } : {}),
    });
  }

  /** One message: claimed by its id, handed to core, then the notice replied (once). */
  private async onMessage(sink: InboundSink, message: InboundMessage): Promise<'handled' | 'busy'> {
    const gate = await takeEvent(sink.seen, 'whatsapp', message.id, MESSAGE_TTL, this.clock);
    if (gate === 'done') return 'handled';
    if (gate === 'busy') return 'busy';
    const user = responderOf('whatsapp', { id: message.chat, ...(message.name ? { name: message.name } : {}) });
    const outcome: InboundOutcome =
      message.kind === 'tap'
        ? await sink.button({ channel: 'whatsapp', token: message.token, user, chat: message.chat })
        : await sink.text({
            channel: 'whatsapp',
            chat: message.chat,
            ...(message.replyTo ? { replyTo: message.replyTo } : {}),
            privateChat: true,
            user,
            text: message.text,
          });
    const shown = await settleOrShow(gate, (error) =>
      this.options.logger.warn({ channel: 'whatsapp', err: describeError(error) }, 'message not marked handled'),
    );
    if (!shown || (gate.retried && outcome.kind === 'already_resolved')) return 'handled';
    await this.tell(sink, message, outcome);
    return 'handled';
  }

  /** Replies what came of a message: nothing for a recorded answer (the outcome reply follows) or a refusal. */
  private async tell(sink: InboundSink, message: InboundMessage, outcome: InboundOutcome): Promise<void> {
    if (outcome.kind === 'recorded' || outcome.kind === 'ignored') return;
    const text = outcomeNotice(outcome);
    if (!text) return;
    try {
      const id = await this.reply(message.chat, message.id, text);
      // A reply to the prompt for the rest (or a hint) counts for the same ask.
      if ('askId' in outcome) await sink.bindFollowUp('whatsapp', message.chat, id, outcome.askId);
    } catch (error) {
      this.options.logger.warn({ channel: 'whatsapp', err: describeError(error) }, 'notice not sent');
    }
  }

  /** Sends `text` to `chat` as a reply to `messageId`; returns the new message's id. */
  private reply(chat: string, messageId: string, text: string): Promise<string> {
    return sendMessage(this.options, { to: chat.slice(1), ...textMessage(text, messageId) });
  }
}
