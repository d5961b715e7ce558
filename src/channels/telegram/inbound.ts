import type { Api } from 'grammy';
import type { CallbackQuery, Message, Update, User } from 'grammy/types';
import type { ButtonPressed, InboundOutcome, InboundSink, Logger, TextReceived } from '../../core/ports.js';
import type { Responder } from '../../core/schemas.js';
import { responderOf } from '../shared/responder.js';
import { MESSAGE_MAX_CHARS, TOAST_MAX_CHARS, cut, deadline, describeError, type ChatPacer } from './limits.js';
import { outcomeNotice, outcomeWords } from '../../core/notices.js';
import { FALLBACK_LOCALE } from '../../core/i18n/index.js';
import { forceReplyIn, localeOf, telegramText, type ForceReply } from './words.js';
import { UNGATED, settleOrShow, type EffectGate } from '../shared/take-event.js';
import { isDraftTap, isSkipTap, type TelegramDrafts } from './draft-flow.js';
import { askedDecision, asDecisionReply, decisionPrompt, problemOf, promptDecision } from './approval-replies.js';

/** Text of the force-reply prompt sent after "Other…", in English (`ownWordsPrompt` in the person's words). */
export const OWN_WORDS_PROMPT = telegramText(FALLBACK_LOCALE, 'ownWordsPrompt');
/** How long a tap waits for the core before its callback query is answered empty. */
export const ACK_BUDGET_MS = 1500;
/** How long an answerCallbackQuery may take: the tap's spinner waits for it. */
const ACK_TIMEOUT_MS = 3000;
const REPLY_TIMEOUT_MS = 10_000;

/** What the inbound handler needs from the channel. */
export interface TelegramInboundDeps {
  api: Api;
  sink: InboundSink;
  logger: Logger;
  pacer: ChatPacer;
  /** Keeps track of work that outlives the update (the slow path of a tap). */
  track: (work: Promise<unknown>) => void;
  ackBudgetMs?: number;
  /** Forms answered on the message (drafts); without them (a sink without form sessions) their taps go to `button`. */
  drafts?: () => TelegramDrafts | null;
}

/** A tap handled: its toast, what follows the answer, and what follows when the answer had to go out empty. */
interface Handled {
  toast: string;
  after?: () => Promise<void>;
  late?: () => Promise<void>;
}
type Settled = { ok: true; handled: Handled } | { ok: false };

/** The person behind a Telegram user, as askgate records them. */
export function responder(from: User): Responder {
  return responderOf('telegram', {
    id: from.id,
    username: from.username,
    name: [from.first_name, from.last_name].filter(Boolean).join(' '),
  });
}

/** Text only may answer: captions, stickers and media answer nothing; nor do bots and bare commands. */
export function mayAnswer(m: Message): boolean {
  return !!m.from && !m.from.is_bot && typeof m.text === 'string' && !isBareCommand(m);
}

/** A message that is only a bot command ("/start", "/help@my_bot") answers nothing. */
function isBareCommand(m: Message): boolean {
  const first = m.entities?.[0];
  return first?.type === 'bot_command' && first.offset === 0 && first.length === m.text!.trim().length;
}

/** The callback data of the tapped message's inline keyboard (none for an inaccessible or inline message). */
function keyboardOf(q: CallbackQuery): string[] {
  const markup = q.message && 'reply_markup' in q.message ? q.message.reply_markup : undefined;
  return (markup?.inline_keyboard ?? []).flat().flatMap((b) => ('callback_data' in b ? [b.callback_data] : []));
}

function toastOf(outcome: InboundOutcome): string {
  return outcomeNotice(outcome, telegramText(outcomeWords(outcome).locale, 'ownWordsPrompt')) ?? '';
}

/** Turns Telegram updates into taps and text replies for the core, and tells the human the outcome. */
export class TelegramInbound {
  private readonly budget: number;

  constructor(private readonly deps: TelegramInboundDeps) {
    this.budget = deps.ackBudgetMs ?? ACK_BUDGET_MS;
  }

  /**
   * Handles one update; never throws (failures are logged and told to the human). Every message
   * sent is settled through `gate` first; the callback answer is not: Telegram takes one per query.
   */
  async handle(update: Update, api: Api = this.deps.api, gate: EffectGate = UNGATED): Promise<void> {
    if (update.callback_query) await this.onCallback(update.callback_query, api, gate);
    else if (update.message) await this.onMessage(update.message, gate);
  }

