import { FakeTelegramApi, type FakeUser } from '../../fakes/telegram-api.js';
import type { History } from './history.js';
import { Interposer, telegramCall, type Exchange, type Reply } from './interposer.js';
import type { RedisWatch, StoredAsk } from './redis-watch.js';

/** A Telegram message holding an ask: where it lives and its buttons (callback data by label). */
export interface Posted {
  askId: string;
  chat: string;
  messageId: string;
  buttons: Map<string, string>;
}

/** Options of a created ask. */
export interface AskOptions {
  timeoutSeconds: number;
  /** Restrict answers to the asker's user (the rig's user for this chat). */
  restrict?: boolean;
  multi?: boolean;
  runId?: string;
  /** Post into this chat (e.g. a group added with `fake.addGroup`) instead of the person's private chat. */
  chat?: string;
  /** Ask for this approval instead of the rig's question (issue 36). */
  approval?: { action: string; arguments: Record<string, unknown>; summary?: string };
}

const QUESTION = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }, { label: 'Canary' }],
};
const TOKEN = /^([0-9A-Za-z]{12,24})\.\d+\./;

/**
 * The Telegram side of a reliability run: the fake Bot API (3 s callback deadline) behind an
 * interposer that writes every call askgate makes into the history (toasts, notices, edits,
 * sends) and lets rows inject faults or crash askgate at exact points.
 */
export class TelegramRig {
  private nextUser = 500_000;
  private nextRun = 0;
  /** `chat:messageId` → ask id, learnt from keyboards and from records. */
  readonly messageAsk = new Map<string, string>();
  /** Successful question sends per ask (more than one = a duplicate message). */
  readonly sends = new Map<string, number>();
  readonly users = new Map<string, FakeUser>();

  private constructor(
    readonly fake: FakeTelegramApi,
    readonly interposer: Interposer,
    private readonly history: History,
  ) {
    interposer.onExchange = (ex, reply, note) => this.record(ex, reply, note);
  }

  /** Starts the fake and its interposer. */
  static async start(history: History, options: { webhookTimeoutMs?: number } = {}): Promise<TelegramRig> {
    const fake = await FakeTelegramApi.start({ callbackDeadlineMs: 3000, ...options });
    const interposer = await Interposer.start(fake.url, telegramCall);
    return new TelegramRig(fake, interposer, history);
  }

  /** Env that points an askgate child at this rig. */
  env(): Record<string, string> {
    return { TELEGRAM_BOT_TOKEN: this.fake.token, TELEGRAM_API_ROOT: this.interposer.url };
  }

  /** The chat the next {@link ask} without a `chat` option goes to (its new user's private chat). */
  nextChat(): string {
    return String(this.nextUser + 1);
  }

  /** Creates an ask in a fresh private chat through `api`; records the `create` event. */
  async ask(
    api: { post: (p: string, b?: unknown, h?: Record<string, string>) => Promise<{ status: number; body: any }> },
    options: AskOptions,
    row?: string,
  ): Promise<{ askId: string; user: FakeUser; expiresAt: string }> {
    const id = ++this.nextUser;
    const user = this.fake.addUser(id, `User${id}`, { username: `u${id}` });
    this.users.set(String(id), user);
    const question = options.multi ? { ...QUESTION, multiSelect: true } : QUESTION;
    const runId = options.runId ?? `tg-${this.history.name}-${++this.nextRun}`;
    const to = {
      channel: 'telegram',
      chat: options.chat ?? String(id),
      ...(options.restrict ? { users: [String(id)] } : {}),
    };
    // Like a careful agent: an Idempotency-Key, and retries while askgate answers 503 (store briefly unavailable).
    const asked = options.approval ? { approval: options.approval } : { questions: [question] };
    const body = { runId, ...asked, to, timeoutSeconds: options.timeoutSeconds };
    let res = await api.post('/v1/asks', body, { 'idempotency-key': runId });
    for (let i = 0; i < 40 && res.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await api.post('/v1/asks', body, { 'idempotency-key': runId });
    }
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.history.inject('create', {
      askId: res.body.id,
      runId,
      version: res.body.version,
      platform: 'telegram',
      data: {
        chat: to.chat,
        timeoutSeconds: options.timeoutSeconds,
        expiresAt: res.body.expiresAt,
        ...(options.restrict ? { users: [String(id)] } : {}),
        multi: Boolean(options.multi),
        ...(options.approval ? { actionHash: res.body.approval?.actionHash } : {}),
      },
      ...(row ? { row } : {}),
    });
    return { askId: res.body.id, user, expiresAt: res.body.expiresAt };
  }

  /** The ask's message once delivered (read from Redis and the fake), or null. */
  posted(record: StoredAsk | null): Posted | null {
    const message = record?.deliveries[0]?.status === 'sent' ? record.deliveries[0].message : undefined;
    if (!record || !message) return null;
    const stored = this.fake.message(message.chat, message.messageId);
    if (!stored) return null;
    this.messageAsk.set(`${message.chat}:${message.messageId}`, record.id);
    const rows =
      stored.reply_markup && 'inline_keyboard' in stored.reply_markup ? stored.reply_markup.inline_keyboard : [];
    const buttons = new Map(rows.flat().map((b) => [b.text, b.callback_data ?? ''] as const));
    return { askId: record.id, chat: message.chat, messageId: message.messageId, buttons };
  }

