import {
  DiscordAPIError,
  MessageFlags,
  MessageReferenceType,
  RateLimitError,
  Routes,
  type Interaction,
  type Message,
  type REST,
} from 'discord.js';
import type { InboundOutcome, InboundSink, Logger, TextReceived } from '../../core/ports.js';
import { NO_MENTIONS } from './limits.js';
import { noticeText, renderNotice } from './render.js';
import { outcomeNotice } from '../../core/notices.js';
import { chooseLocale } from '../../core/i18n/index.js';
import { discordText } from './words.js';
import { DEFAULT_LEASE_MS, settleOrShow, takeEvent, takeOrPass, type EffectGate } from '../shared/take-event.js';
import { describeError } from '../shared/errors.js';
import { RecentIds } from '../shared/recent-ids.js';
import { responderOf } from './responder.js';
import { DiscordForms, opensModal } from './forms.js';

/**
 * Told to someone whose reply reached askgate without text (Message Content intent missing, or only
 * an attachment): `discord.unreadable`, in English, as neither the person's language (a message
 * carries none) nor the ask (unread) is known.
 */
export const EMPTY_CONTENT_HINT = discordText('en', 'unreadable');
/** `discord.failed` in English: a message whose ask could not be read. */
const FAILURE = discordText('en', 'failed');
const CHANNEL = 'discord';

/** What {@link DiscordInbound} needs. */
export interface DiscordInboundDeps {
  sink: InboundSink;
  /** REST client with the bot token, for replies to messages. */
  rest: REST;
  logger: Logger;
  /** The bot's user id once the gateway is ready. */
  botId: () => string;
  /** How long one attempt at a message holds it before another may take it over (default 5 s). */
  leaseMs?: number;
  /** How long the checks before a modal may take (default 2.5 s of Discord's 3). */
  modalOpenBudgetMs?: number;
}

/** The gateway re-delivers within a session's resume window (minutes): an hour is ample. */
const MESSAGE_KEEP_MS = 3_600_000;
/** Thread starters remembered (is it the bot's message?), so a busy server costs one lookup per thread. */
const THREAD_STARTERS_MAX = 1000;
/** Longest rate-limit wait a reply sits out once, in a worker. */
const REPLY_MAX_WAIT_MS = 10_000;
/** People whose client language is remembered (from their taps and modals) for their replies; bounded. */
const CLIENT_LOCALES_MAX = 10_000;

/** Normalises Discord taps and messages for the core and tells people the outcome. */
export class DiscordInbound {
  /** Thread id → started on a bot message; bounded, so a busy server without the intent costs one lookup per thread. */
  private readonly threadStarters = new RecentIds<boolean>(THREAD_STARTERS_MAX);
  /**
   * User id → the language their Discord client sent with their last interaction. A message carries
   * no language, so a reply is read in the one its author's client last said on this process (en-GB
   * writes the day first), else in the ask's.
   */
  private readonly clientLocales = new RecentIds<string>(CLIENT_LOCALES_MAX);

  private readonly forms: DiscordForms;

  constructor(private readonly deps: DiscordInboundDeps) {
    this.forms = new DiscordForms({
      sink: deps.sink,
      logger: deps.logger,
      ...(deps.modalOpenBudgetMs !== undefined ? { openBudgetMs: deps.modalOpenBudgetMs } : {}),
    });
  }

  /**
   * A button tap: ack first (type 6, no queue in front of it), then the CAS, then an ephemeral
   * follow-up. Answer and Other… open a modal instead, and a modal's submission answers (forms.ts).
   */
  async interaction(interaction: Interaction): Promise<void> {
    if (interaction.locale && this.clientLocales.get(interaction.user.id) !== interaction.locale)
      this.clientLocales.set(interaction.user.id, interaction.locale);
    if (interaction.isModalSubmit()) return this.forms.submit(interaction);
    if (!interaction.isButton()) return;
    if (opensModal(interaction.customId)) return this.forms.open(interaction);
    const { sink, logger } = this.deps;
    try {
      await interaction.deferUpdate();
    } catch (err) {
      // 10062: the 3 s window passed (the person saw "This interaction failed" and may tap
      // again); 40060: a duplicate delivery of a tap already being handled. Either way, do nothing.
      logger.warn(
        { channel: CHANNEL, interactionId: interaction.id, code: codeOf(err) },
        'discord interaction ack failed',
      );
      return;
    }
    const channel = interaction.channel;
    const chat = channel?.isThread() ? (channel.parentId ?? interaction.channelId) : interaction.channelId;
    let notice: string | null;
    let forbidden = false;
    try {
      const outcome = await sink.button({
        channel: CHANNEL,
        token: interaction.customId,
        user: responderOf(interaction.user),
        ...(chat ? { chat } : {}),
        // The person's client language: what only they see follows it.
        ...(interaction.locale ? { locale: interaction.locale } : {}),
      });
      notice = noticeOf(outcome);
      forbidden = outcome.kind === 'forbidden';
    } catch (err) {
      logger.error({ channel: CHANNEL, interactionId: interaction.id, err: describeError(err) }, 'discord tap failed');
      notice = discordText(chooseLocale(interaction.locale), 'failed');
    }
    if (notice === null) return;
    await interaction
      .followUp({ content: noticeText(notice, forbidden), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS })
      .catch((err: unknown) =>
        logger.warn({ channel: CHANNEL, interactionId: interaction.id, code: codeOf(err) }, 'discord follow-up failed'),
      );
  }

