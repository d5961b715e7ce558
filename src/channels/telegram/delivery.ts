import { GrammyError, type Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { ChannelError, type Clock, type DeliveryRequest, type Logger } from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { type ChatPacer, deadline, describeError, isNotModified, toChannelError } from './limits.js';
import { renderFinal, renderPrompt, renderReminder, withOpen, type RenderedPrompt } from './render.js';
import type { TelegramDrafts } from './draft-flow.js';
import { draftInstructions } from './drafts-keyboard.js';

const SEND_TIMEOUT_MS = 15_000;

/** Sends questions to Telegram and edits them to their outcome, paced per chat. */
export class TelegramDelivery {
  constructor(
    private readonly api: Api,
    private readonly pacer: ChatPacer,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Forms answered on the message (every prompt without buttons whose keyboard fits). */
    private readonly drafts: TelegramDrafts,
  ) {}

  /** Sends the question; buttons only for a single single-choice question. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const keyboard = this.drafts.firstMarkup(request.view);
    const rendered = keyboard ? this.drafted(request.view, keyboard) : renderPrompt(request.view);
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
    const messageId = messageIdOf(ref, 'editMessageText');
    const final = renderFinal(renderPrompt(view).body, outcome);
    await this.pacer.take(ref.chat);
    // Before the edit: a draft keyboard edit racing this one sees it and takes its keyboard away again.
    // Only a prompt without buttons can have a draft: the hot path of a button prompt pays no command.
    if (view.form) await this.drafts.closed(ref, view.askId);
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

  /**
   * Posts a reminder as a reply to the question (in its forum topic when it has one), plain text and
   * paced like every send; a question that is gone fails the reminder (permanent 400) rather than
   * posting one that points at nothing.
   */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    const messageId = messageIdOf(ref, 'sendMessage');
    // The chat's send slot may be a while away: the ask can end during the wait.
    await this.pacer.take(ref.chat);
    if (stillWanted && !(await stillWanted())) return null;
    try {
      const sent = await this.api.sendMessage(
        ref.chat,
        renderReminder(text),
        {
          reply_parameters: { message_id: messageId },
          link_preview_options: { is_disabled: true },
          ...(ref.thread ? { message_thread_id: Number(ref.thread) } : {}),
        },
        deadline(SEND_TIMEOUT_MS),
      );
      return {
        chat: String(sent.chat.id),
        messageId: String(sent.message_id),
        ...(ref.thread ? { thread: ref.thread } : {}),
      };
    } catch (error) {
      throw this.failure(error, 'sendMessage', ref.chat);
    }
  }

  /** Re-renders an open prompt (e.g. its tally) with the same inline keyboard; an unchanged text is a success. */
  async refresh(ref: MessageRef, view: PromptView): Promise<void> {
    const messageId = messageIdOf(ref, 'editMessageText');
    await this.pacer.take(ref.chat);
    // The draft is read once the slot is ours, so the keyboard drawn is as fresh as can be.
    const drawn = await this.drafts.markupFor(view, ref);
    const rendered = drawn ? this.drafted(view, drawn.markup) : renderPrompt(view);
    try {
      await this.api.editMessageText(
        ref.chat,
        messageId,
        rendered.text,
        {
          entities: rendered.entities,
          link_preview_options: { is_disabled: true },
          ...(rendered.reply_markup ? { reply_markup: rendered.reply_markup } : {}),
        },
        deadline(SEND_TIMEOUT_MS),
      );
    } catch (error) {
      if (!isNotModified(error)) throw this.failure(error, 'editMessageText', ref.chat);
    }
    // A tap may have changed the draft while this edit was in flight: its keyboard is drawn again.
    if (drawn) await this.drafts.redrawIfMoved(view, ref, drawn.rev);
  }

  /** A prompt answered on its keyboard: its instructions say so, and the keyboard is the draft's. */
  private drafted(view: PromptView, keyboard: InlineKeyboardMarkup): RenderedPrompt {
    const rendered = renderPrompt({ ...view, instructions: draftInstructions(view) });
    return { ...rendered, reply_markup: withOpen(keyboard, rendered.open)! };
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

/** The numeric message id of a ref; a permanent ChannelError for one that is not a Telegram id. */
function messageIdOf(ref: MessageRef, method: string): number {
  const messageId = Number(ref.messageId);
  if (!Number.isSafeInteger(messageId))
    throw new ChannelError(`not a Telegram message id: ${ref.messageId}`, true, undefined, {
      channel: 'telegram',
      method,
    });
  return messageId;
}
