import { Bot, GrammyError } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import type {
  Channel,
  Clock,
  DeliveryRequest,
  InboundHttpRequest,
  InboundHttpResponse,
  InboundRoute,
  InboundSink,
  Logger,
  SeenEvents,
  FormSessions,
} from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { TelegramInbound, mayAnswer } from './inbound.js';
import {
  DEFAULT_LEASE_MS,
  UNGATED,
  showOnceGate,
  takeEvent,
  takeOrPass,
  type EffectGate,
} from '../shared/take-event.js';
import { ChatPacer, DEFAULT_MIN_SEND_INTERVAL_MS, deadline, describeError } from './limits.js';
import { TelegramDelivery } from './delivery.js';
import { TelegramDrafts } from './draft-flow.js';
import { WEBHOOK_PATH, receiveWebhook, within } from './webhook.js';
import { botApiFetch } from './bot-api-fetch.js';
import { checkIdentity } from '../shared/startup.js';
import { systemClock } from '../../system-clock.js';
import { TELEGRAM_CAPABILITIES } from './capabilities.js';

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

export { WEBHOOK_PATH } from './webhook.js';

const UPDATES = ['message', 'callback_query'] as const;
const GET_ME_TIMEOUT_MS = 10_000;
/** Longest the update loop waits for one update before it takes the next (see the constructor). */
const LOOP_HOLD_MS = 100;
/** How long an answerCallbackQuery made after the webhook's answer went out may take (the tap's spinner waits). */
const LATE_ACK_TIMEOUT_MS = 3000;
/** Telegram keeps an update for 24 h and may re-send it until then. */
const UPDATE_KEEP_MS = 86_400_000;

/** The Telegram channel: grammy against the Bot API, long polling by default, webhook mode when a URL is set. */
export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  /** What Telegram renders: its views are built for it (core/capabilities.ts). */
  readonly capabilities = TELEGRAM_CAPABILITIES;
  private readonly bot: Bot;
  private readonly pacer: ChatPacer;
  private readonly delivery: TelegramDelivery;
  private readonly clock: Clock;
  /** Webhook updates claimed before grammy runs them, by update_id. */
  private readonly gates = new Map<number, EffectGate>();
  private seen: SeenEvents | undefined;
  private botId = 0;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly chatQueues = new Map<string, Promise<void>>();
  private inbound: TelegramInbound | null = null;
  /** Every prompt shape but a single single-choice question is answered on its keyboard, step by step. */
  private readonly drafts: TelegramDrafts;
  /** The sink's form sessions, once started (a test sink may have none: draft taps then go to `button`). */
  private forms: FormSessions | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly options: TelegramChannelOptions) {
    if (options.webhookUrl && !options.webhookSecret)
      throw new Error('TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET');
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
    this.clock = options.clock ?? systemClock;
    this.pacer = new ChatPacer(options.minSendIntervalMs ?? DEFAULT_MIN_SEND_INTERVAL_MS, () => this.clock.now());
    const forms = () => this.forms;
    this.drafts = new TelegramDrafts({
      api: this.bot.api,
      forms,
      pacer: this.pacer,
      clock: this.clock,
      logger: options.logger,
    });
    this.delivery = new TelegramDelivery(this.bot.api, this.pacer, this.clock, options.logger, this.drafts);
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
    this.bot.catch((err) =>
      options.logger.error({ channel: 'telegram', err: describeError(err.error) }, 'telegram update failed'),
    );
  }

  /** Sends the question: buttons for a single single-choice question, a draft's first step for the rest. */
  deliver(request: DeliveryRequest): Promise<MessageRef> {
    return this.delivery.deliver(request);
  }

  /** Edits the question to its outcome (body re-rendered from `view`) and removes the keyboard. */
  finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    return this.delivery.finalize(ref, outcome, view);
  }

  /** Posts a reminder as a reply to the question, paced per chat. */
  remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    return this.delivery.remind(ref, text, stillWanted);
  }

  /** Re-renders an open prompt (its tally) keeping the inline keyboard. */
  refresh(ref: MessageRef, view: PromptView): Promise<void> {
    return this.delivery.refresh(ref, view);
  }

  /** Checks the token, then starts long polling in the background or registers the webhook. */
  async start(sink: InboundSink): Promise<void> {
    const me = await this.identify();
    this.bot.botInfo = me;
    this.seen = sink.seen;
    this.botId = me.id;
    this.forms = sink.formSessions ?? null;
    this.inbound = new TelegramInbound({
      api: this.bot.api,
      sink,
      logger: this.options.logger,
      pacer: this.pacer,
      track: (work) => this.track(work),
      drafts: () => (this.forms ? this.drafts : null),
    });
    const log = { channel: 'telegram', bot: me.username };
    if (this.options.webhookUrl) {
      try {
        await this.bot.api.setWebhook(this.options.webhookUrl, {
          secret_token: this.options.webhookSecret!,
          allowed_updates: UPDATES,
          drop_pending_updates: false,
        });
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
          conflict
            ? 'telegram long polling stopped: another process polls with this token or a webhook is set'
            : 'telegram long polling stopped',
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

  private onWebhook(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    return receiveWebhook(request, {
      secret: this.options.webhookSecret,
      logger: this.options.logger,
      started: () => this.inbound !== null,
      take: (update) => this.take(update),
      run: (update, gate, reply) => {
        this.gates.set(update.update_id, gate);
        const send = async (payload: string) => void (reply(payload) || (await this.callInstead(payload)));
        const work = this.bot
          .handleUpdate(update, { send })
          .catch((error: unknown) => {
            this.options.logger.error({ channel: 'telegram', err: describeError(error) }, 'telegram update failed');
          })
          .finally(() => this.gates.delete(update.update_id));
        this.track(work);
        return work;
      },
    });
  }

  /**
   * Makes a webhook reply that came after the webhook's answer went out (a tap acknowledged late) as
   * an API call; grammy gives only answerCallbackQuery to webhook replies.
   */
  private async callInstead(payload: string): Promise<void> {
    const { method, ...params } = JSON.parse(payload) as { method: string; callback_query_id: string };
    if (method !== 'answerCallbackQuery') throw new Error(`unexpected webhook reply ${method}`);
    await this.bot.api.raw.answerCallbackQuery(params, deadline(LATE_ACK_TIMEOUT_MS));
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
    return mayAnswer(update.message) ? takeEvent(this.seen, 'telegram', id, ttl, this.clock) : UNGATED; // chatter: ignored, nothing to pay
  }

  /** {@link take} for long polling, which cannot ask for a re-send: null when another attempt has it. */
  private takePolled(update: Update): Promise<EffectGate | null> {
    return takeOrPass(
      () => this.take(update),
      (error) =>
        this.options.logger.warn(
          { channel: 'telegram', err: describeError(error) },
          'telegram update not de-duplicated: store unavailable',
        ),
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
          ? new Error(
              `TELEGRAM_BOT_TOKEN is invalid: the Telegram Bot API answered ${error.error_code} ${error.description} (get a token from @BotFather)`,
            )
          : null,
      unreachable: (error) =>
        new Error(
          `cannot reach the Telegram Bot API${this.options.apiRoot ? ` at ${this.options.apiRoot}` : ''}: ${describeError(error)}`,
        ),
    });
  }
}