  /** Waits until every ask is delivered; returns their messages (bounded by `ms`). */
  async allPosted(watch: RedisWatch, askIds: readonly string[], ms = 60_000): Promise<Map<string, Posted>> {
    const out = new Map<string, Posted>();
    const until = Date.now() + ms;
    while (out.size < askIds.length) {
      if (Date.now() > until)
        throw new Error(`${askIds.length - out.size} of ${askIds.length} asks not delivered within ${ms} ms`);
      const missing = askIds.filter((id) => !out.has(id));
      for (const [id, record] of await watch.getMany(missing).catch(() => new Map<string, StoredAsk | null>())) {
        const p = this.posted(record);
        if (p) out.set(id, p);
      }
      if (out.size < askIds.length) await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  }

  /**
   * A person taps a button (`label`: an option label, `Skip` or `Other…`); `kind` `duplicate`
   * marks a repeated copy. Returns the callback query id (the tap id in the history).
   */
  tap(
    p: Posted,
    label: string,
    user: FakeUser,
    kind: 'tap' | 'duplicate' = 'tap',
    extra: Record<string, unknown> = {},
  ): string {
    const data = p.buttons.get(label);
    if (!data) throw new Error(`no button ${label} on ${p.askId}`);
    const tapId = this.fake.tap(p.chat, p.messageId, data, user);
    this.history.inject(kind, {
      askId: p.askId,
      actor: String(user.id),
      platform: 'telegram',
      data: { tapId, label, ...extra },
    });
    return tapId;
  }

  /** A person replies to the question message with `text`. */
  reply(p: Posted, text: string, user: FakeUser, replyTo = p.messageId): void {
    this.fake.say(p.chat, text, user, replyTo);
    this.history.inject('reply', {
      askId: p.askId,
      actor: String(user.id),
      platform: 'telegram',
      data: { kind: /^\d/.test(text) ? 'numbers' : 'words' },
    });
  }

  /** The answer (toast) of a callback query once the fake has it, or null after `ms`. */
  async toast(tapId: string, ms = 4000): Promise<string | null> {
    return (await this.fake.answerOf(tapId, ms))?.text ?? null;
  }

  /** Closes the interposer and the fake. */
  async close(): Promise<void> {
    await this.interposer.close();
    await this.fake.close();
  }

  private askOf(chat: unknown, messageId: unknown): string | undefined {
    return this.messageAsk.get(`${String(chat)}:${String(messageId)}`);
  }

  private record(ex: Exchange, reply: Reply | null, note: string): void {
    const p = ex.params;
    const ok = reply?.status === 200;
    const description = reply ? (reply.body?.description as string | undefined) : note;
    const base = {
      platform: 'telegram',
      data: {
        call: ex.call,
        at: ex.at,
        status: reply?.status ?? 0,
        ms: reply?.ms ?? null,
        note,
        ...(description && !ok ? { description } : {}),
      },
    };
    switch (ex.call) {
      case 'answerCallbackQuery': {
        const tapId = String(p.callback_query_id);
        const duplicateAck = !ok && this.fake.answers.some((a) => a.id === tapId && a.at < ex.at);
        this.history.observe('toast', {
          result: String(p.text ?? ''),
          platform: 'telegram',
          data: {
            via: 'ack',
            tapId,
            ok,
            duplicateAck,
            status: reply?.status ?? 0,
            note,
            ...(description && !ok ? { description } : {}),
          },
        });
        return;
      }
      case 'sendMessage': {
        const replyTo = p.reply_parameters?.message_id;
        const token = (p.reply_markup?.inline_keyboard?.flat?.() ?? [])
          .map((b: { callback_data?: string }) => TOKEN.exec(b.callback_data ?? '')?.[1])
          .find(Boolean) as string | undefined;
        if (ok && token) {
          this.messageAsk.set(`${String(p.chat_id)}:${String(reply!.body.result.message_id)}`, token);
          this.sends.set(token, (this.sends.get(token) ?? 0) + 1);
        }
        if (replyTo !== undefined) {
          this.history.observe('toast', {
            askId: this.askOf(p.chat_id, replyTo),
            result: String(p.text),
            platform: 'telegram',
            data: { via: 'reply', ok, chat: String(p.chat_id) },
          });
        } else
          this.history.observe('platform', {
            ...base,
            ...(token ? { askId: token } : {}),
            ...(ok ? { data: { ...base.data, messageId: String(reply!.body.result?.message_id) } } : {}),
          });
        return;
      }
      case 'editMessageText': {
        const notModified = /message is not modified/.test(description ?? '');
        const message = `${String(p.chat_id)}:${String(p.message_id)}`;
        this.history.observe('edit', {
          askId: this.askOf(p.chat_id, p.message_id),
          platform: 'telegram',
          result: ok ? 'ok' : notModified ? 'not_modified' : (reply?.status ?? 'reset'),
          data: { message, note },
        });
        return;
      }
      case 'getUpdates':
        if (!ok || (reply.body?.result?.length ?? 0) > 0 || note)
          this.history.observe('platform', {
            ...base,
            data: { ...base.data, updates: reply?.body?.result?.length ?? 0 },
          });
        return;
      default:
        this.history.observe('platform', base);
    }
  }
}
