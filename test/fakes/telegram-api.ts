import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiFail,
  NOT_MODIFIED,
  TOO_OLD,
  checkEntities,
  checkMarkup,
  checkText,
  fail,
  readParams,
  sameMarkup,
  type ApiCall,
  type CallbackAnswer,
  type Failure,
  type FakeChat,
  type FakeUser,
  type StoredMessage,
} from './telegram-rules.js';

export type { ApiCall, CallbackAnswer, Failure, FakeChat, FakeUser, Markup, StoredMessage } from './telegram-rules.js';

/** Options of the fake. */
export interface FakeTelegramOptions {
  token?: string;
  /** answerCallbackQuery later than this after the tap fails with "query is too old" (default 10 s). */
  callbackDeadlineMs?: number;
  /** Longest a getUpdates long poll is held, whatever its `timeout` (default 1 s). */
  longPollCapMs?: number;
  /** A webhook POST slower than this is abandoned and re-sent, like Telegram does (default 5 s). */
  webhookTimeoutMs?: number;
  /** Flood control per chat for sends and edits, as Telegram applies it (off by default): see {@link FloodRule}. */
  flood?: FloodRule;
}

/**
 * Telegram's flood control, simplified: more than `max` sends and edits to one chat within
 * `windowMs` get 429 "Too Many Requests: retry after N" with `parameters.retry_after`, and the
 * chat stays closed until then (a call during the wait is refused too, as Telegram does).
 */
export interface FloodRule {
  max: number;
  windowMs: number;
  retryAfterSeconds: number;
}

/** Methods flood control counts: what writes to a chat. */
const FLOODED = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup']);

/** A fake Telegram Bot API server on 127.0.0.1 for grammy: `apiRoot` = `url`. */
export class FakeTelegramApi {
  readonly token: string;
  readonly bot: FakeUser = { id: 700_000_001, is_bot: true, first_name: 'askgate', username: 'askgate_test_bot' };
  readonly calls: ApiCall[] = [];
  readonly answers: CallbackAnswer[] = [];
  /** Methods the bot ran by answering a webhook POST with them (also listed in `calls`). */
  readonly webhookReplies: { method: string; params: Record<string, unknown> }[] = [];
  /** Every update pushed, in order (as sent to the bot). */
  readonly pushed: any[] = [];
  readonly webhookLog: { update_id: number; attempt: number; status: number | 'timeout' | 'error'; ms: number }[] = [];
  webhook: { url: string; secret?: string } | null = null;
  url = '';
  callbackDeadlineMs: number;
  longPollCapMs: number;
  webhookTimeoutMs: number;
  flood: FloodRule | null;
  /** 429s the flood rule gave, per method. */
  readonly floods: { method: string; chat: number; at: number }[] = [];
  private readonly server: Server;
  private readonly chatWrites = new Map<number, { times: number[]; closedUntil: number }>();
  private readonly chats = new Map<number, FakeChat & { blocked?: boolean }>();
  private readonly messages = new Map<number, StoredMessage[]>();
  private readonly queries = new Map<string, { at: number; answered: boolean }>();
  private readonly failures = new Map<string, Failure[]>();
  private readonly delays = new Map<string, number[]>();
  private updates: any[] = [];
  private webhookQueue: { update: any; attempt: number }[] = [];
  private pumping = false;
  private nextUpdateId = 1;
  private readonly waiters = new Set<() => void>();
  private activePoll: ((conflict: boolean) => void) | null = null;

  private constructor(options: FakeTelegramOptions) {
    this.token = options.token ?? `${Math.floor(Math.random() * 1e9)}:${randomBytes(18).toString('base64url')}`;
    this.callbackDeadlineMs = options.callbackDeadlineMs ?? 10_000;
    this.longPollCapMs = options.longPollCapMs ?? 1000;
    this.webhookTimeoutMs = options.webhookTimeoutMs ?? 5000;
    this.flood = options.flood ?? null;
    this.server = createServer((req, res) => void this.onRequest(req, res));
  }

