import { Bot, GrammyError } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import { ChannelError, type Channel, type Clock, type DeliveryRequest, type InboundHttpRequest, type InboundHttpResponse, type InboundRoute, type InboundSink, type Logger, type SeenEvents } from '../../core/ports.js';
import type { OutcomeView, PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { TelegramInbound, mayAnswer } from './inbound.js';
import { DEFAULT_LEASE_MS, UNGATED, showOnceGate, takeEvent, takeOrPass, type EffectGate } from '../shared/take-event.js';
import { ChatPacer, DEFAULT_MIN_SEND_INTERVAL_MS, deadline, describeError, isNotModified, toChannelError } from './limits.js';
import { renderFinal, renderPrompt } from './render.js';
import { botApiFetch } from './bot-api-fetch.js';
import { tokenMatches } from '../../security/http.js';
import { checkIdentity } from '../shared/startup.js';

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
  /** How long one attempt at an update holds it before a re-send may take it over, in ms (default 5 s; tests shorten it). */
  updateLeaseMs?: number;
  /** The clock sends are paced by (default: the system clock). */
  clock?: Clock;
}

/** Path of the webhook route on askgate's HTTP port. */
export const WEBHOOK_PATH = '/telegram/webhook';
const UPDATES = ['message', 'callback_query'] as const;
const SEND_TIMEOUT_MS = 15_000;
const GET_ME_TIMEOUT_MS = 10_000;
const WEBHOOK_ANSWER_MS = 1500;
/** Longest the update loop waits for one update before it takes the next (see the constructor). */
const LOOP_HOLD_MS = 100;
/** Telegram keeps an update for 24 h and may re-send it until then. */
const UPDATE_KEEP_MS = 86_400_000;


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
  private readonly clock: Clock;
  /** Webhook updates claimed before grammy runs them, by update_id. */
  private readonly gates = new Map<number, EffectGate>();
  private seen: SeenEvents | undefined;
  private botId = 0;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly chatQueues = new Map<string, Promise<void>>();
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
    this.clock = options.clock ?? { now: () => Date.now() };
    this.pacer = new ChatPacer(options.minSendIntervalMs ?? DEFAULT_MIN_SEND_INTERVAL_MS, () => this.clock.now());
    // Updates are handled concurrently: the update loop waits at most LOOP_HOLD_MS for each, so a
    // fast update is confirmed to Telegram (the next getUpdates offset) only once handled, and is
    // re-sent after a crash, while a slow store never holds back the acks of the taps queued behind
    // it (handled one by one, a burst of taps behind 1.5 s ones missed Telegram's answer deadline).
    // Messages of one chat keep their order.
    this.bot.use(async (ctx) => {
      const inbound = this.inbound;
      if (!inbound) return;
      const claimed = this.gates.get(ctx.update.update_id);
      const run = async () => {
        // Polling claims here (a poller that died before its offset moved on gets the update again); null: another attempt has it.
        const gate = claimed ?? (await this.takePolled(ctx.update));
        if (gate) await inbound.handle(ctx.update, ctx.api, gate);
      };
      const work = this.inOrder(ctx.update, run).catch((error: unknown) => {
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
    if (!Number.isSafeInteger(messageId)) throw new ChannelError(`not a Telegram message id: ${ref.messageId}`, true, undefined, { channel: 'telegram', method: 'editMessageText' });
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
    this.seen = sink.seen;
    this.botId = me.id;
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
    const secret = this.options.webhookSecret;
    if (!secret || typeof given !== 'string' || !tokenMatches(given, secret)) {
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
    // Telegram re-sends an update whose answer was slow or failed, to any replica: an update an
    // attempt settled is acknowledged without effect; one no attempt could be sure of fails, so
    // Telegram re-sends it later.
    let taken: EffectGate | 'done' | 'busy';
    try {
      taken = await this.take(update);
    } catch (error) {
      this.options.logger.warn({ channel: 'telegram', err: describeError(error) }, 'telegram update not taken: store unavailable');
      return { status: 503, body: { error: { code: 'unavailable', message: 'store unavailable, re-send later' } } };
    }
    if (taken === 'done') return { status: 200, body: { ok: true } };
    if (taken === 'busy') return { status: 503, body: { error: { code: 'in_progress', message: 'this update is being handled, re-send later' } } };
    let reply: (payload: string) => void = () => {};
    const replied = new Promise<string>((resolve) => (reply = resolve));
    this.gates.set(update.update_id, taken);
    const work = this.bot
      .handleUpdate(update, { send: async (payload) => reply(payload) })
      .catch((error: unknown) => {
        this.options.logger.error({ channel: 'telegram', err: describeError(error) }, 'telegram update failed');
      })
      .finally(() => this.gates.delete(update.update_id));
    this.track(work);
    const answer = await Promise.race([replied, within(work, WEBHOOK_ANSWER_MS)]);
    if (typeof answer === 'string') return { status: 200, headers: { 'content-type': 'application/json' }, body: answer };
    return { status: 200, body: { ok: true } };
  }

  /**
   * Takes an update (see {@link takeEvent}); the bot's id is part of the key, update ids are per bot.
   * A tap is not claimed (nothing to pay on the hot path): processing it again is harmless, a second
   * answer to its query is refused by Telegram, and only a message it sends is gated.
   */
  private async take(update: Update): Promise<EffectGate | 'done' | 'busy'> {
    const ttl = { leaseMs: this.options.updateLeaseMs ?? DEFAULT_LEASE_MS, keepMs: UPDATE_KEEP_MS };
    const id = `${this.botId}:${update.update_id}`;
    if (!update.message) return showOnceGate(this.seen, 'telegram', id, ttl);
    return mayAnswer(update.message) ? takeEvent(this.seen, 'telegram', id, ttl) : UNGATED; // chatter: ignored, nothing to pay
  }

  /** {@link take} for long polling, which cannot ask for a re-send: null when another attempt has it. */
  private takePolled(update: Update): Promise<EffectGate | null> {
    return takeOrPass(
      () => this.take(update),
      (error) => this.options.logger.warn({ channel: 'telegram', err: describeError(error) }, 'telegram update not de-duplicated: store unavailable'),
    );
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
  private identify(): Promise<UserFromGetMe> {
    return checkIdentity({
      call: () => this.bot.api.getMe(deadline(GET_ME_TIMEOUT_MS)),
      fatal: (error) =>
        error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)
          ? new Error(`TELEGRAM_BOT_TOKEN is invalid: the Telegram Bot API answered ${error.error_code} ${error.description} (get a token from @BotFather)`)
          : null,
      unreachable: (error) => new Error(`cannot reach the Telegram Bot API${this.options.apiRoot ? ` at ${this.options.apiRoot}` : ''}: ${describeError(error)}`),
    });
  }

  private failure(error: unknown, method: string, chat: string): ChannelError {
    const mapped = toChannelError(error, method);
    if (mapped.retryAfterMs && error instanceof GrammyError && error.error_code === 429) this.pacer.blockUntil(chat, this.clock.now() + mapped.retryAfterMs);
    this.options.logger.warn({ channel: 'telegram', method, chat, permanent: mapped.permanent, err: describeError(error) }, 'telegram call failed');
    return mapped;
  }
}