  /** A message: a reply to a question, a message in a thread started on one, or a DM. */
  async message(message: Message): Promise<void> {
    if (message.author.bot || message.system || message.webhookId) return;
    const { sink, logger, botId } = this.deps;
    const channel = message.channel;
    const privateChat = channel.isDMBased();
    const reference =
      message.reference && message.reference.type !== MessageReferenceType.Forward
        ? (message.reference.messageId ?? undefined)
        : undefined;
    const repliesToBot = reference !== undefined && message.mentions.repliedUser?.id === botId();
    let chat = message.channelId;
    let replyTo = reference;
    if (channel.isThread()) {
      // A thread started on a message has that message's id; replies to askgate's own follow-ups
      // inside it keep their reference, any other message in the thread answers the thread's question.
      chat = channel.parentId ?? message.channelId;
      replyTo = repliesToBot ? reference : channel.id;
    }
    if (!privateChat && !replyTo) return;
    // The same MESSAGE_CREATE reaches every gateway connection of the shard (one per replica) and
    // may be replayed on a resume: it is answered once.
    const gate = await this.take(message);
    if (!gate) return;
    const text = stripMention(message.content, botId()).trim();
    if (text === '') {
      if (privateChat || repliesToBot || (channel.isThread() && (await this.isOurs(chat, channel.id))))
        await this.reply(message, EMPTY_CONTENT_HINT, gate);
      else await this.settle(gate);
      return;
    }
    const locale = this.clientLocales.get(message.author.id);
    const event: TextReceived = {
      channel: CHANNEL,
      chat,
      ...(replyTo ? { replyTo } : {}),
      privateChat,
      user: responderOf(message.author),
      text,
      ...(locale ? { locale } : {}),
    };
    let outcome: InboundOutcome;
    try {
      outcome = await sink.text(event);
    } catch (err) {
      logger.error({ channel: CHANNEL, messageId: message.id, err: describeError(err) }, 'discord reply failed');
      await this.reply(message, FAILURE, gate);
      return;
    }
    // Settled even when nothing is said, so another replica holding the same event does not wait out the lease.
    if (!(await this.settle(gate))) return;
    // A retried message whose first attempt recorded it and died before replying: stay silent.
    const notice = gate.retried && outcome.kind === 'already_resolved' ? null : noticeOf(outcome);
    if (notice === null) return;
    const sentId = await this.reply(message, notice, gate, outcome.kind === 'forbidden');
    if (sentId && (outcome.kind === 'partial' || outcome.kind === 'invalid')) {
      await sink
        .bindFollowUp(CHANNEL, chat, sentId, outcome.askId)
        .catch((err: unknown) =>
          logger.warn(
            { channel: CHANNEL, askId: outcome.askId, err: describeError(err) },
            'discord follow-up not bound',
          ),
        );
    }
  }

  /** True when the message `messageId` in `channelId` was sent by the bot (a thread's starter). */
  private async isOurs(channelId: string, messageId: string): Promise<boolean> {
    const known = this.threadStarters.get(messageId);
    if (known !== undefined) return known;
    let ours = false;
    try {
      const m = (await this.deps.rest.get(Routes.channelMessage(channelId, messageId))) as { author?: { id?: string } };
      ours = m.author?.id === this.deps.botId();
    } catch {
      return false;
    }
    this.threadStarters.set(messageId, ours);
    return ours;
  }

  /** Takes the message for this attempt; null when another attempt settled it or holds it. A store that cannot answer does not stop the reply. */
  private take(message: Message): Promise<EffectGate | null> {
    return takeOrPass(
      () =>
        takeEvent(this.deps.sink.seen, CHANNEL, message.id, {
          leaseMs: this.deps.leaseMs ?? DEFAULT_LEASE_MS,
          keepMs: MESSAGE_KEEP_MS,
        }),
      (err) =>
        this.deps.logger.warn(
          { channel: CHANNEL, messageId: message.id, err: describeError(err) },
          'discord message not de-duplicated: store unavailable',
        ),
    );
  }

  /** Settles the message before anything is shown; an unreachable store does not silence it (Discord re-sends nothing). */
  private settle(gate: EffectGate): Promise<boolean> {
    return settleOrShow(gate, (err) =>
      this.deps.logger.warn(
        { channel: CHANNEL, err: describeError(err) },
        'discord message could not be marked handled; replying anyway',
      ),
    );
  }

  /** Replies to `message` with a notice once it is settled; returns the new message id, or null when not sent. */
  private async reply(message: Message, text: string, gate: EffectGate, mentionIds = false): Promise<string | null> {
    if (!(await this.settle(gate))) return null;
    const body = renderNotice(text, message.id, mentionIds);
    for (let attempt = 0; ; attempt++) {
      try {
        const sent = (await this.deps.rest.post(Routes.channelMessages(message.channelId), { body })) as { id: string };
        return sent.id;
      } catch (err) {
        // One short wait for a rate-limited bucket: hints matter, but not more than a minute of a worker.
        if (err instanceof RateLimitError && attempt === 0 && err.retryAfter <= REPLY_MAX_WAIT_MS) {
          await new Promise((r) => setTimeout(r, err.retryAfter));
          continue;
        }
        this.deps.logger.warn({ channel: CHANNEL, messageId: message.id, code: codeOf(err) }, 'discord reply not sent');
        return null;
      }
    }
  }
}

/** The text shown to the person for an outcome, or null to stay silent. */
function noticeOf(outcome: InboundOutcome): string | null {
  return outcomeNotice(outcome);
}

/** Removes mentions of the bot (`<@id>`, `<@!id>`): mentioning it is how text reaches it without the Message Content intent. */
function stripMention(content: string, botId: string): string {
  return botId ? content.replace(new RegExp(`<@!?${botId}>`, 'g'), ' ') : content;
}

function codeOf(err: unknown): string | number {
  if (err instanceof DiscordAPIError) return err.code;
  if (err instanceof RateLimitError) return 429;
  return err instanceof Error ? err.name : 'unknown';
}