  /** Starts a fake on a free loopback port. */
  static async start(options: FakeTelegramOptions = {}): Promise<FakeTelegramApi> {
    const fake = new FakeTelegramApi(options);
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Adds a user and their private chat with the bot (chat id = user id). */
  addUser(
    id: number,
    first_name: string,
    extra: { last_name?: string; username?: string; is_bot?: boolean; language_code?: string } = {},
  ): FakeUser {
    const user: FakeUser = { id, is_bot: extra.is_bot ?? false, first_name, ...extra };
    this.chats.set(id, { id, type: 'private', first_name, ...(extra.username ? { username: extra.username } : {}) });
    return user;
  }

  /** Adds a group chat (negative id) the bot is a member of. */
  addGroup(id: number, title: string): FakeChat {
    const chat: FakeChat = { id, type: 'supergroup', title };
    this.chats.set(id, chat);
    return chat;
  }

  /** The user blocked the bot: sends to their private chat get 403. */
  block(chatId: number): void {
    this.chats.get(chatId)!.blocked = true;
  }

  /** The next `times` calls of `method` fail with `failure`. */
  failNext(method: string, failure: Failure, times = 1): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...Array.from({ length: times }, () => failure)]);
  }

  /** The next call of `method` reaches Telegram `ms` late: it is carried out (and answered) only then. */
  delayNext(method: string, ms: number): void {
    this.delays.set(method, [...(this.delays.get(method) ?? []), ms]);
  }

  /** The next `times` calls of `method` get 429 with `retry_after`. */
  rateLimitNext(method: string, retryAfterSeconds: number, times = 1): void {
    this.failNext(
      method,
      {
        error_code: 429,
        description: `Too Many Requests: retry after ${retryAfterSeconds}`,
        retry_after: retryAfterSeconds,
      },
      times,
    );
  }

  /** The next `times` calls of `method` get 403 (bot blocked by the user). */
  forbidNext(method: string, times = 1): void {
    this.failNext(method, { error_code: 403, description: 'Forbidden: bot was blocked by the user' }, times);
  }

  /** Every message in a chat, oldest first. */
  chatMessages(chatId: number | string): StoredMessage[] {
    return this.messages.get(Number(chatId)) ?? [];
  }

  /** One message, or undefined. */
  message(chatId: number | string, messageId: number | string): StoredMessage | undefined {
    return this.chatMessages(chatId).find((m) => m.message_id === Number(messageId));
  }

  /** The API calls of one method. */
  callsOf(method: string): ApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** A user taps a button (any `data`: clients can forge it) on a message; returns the query id. */
  tap(chatId: number | string, messageId: number | string, data: string, user: FakeUser): string {
    const message = this.message(chatId, messageId);
    if (!message) throw new Error(`fake: no message ${messageId} in chat ${chatId}`);
    const id = randomBytes(8).toString('hex');
    this.queries.set(id, { at: Date.now(), answered: false });
    this.pushUpdate({
      callback_query: { id, from: user, message: this.view(message), chat_instance: String(chatId), data },
    });
    return id;
  }

  /** Resolves with the answer of a callback query, or null after `ms`. */
  async answerOf(queryId: string, ms = 5000): Promise<CallbackAnswer | null> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const found = this.answers.find((a) => a.id === queryId);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 5));
    }
    return null;
  }

  /** A user sends `text` in a chat, optionally as a reply to a message; returns the stored message. */
  say(chatId: number | string, text: string, user: FakeUser, replyTo?: number | string): StoredMessage {
    const chat = this.chats.get(Number(chatId));
    if (!chat) throw new Error(`fake: no chat ${chatId}`);
    const message = this.store(chat, user, text, { reply_to: replyTo === undefined ? undefined : Number(replyTo) });
    this.pushUpdate({ message: this.view(message) });
    return message;
  }

  /** Queues a raw update (the update_id is assigned here). */
  pushUpdate(update: Record<string, unknown>): number {
    const full = { update_id: this.nextUpdateId++, ...update };
    this.pushed.push(full);
    if (this.webhook) {
      this.webhookQueue.push({ update: full, attempt: 0 });
      void this.pump();
    } else {
      this.updates.push(full);
      for (const wake of [...this.waiters]) wake();
    }
    return full.update_id;
  }

  /**
   * Delivers an update again with its own update_id, as Telegram does after a webhook answer that
   * never arrived, or to a poller whose offset had not moved past it (a crash before confirming).
   */
  redeliver(update: { update_id: number }): void {
    if (this.webhook) {
      this.webhookQueue.push({ update, attempt: 0 });
      void this.pump();
    } else {
      this.updates.push(update);
      for (const wake of [...this.waiters]) wake();
    }
  }

  /** Stops the server and drops its connections. */
  async close(): Promise<void> {
    this.webhook = null;
    for (const wake of [...this.waiters]) wake();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /**
   * Runs the method a bot put in its answer to a webhook POST, like Telegram does ("webhook
   * reply"): the bot never learns the result. Returns the answer the method would have had.
   */
  async webhookReply(body: string): Promise<{ status: number; body: Record<string, unknown> } | null> {
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return null;
    }
    if (typeof params?.method !== 'string') return null;
    const { method, ...rest } = params;
    this.webhookReplies.push({ method, params: rest });
    return this.invoke(method, rest, null);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const params = await readParams(req, url).catch(() => null);
    const send = (status: number, body: object) => {
      if (!res.writableEnded && !res.destroyed)
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const method = match?.[2] ?? url.pathname;
    if (!match || match[1] !== this.token || !params) {
      const failure = !match
        ? { error_code: 404, description: 'Not Found' }
        : match[1] !== this.token
          ? { error_code: 401, description: 'Unauthorized' }
          : { error_code: 400, description: 'Bad Request: unsupported body' };
      this.calls.push({ method, params: params ?? {}, at: Date.now(), ok: false, ...failure });
      return send(failure.error_code, { ok: false, ...failure });
    }
    const answer = await this.invoke(method, params, res);
    send(answer.status, answer.body);
  }

  /** Runs one Bot API method (failures injected first) and records the call. */
  private async invoke(
    method: string,
    params: Record<string, unknown>,
    res: ServerResponse | null,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const record = (ok: boolean, failure?: Failure) =>
      this.calls.push({
        method,
        params,
        at: Date.now(),
        ok,
        ...(failure ? { error_code: failure.error_code, description: failure.description } : {}),
      });
    try {
      const delay = this.delays.get(method)?.shift();
      if (delay) await new Promise((r) => setTimeout(r, delay));
      const injected = this.failures.get(method)?.shift();
      if (injected) throw new ApiFail(injected);
      this.checkFlood(method, params);
      const handler = (this.methods as Record<string, (p: any, res: ServerResponse | null) => unknown>)[method];
      if (!handler || (method === 'getUpdates' && !res)) fail(404, 'Not Found: method not found');
      const result = await handler!(params, res);
      record(true);
      return { status: 200, body: { ok: true, result } };
    } catch (error) {
      const failure =
        error instanceof ApiFail
          ? error.failure
          : { error_code: 500, description: `Internal Server Error: ${String(error)}` };
      record(false, failure);
      const parameters = failure.retry_after !== undefined ? { parameters: { retry_after: failure.retry_after } } : {};
      return {
        status: failure.error_code,
        body: { ok: false, error_code: failure.error_code, description: failure.description, ...parameters },
      };
    }
  }

  private readonly methods = {
    getMe: () => ({
      ...this.bot,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    }),
    deleteWebhook: (p: any) => {
      const pending = this.webhookQueue.map((q) => q.update);
      this.webhook = null;
      this.webhookQueue = [];
      this.updates = p.drop_pending_updates ? [] : [...pending, ...this.updates];
      return true;
    },
    setWebhook: (p: any) => {
      if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url)) fail(400, 'Bad Request: bad webhook: invalid URL');
      if (p.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(p.secret_token))
        fail(400, 'Bad Request: secret token contains unallowed characters');
      this.webhook = { url: p.url, ...(p.secret_token ? { secret: p.secret_token } : {}) };
      if (this.activePoll) this.activePoll(true);
      this.webhookQueue.push(...(p.drop_pending_updates ? [] : this.updates).map((update) => ({ update, attempt: 0 })));
      this.updates = [];
      void this.pump();
      return true;
    },
    getUpdates: async (p: any, res: ServerResponse) => {
      if (this.webhook)
        fail(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        );
      const offset = Number(p.offset ?? 0);
      const limit = Math.min(Number(p.limit ?? 100) || 100, 100);
      if (offset > 0) this.updates = this.updates.filter((u) => u.update_id >= offset);
      const timeoutMs = Math.min(Number(p.timeout ?? 0) * 1000, this.longPollCapMs);
      // Like Telegram, a new getUpdates ends the one still held with 409.
      this.activePoll?.(true);
      if (this.updates.length === 0 && timeoutMs > 0) {
        const conflict = await new Promise<boolean>((resolve) => {
          const done = (c = false) => {
            clearTimeout(timer);
            this.waiters.delete(wake);
            res.off('close', wake);
            if (this.activePoll === done) this.activePoll = null;
            resolve(c);
          };
          const wake = () => done(false);
          const timer = setTimeout(wake, timeoutMs);
          this.waiters.add(wake);
          res.once('close', wake);
          this.activePoll = done;
        });
        if (conflict)
          fail(
            409,
            'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          );
        if (res.destroyed) return []; // the client went away: keep the updates for the next poll
      }
      return this.updates.filter((u) => u.update_id >= offset).slice(0, limit);
    },
    sendMessage: (p: any) => {
      const chat = this.writableChat(p.chat_id);
      const text = checkText(p.text);
      checkEntities(p.entities, text);
      const markup = checkMarkup(p.reply_markup);
      const replyTo = p.reply_parameters?.message_id ?? p.reply_to_message_id;
      const allowMissing = p.reply_parameters?.allow_sending_without_reply ?? p.allow_sending_without_reply;
      if (replyTo !== undefined && !this.message(chat.id, replyTo) && !allowMissing)
        fail(400, 'Bad Request: message to be replied not found');
      const stored = this.store(chat, this.bot, text, {
        entities: p.entities,
        reply_markup: markup,
        reply_to: replyTo,
        parse_mode: p.parse_mode,
        message_thread_id: p.message_thread_id === undefined ? undefined : Number(p.message_thread_id),
      });
      return this.view(stored);
    },
    editMessageText: (p: any) => {
      const message = this.editable(p);
      const text = checkText(p.text);
      checkEntities(p.entities, text);
      const markup = checkMarkup(p.reply_markup);
      const same =
        message.text === text &&
        JSON.stringify(message.entities ?? []) === JSON.stringify(p.entities ?? []) &&
        sameMarkup(message.reply_markup, markup);
      if (same) fail(400, NOT_MODIFIED);
      Object.assign(message, {
        text,
        entities: p.entities,
        reply_markup: markup,
        parse_mode: p.parse_mode,
        edits: message.edits + 1,
      });
      return this.view(message);
    },
    editMessageReplyMarkup: (p: any) => {
      const message = this.editable(p);
      // Only an inline keyboard (or none, which removes it) may be set by this method.
      if (p.reply_markup !== undefined && !Array.isArray(p.reply_markup?.inline_keyboard))
        fail(400, "Bad Request: can't parse inline keyboard button: InlineKeyboardMarkup expected");
      const markup = checkMarkup(p.reply_markup);
      if (sameMarkup(message.reply_markup, markup)) fail(400, NOT_MODIFIED);
      Object.assign(message, { reply_markup: markup, edits: message.edits + 1 });
      return this.view(message);
    },
    answerCallbackQuery: (p: any) => {
      const query = this.queries.get(String(p.callback_query_id));
      if (!query || query.answered || Date.now() - query.at > this.callbackDeadlineMs) fail(400, TOO_OLD);
      if (typeof p.text === 'string' && p.text.length > 200) fail(400, 'Bad Request: MESSAGE_TOO_LONG');
      query!.answered = true;
      this.answers.push({
        id: String(p.callback_query_id),
        text: p.text ?? '',
        show_alert: Boolean(p.show_alert),
        at: Date.now(),
      });
      return true;
    },
  };

  /** Applies {@link FloodRule} to a write to a chat (a refused write counts too: it is a request). */
  private checkFlood(method: string, params: Record<string, unknown>): void {
    const rule = this.flood;
    if (!rule || !FLOODED.has(method)) return;
    const chat = Number(params.chat_id);
    const now = Date.now();
    const state = this.chatWrites.get(chat) ?? { times: [], closedUntil: 0 };
    this.chatWrites.set(chat, state);
    state.times = state.times.filter((t) => t > now - rule.windowMs);
    state.times.push(now);
    if (now < state.closedUntil || state.times.length > rule.max) {
      const retryAfter = Math.max(
        1,
        Math.ceil((Math.max(state.closedUntil, now + rule.retryAfterSeconds * 1000) - now) / 1000),
      );
      state.closedUntil = Math.max(state.closedUntil, now + rule.retryAfterSeconds * 1000);
      this.floods.push({ method, chat, at: now });
      throw new ApiFail({
        error_code: 429,
        description: `Too Many Requests: retry after ${retryAfter}`,
        retry_after: retryAfter,
      });
    }
  }

  private writableChat(chatId: unknown): FakeChat & { blocked?: boolean } {
    const chat = this.chats.get(Number(chatId));
    if (!chat) return fail(400, 'Bad Request: chat not found');
    if (chat.blocked)
      fail(
        403,
        chat.type === 'private'
          ? 'Forbidden: bot was blocked by the user'
          : 'Forbidden: bot was kicked from the group chat',
      );
    return chat;
  }

  private editable(p: any): StoredMessage {
    const chat = this.writableChat(p.chat_id);
    const message = this.message(chat.id, p.message_id);
    if (!message) return fail(400, 'Bad Request: message to edit not found');
    if (message.from.id !== this.bot.id) fail(400, "Bad Request: message can't be edited");
    return message;
  }

  private store(chat: FakeChat, from: FakeUser, text: string, extra: Partial<StoredMessage>): StoredMessage {
    const list = this.messages.get(chat.id) ?? [];
    this.messages.set(chat.id, list);
    const message: StoredMessage = {
      message_id: (list.at(-1)?.message_id ?? 100) + 1,
      chat,
      from,
      date: Math.floor(Date.now() / 1000),
      text,
      edits: 0,
    };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) (message as any)[k] = v;
    list.push(message);
    return message;
  }

  /** A stored message as the Bot API returns it. */
  private view(m: StoredMessage, nested = false): Record<string, unknown> {
    const { id, type, title, first_name, username } = m.chat;
    const replied = m.reply_to !== undefined && !nested ? this.message(m.chat.id, m.reply_to) : undefined;
    return {
      message_id: m.message_id,
      from: m.from,
      chat: {
        id,
        type,
        ...(title ? { title } : {}),
        ...(first_name ? { first_name } : {}),
        ...(username ? { username } : {}),
      },
      date: m.date,
      text: m.text,
      ...(m.edits > 0 ? { edit_date: m.date } : {}),
      ...(m.entities?.length ? { entities: m.entities } : {}),
      ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
      ...(m.message_thread_id !== undefined ? { message_thread_id: m.message_thread_id, is_topic_message: true } : {}),
      ...(replied ? { reply_to_message: this.view(replied, true) } : {}),
    };
  }

  /** Posts queued updates to the webhook one by one, re-sending on a slow or failed answer. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.webhook && this.webhookQueue.length > 0) {
        const item = this.webhookQueue[0]!;
        item.attempt++;
        const started = Date.now();
        let status: number | 'timeout' | 'error';
        try {
          const response = await fetch(this.webhook.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(this.webhook.secret ? { 'x-telegram-bot-api-secret-token': this.webhook.secret } : {}),
            },
            body: JSON.stringify(item.update),
            signal: AbortSignal.timeout(this.webhookTimeoutMs),
          });
          const reply = await response.text();
          status = response.status;
          if (status >= 200 && status < 300) await this.webhookReply(reply);
        } catch (error) {
          status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'error';
        }
        this.webhookLog.push({
          update_id: item.update.update_id,
          attempt: item.attempt,
          status,
          ms: Date.now() - started,
        });
        if ((typeof status === 'number' && status >= 200 && status < 300) || item.attempt >= 5)
          this.webhookQueue.shift();
        else await new Promise((r) => setTimeout(r, 100 * item.attempt));
      }
    } finally {
      this.pumping = false;
    }
  }
}
