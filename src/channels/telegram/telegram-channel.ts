import { createHash, timingSafeEqual } from 'node:crypto';
import { Bot, GrammyError } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import { ChannelError, type Channel, type DeliveryRequest, type InboundHttpRequest, type InboundHttpResponse, type InboundRoute, type InboundSink, type Logger } from '../../core/ports.js';
import type { OutcomeView, PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { TelegramInbound } from './inbound.js';
import { ChatPacer, DEFAULT_MIN_SEND_INTERVAL_MS, deadline, describeError, isNotModified, toChannelError } from './limits.js';
import { renderFinal, renderPrompt } from './render.js';
import { botApiFetch } from './bot-api-fetch.js';

/** Options of {@link TelegramChannel}. */
export interface TelegramChannelOptions {
  token: string;
  /** A Bot API server other than https://api.telegram.org (self-hosted, or a fake in tests). */
  apiRoot?: string;
  /** Public HTTPS URL of `POST /telegram/webhook`; without it the channel long-polls. */
  webhookUrl?: string;
  webhookSecret?: string;
  logger: Logger;
  /** Spacing of sends to one chat, in ms (default 1000). */
  minSendIntervalMs?: number;
  /** Long-poll timeout of getUpdates, in seconds (default 30). */
  pollTimeoutSeconds?: number;
}

/** Path of the webhook route on askgate's HTTP port. */
export const WEBHOOK_PATH = '/telegram/webhook';
const UPDATES = ['message', 'callback_query'] as const;
const SEND_TIMEOUT_MS = 15_000;
const WEBHOOK_ANSWER_MS = 1500;
const SEEN_UPDATES = 5000;
/** Longest the update loop waits for one update before it takes the next (see the constructor). */
const LOOP_HOLD_MS = 100;

/** A set of ids that forgets its oldest entries beyond `max`. */
class RecentIds {
  private readonly ids = new Set<number>();
  constructor(private readonly max: number) {}
  /** Adds `id`; false when it was already there. */
  add(id: number): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits for `work`, but at most `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** The Telegram channel: grammy against the Bot API, long polling by default, webhook mode when a URL is set. */
export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  private readonly bot: Bot;
  private readonly pacer: ChatPacer;
  private readonly seenUpdates = new RecentIds(SEEN_UPDATES);
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly chatQueues = new Map<string, Promise<void>>();
  private readonly secretHash: Buffer | null;
  private inbound: TelegramInbound | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly options: TelegramChannelOptions) {
    if (options.webhookUrl && !options.webhookSecret) throw new Error('TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET');
    const apiRoot = options.apiRoot?.replace(/\/+$/, '');
    // No auto-retry transformer: retries belong to the outbox, and acks must never queue behind them.
    // In webhook mode a tap's answerCallbackQuery rides on the answer to Telegram's POST (a "webhook
    // reply": one HTTP call fewer per tap; Telegram does not report its result, which askgate only
    // logged anyway). Only the update's own `ctx.api` can do that, and only for its first call.
    this.bot = new Bot(options.token, {
      client: {
        ...(apiRoot ? { apiRoot } : {}),
        timeoutSeconds: (options.pollTimeoutSeconds ?? 30) + 30,
        fetch: botApiFetch as unknown as typeof fetch,
        canUseWebhookReply: (method) => method === 'answerCallbackQuery',
      },
    });
    this.pacer = new ChatPacer(options.minSendIntervalMs ?? DEFAULT_MIN_SEND_INTERVAL_MS);
    this.secretHash = options.webhookSecret ? sha256(options.webhookSecret) : null;
    // Updates are handled concurrently: the update loop waits at most LOOP_HOLD_MS for each, so a
    // fast update is confirmed to Telegram (the next getUpdates offset) only once handled, and is
    // re-sent after a crash, while a slow store never holds back the acks of the taps queued behind
    // it (handled one by one, a burst of taps behind 1.5 s ones missed Telegram's answer deadline).
    // Messages of one chat keep their order.
    this.bot.use(async (ctx) => {
      const inbound = this.inbound;
      if (!inbound) return;
      const work = this.inOrder(ctx.update, () => inbound.handle(ctx.update, ctx.api)).catch((error: unknown) => {
        options.logger.error({ channel: 'telegram', err: describeError(error) }, 'telegram update failed');
      });
      this.track(work);
      await within(work, LOOP_HOLD_MS);
    });
    this.bot.catch((err) => options.logger.error({ channel: 'telegram', err: describeError(err.error) }, 'telegram update failed'));
  }

  /** Sends the question; buttons only for a single single-choice question. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const rendered = renderPrompt(request.view);
    const { chat, thread } = request.target;
    await this.pacer.take(chat);
    try {
      const sent = await this.bot.api.sendMessage(
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
    if (!Number.isSafeInteger(messageId)) throw new ChannelError(`not a Telegram message id: ${ref.messageId}`, true);
    const final = renderFinal(renderPrompt(view).body, outcome);
    await this.pacer.take(ref.chat);
    try {
      // Without reply_markup, editMessageText drops the inline keyboard.
      await this.bot.api.editMessageText(ref.chat, messageId, final.text, { entities: final.entities, link_preview_options: { is_disabled: true } }, deadline(SEND_TIMEOUT_MS));
    } catch (error) {
      if (isNotModified(error)) return;
      throw this.failure(error, 'editMessageText', ref.chat);
    }
  }

  /** Checks the token, then starts long polling in the background or registers the webhook. */
  async start(sink: InboundSink): Promise<void> {
    const me = await this.identify();
    this.bot.botInfo = me;
    this.inbound = new TelegramInbound({
      api: this.bot.api,
      sink,
      logger: this.options.logger,
      pacer: this.pacer,
      track: (work) => this.track(work),
    });
    const log = { channel: 'telegram', bot: me.username };
    if (this.options.webhookUrl) {
      try {
        await this.bot.api.setWebhook(this.options.webhookUrl, { secret_token: this.options.webhookSecret!, allowed_updates: UPDATES, drop_pending_updates: false });
      } catch (error) {
        throw new Error(`Telegram setWebhook failed (check TELEGRAM_WEBHOOK_URL): ${describeError(error)}`);
      }
      this.options.logger.info({ ...log, mode: 'webhook' }, 'telegram channel started');
      return;
    }
    this.polling = this.bot
      .start({ allowed_updates: UPDATES, drop_pending_updates: false, timeout: this.options.pollTimeoutSeconds ?? 30 })
      .catch((error: unknown) => {
        const conflict = error instanceof GrammyError && error.error_code === 409;
        this.options.logger.error(
          { ...log, err: describeError(error) },
          conflict ? 'telegram long polling stopped: another process polls with this token or a webhook is set' : 'telegram long polling stopped',
        );
      });
    this.options.logger.info({ ...log, mode: 'polling' }, 'telegram channel started');
  }

  /** Stops polling at once and gives in-flight updates a moment to finish. */
  async stop(): Promise<void> {
    if (this.polling) {
      await this.bot.stop().catch(() => {});
      await this.polling;
      this.polling = null;
    }
    if (this.inflight.size > 0) await within(Promise.allSettled([...this.inflight]), 2000);
    this.inbound = null;
  }

  /** `POST /telegram/webhook` in webhook mode; nothing in polling mode. */
  routes(): InboundRoute[] {
    if (!this.options.webhookUrl) return [];
    return [{ method: 'POST', path: WEBHOOK_PATH, handle: (request) => this.onWebhook(request) }];
  }

  private async onWebhook(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    const header = request.headers['x-telegram-bot-api-secret-token'];
    const given = Array.isArray(header) ? header[0] : header;
    // Hash both sides so the comparison takes the same time whatever the length of the guess.
    if (!this.secretHash || typeof given !== 'string' || !timingSafeEqual(sha256(given), this.secretHash)) {
      return { status: 401, body: { error: { code: 'unauthorized', message: 'missing or wrong X-Telegram-Bot-Api-Secret-Token' } } };
    }
    if (!this.inbound) return { status: 503, body: { error: { code: 'unavailable', message: 'telegram channel not started' } } };
    let update: Update;
    try {
      update = JSON.parse(request.rawBody.toString('utf8')) as Update;
    } catch {
      return { status: 400, body: { error: { code: 'invalid_request', message: 'body is not JSON' } } };
    }
    if (!update || typeof update.update_id !== 'number') return { status: 400, body: { error: { code: 'invalid_request', message: 'not a Telegram update' } } };
    // Telegram re-sends an update whose answer was slow or failed: handle each id once.
    if (!this.seenUpdates.add(update.update_id)) return { status: 200, body: { ok: true } };
    let reply: (payload: string) => void = () => {};
    const replied = new Promise<string>((resolve) => (reply = resolve));
    const work = this.bot.handleUpdate(update, { send: async (payload) => reply(payload) }).catch((error: unknown) => {
      this.options.logger.error({ channel: 'telegram', err: describeError(error) }, 'telegram update failed');
    });
    this.track(work);
    const answer = await Promise.race([replied, within(work, WEBHOOK_ANSWER_MS)]);
    if (typeof answer === 'string') return { status: 200, headers: { 'content-type': 'application/json' }, body: answer };
    return { status: 200, body: { ok: true } };
  }

  /** Runs the messages of one chat one after another; taps run at once. */
  private inOrder(update: Update, run: () => Promise<void>): Promise<void> {
    if (!update.message) return run();
    const chat = String(update.message.chat.id);
    const next = (this.chatQueues.get(chat) ?? Promise.resolve()).then(run, run);
    this.chatQueues.set(chat, next);
    const forget = () => {
      if (this.chatQueues.get(chat) === next) this.chatQueues.delete(chat);
    };
    next.then(forget, forget);
    return next;
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch(() => {}).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  /** getMe, so a bad token fails startup with a clear message (grammy's init would retry network errors forever). */
  private async identify(): Promise<UserFromGetMe> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bot.api.getMe(deadline(10_000));
      } catch (error) {
        if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
          throw new Error(`TELEGRAM_BOT_TOKEN is invalid: the Telegram Bot API answered ${error.error_code} ${error.description} (get a token from @BotFather)`);
        }
        if (attempt >= 3) throw new Error(`cannot reach the Telegram Bot API${this.options.apiRoot ? ` at ${this.options.apiRoot}` : ''}: ${describeError(error)}`);
        await sleep(500 * attempt);
      }
    }
  }

  private failure(error: unknown, method: string, chat: string): ChannelError {
    const mapped = toChannelError(error, method);
    if (mapped.retryAfterMs && error instanceof GrammyError && error.error_code === 429) this.pacer.blockUntil(chat, Date.now() + mapped.retryAfterMs);
    this.options.logger.warn({ channel: 'telegram', method, chat, permanent: mapped.permanent, err: describeError(error) }, 'telegram call failed');
    return mapped;
  }
}