  /** `api` answers the query: the update's own API in webhook mode, whose first call may ride on the webhook's answer. */
  private async onCallback(q: CallbackQuery, api: Api, gate: EffectGate): Promise<void> {
    if (typeof q.data !== 'string' || q.from.is_bot) return this.ack(api, q.id, '');
    // `message` is absent for inline-mode messages and may be "inaccessible" (old): chat and id remain.
    const chat = q.message ? String(q.message.chat.id) : undefined;
    const questionId = q.message?.message_id;
    const event: ButtonPressed = {
      channel: 'telegram',
      token: q.data,
      user: responder(q.from),
      ...(chat ? { chat } : {}),
      ...localeOf(q.from),
    };
    // Without an answer from the core, the ask's language is not known: the person's, else English.
    const failedTap = telegramText(event.locale, 'failedTap');
    const work: Promise<Settled> = this.tapped(event, questionId, gate, keyboardOf(q)).then(
      (handled) => ({ ok: true as const, handled }),
      (error: unknown) => {
        this.deps.logger.error({ channel: 'telegram', err: describeError(error) }, 'tap could not be handled');
        return { ok: false as const };
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), this.budget)));
    const fast = await Promise.race([work, late]);
    clearTimeout(timer);
    if (fast) {
      await this.ack(api, q.id, fast.ok ? fast.handled.toast : failedTap);
      if (fast.ok) await fast.handled.after?.();
      return;
    }
    // Telegram allows one answer per query and it must come quickly: answer empty now, and
    // report the outcome in the chat once the core has decided.
    await this.ack(api, q.id, '');
    const slow = work.then(async (settled) => {
      if (!chat || questionId === undefined) return;
      if (!settled.ok) await this.reply(chat, questionId, failedTap, gate);
      else await settled.handled.late?.();
    });
    this.deps.track(slow);
  }

  /** A tap's work: a draft control goes to the drafts, any other button to the sink. */
  private async tapped(
    event: ButtonPressed,
    questionId: number | undefined,
    gate: EffectGate,
    shown: readonly string[],
  ): Promise<Handled> {
    const { chat } = event;
    const drafts = this.deps.drafts?.();
    if (drafts && chat !== undefined && questionId !== undefined && isDraftTap(event.token)) {
      const reply = (text: string, force?: ForceReply) => this.reply(chat, questionId, text, gate, force);
      const work = await drafts.tap({ ...event, chat }, { id: questionId, shown }, reply);
      const late = async () => {
        if (work.toast) await reply(work.toast);
        await work.after?.();
      };
      return { toast: work.toast, ...(work.after ? { after: work.after } : {}), late };
    }
    // Only a message whose keyboard is a draft's can have one held: a button prompt's Skip reads no draft.
    if (drafts && chat !== undefined && questionId !== undefined && isSkipTap(event.token) && shown.some(isDraftTap)) {
      const held = await drafts.skipHeld({ ...event, chat }, questionId);
      if (held) return { toast: held, late: () => this.reply(chat, questionId, held, gate).then(() => undefined) };
    }
    const outcome = await this.deps.sink.button(event);
    // Reject…, Request changes… and Edit… ask for words with their own prompt (approval-replies.ts).
    const asked = outcome.kind === 'need_text' ? askedDecision(event.token) : null;
    const toast = asked ? decisionPrompt(asked, outcomeWords(outcome)).toast : toastOf(outcome);
    if (chat === undefined || questionId === undefined) return { toast };
    return {
      toast,
      after: () => this.afterTap(outcome, chat, questionId, false, gate, asked),
      late: () => this.afterTap(outcome, chat, questionId, true, gate, asked),
    };
  }

  private async afterTap(
    outcome: InboundOutcome,
    chat: string,
    questionId: number,
    late: boolean,
    gate: EffectGate,
    asked: ReturnType<typeof askedDecision> = null,
  ): Promise<void> {
    if (outcome.kind === 'need_text') {
      const words = outcomeWords(outcome);
      const own = { text: telegramText(words.locale, 'ownWordsPrompt'), forceReply: forceReplyIn(words) };
      const prompt = asked ? decisionPrompt(asked, words) : own;
      const sent = await this.reply(chat, questionId, prompt.text, gate, prompt.forceReply);
      if (sent !== null) await this.bind(chat, sent, outcome.askId);
      return;
    }
    if (!late || outcome.kind === 'ignored') return;
    const sent = await this.reply(chat, questionId, toastOf(outcome), gate);
    if (sent !== null && (outcome.kind === 'partial' || outcome.kind === 'invalid'))
      await this.bind(chat, sent, outcome.askId);
  }

  private async onMessage(m: Message, gate: EffectGate): Promise<void> {
    if (!mayAnswer(m) || !m.from || typeof m.text !== 'string') return;
    const chat = String(m.chat.id);
    const target = m.reply_to_message;
    const event: TextReceived = {
      channel: 'telegram',
      chat,
      ...(target ? { replyTo: String(target.message_id) } : {}),
      privateChat: m.chat.type === 'private',
      user: responder(m.from),
      text: m.text,
      ...localeOf(m.from),
    };
    let outcome: InboundOutcome;
    // A reply to a decision's prompt is that decision's reason or edit, without its word.
    const asked = promptDecision(target);
    try {
      if (target && (await this.ownWords(chat, String(target.message_id), event, m.message_id, gate))) return;
      outcome = await this.deps.sink.text(asked ? { ...event, text: asDecisionReply(asked, m.text) } : event);
    } catch (error) {
      this.deps.logger.error({ channel: 'telegram', err: describeError(error) }, 'reply could not be handled');
      await this.reply(chat, m.message_id, telegramText(event.locale, 'failedText'), gate);
      return;
    }
    // Settled even when nothing is said, so a re-send is acknowledged at once instead of waiting out the lease.
    if (!(await this.settle(gate))) return;
    // A retried reply whose first attempt recorded it (and died before a word was sent): stay silent.
    if (gate.retried && outcome.kind === 'already_resolved') return;
    switch (outcome.kind) {
      case 'ignored':
      case 'recorded':
        return; // a recorded answer shows in the question message, which finalize edits
      case 'partial':
      case 'invalid':
      case 'need_text': {
        // Asked again like a typed answer's repair: nothing was decided.
        const again = asked && outcome.kind === 'invalid' ? problemOf(asked, outcome) : null;
        const prompt = asked && again != null ? decisionPrompt(asked, outcomeWords(outcome), again) : null;
        const text = prompt ? prompt.text : toastOf(outcome);
        const sent = await this.reply(chat, m.message_id, text, gate, prompt?.forceReply);
        if (sent !== null) await this.bind(chat, sent, outcome.askId);
        return;
      }
      default:
        await this.reply(chat, m.message_id, outcome.summary, gate);
    }
  }

  /** A reply to a draft's own-words prompt: the words go into the draft; false when it is an ordinary reply. */
  private async ownWords(
    chat: string,
    replyTo: string,
    event: TextReceived,
    messageId: number,
    gate: EffectGate,
  ): Promise<boolean> {
    const drafts = this.deps.drafts?.();
    if (!drafts) return false;
    const handled = await drafts.ownWords({ ...event, replyTo }, (text, force) =>
      this.reply(chat, messageId, text, gate, force),
    );
    if (!handled) return false;
    if (!(await this.settle(gate))) return true;
    if (handled.notice) await this.reply(chat, messageId, handled.notice, gate);
    await handled.after?.();
    return true;
  }

  /** Answers a callback query directly (no retry queue: the ack must not wait); failures are logged. */
  private async ack(api: Api, id: string, text: string): Promise<void> {
    try {
      await api.answerCallbackQuery(id, text ? { text: cut(text, TOAST_MAX_CHARS) } : {}, deadline(ACK_TIMEOUT_MS));
    } catch (error) {
      this.deps.logger.warn({ channel: 'telegram', err: describeError(error) }, 'answerCallbackQuery failed');
    }
  }

  /**
   * Sends `text` as a reply to a message once the update is settled; returns the new message id, or
   * null when another attempt settled it or the send failed (logged).
   */
  private async reply(
    chat: string,
    to: number,
    text: string,
    gate: EffectGate,
    forceReply?: ForceReply,
  ): Promise<number | null> {
    if (!text || !(await this.settle(gate))) return null;
    try {
      // Replies to a human are not deferred: pace when the slot is near, else send anyway.
      await this.deps.pacer.take(chat, true);
      const sent = await this.deps.api.sendMessage(
        chat,
        cut(text, MESSAGE_MAX_CHARS),
        {
          reply_parameters: { message_id: to, allow_sending_without_reply: true },
          link_preview_options: { is_disabled: true },
          ...(forceReply
            ? { reply_markup: { force_reply: true, input_field_placeholder: forceReply.placeholder } }
            : {}),
        },
        deadline(REPLY_TIMEOUT_MS),
      );
      return sent.message_id;
    } catch (error) {
      this.deps.logger.warn({ channel: 'telegram', chat, err: describeError(error) }, 'reply could not be sent');
      return null;
    }
  }

  /** Settles the update; a store that cannot answer does not silence the reply (Telegram re-sends nothing we answered). */
  private settle(gate: EffectGate): Promise<boolean> {
    return settleOrShow(gate, (error) =>
      this.deps.logger.warn(
        { channel: 'telegram', err: describeError(error) },
        'update could not be marked handled; replying anyway',
      ),
    );
  }

  private async bind(chat: string, messageId: number, askId: string): Promise<void> {
    try {
      await this.deps.sink.bindFollowUp('telegram', chat, String(messageId), askId);
    } catch (error) {
      this.deps.logger.warn({ channel: 'telegram', askId, err: describeError(error) }, 'follow-up could not be bound');
    }
  }
}
