import { GrammyError, type Api } from 'grammy';
import { ChannelError, type Clock, type DeliveryRequest, type Logger } from '../../core/ports.js';
import type { OutcomeView, PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { type ChatPacer, deadline, describeError, isNotModified, toChannelError } from './limits.js';
import { renderFinal, renderPrompt } from './render.js';

const SEND_TIMEOUT_MS = 15_000;

/** Sends questions to Telegram and edits them to their outcome, paced per chat. */
export class TelegramDelivery {
  constructor(
    private readonly api: Api,
    private readonly pacer: ChatPacer,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Sends the question; buttons only for a single single-choice question. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const rendered = renderPrompt(request.view);
    const { chat, thread } = request.target;
    await this.pacer.take(chat);
    try {
      const sent = await this.api.sendMessage(
        chat,
        rendered.text,
        {
          entities: rendered.entities,
          link_preview_options: { is_disabled: true },
          ...(rendered.reply_markup ? { reply_markup: rendered.reply_markup } : {}),
          ...(thread ? { message_thread_id: Number(thread) } : {}),
        },
        deadline(SEND_TIMEOUT_MS),
      );
      return { chat: String(sent.chat.id), messageId: String(sent.message_id), ...(thread ? { thread } : {}) };
    } catch (error) {
      throw this.failure(error, 'sendMessage', chat);
    }
  }

  /** Edits the question to its outcome (body re-rendered from `view`) and removes the keyboard. */
  async finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    const messageId = Number(ref.messageId);
    if (!Number.isSafeInteger(messageId))
      throw new ChannelError(`not a Telegram message id: ${ref.messageId}`, true, undefined, {
        channel: 'telegram',
        method: 'editMessageText',
      });
    const final = renderFinal(renderPrompt(view).body, outcome);
    await this.pacer.take(ref.chat);
    try {
      // Without reply_markup, editMessageText drops the inline keyboard.
      await this.api.editMessageText(
        ref.chat,
        messageId,
        final.text,
        { entities: final.entities, link_preview_options: { is_disabled: true } },
        deadline(SEND_TIMEOUT_MS),
      );
    } catch (error) {
      if (isNotModified(error)) return;
      throw this.failure(error, 'editMessageText', ref.chat);
    }
  }

  private failure(error: unknown, method: string, chat: string): ChannelError {
    const mapped = toChannelError(error, method);
    if (mapped.retryAfterMs && error instanceof GrammyError && error.error_code === 429)
      this.pacer.blockUntil(chat, this.clock.now() + mapped.retryAfterMs);
    this.logger.warn(
      { channel: 'telegram', method, chat, permanent: mapped.permanent, err: describeError(error) },
      'telegram call failed',
    );
    return mapped;
  }
}
