import { FakeDiscord } from '../../fakes/discord-api.js';
import { user as apiUser, type ApiMessage, type ApiUser } from '../../fakes/discord-payloads.js';
import type { History } from './history.js';
import { Interposer, discordCall, type Exchange, type Reply } from './interposer.js';
import type { RedisWatch } from './redis-watch.js';

const TOKEN = /^([0-9A-Za-z]{12,24})\.\d+\./;
const QUESTION = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }, { label: 'Canary' }],
};

/**
 * The Discord side of a reliability run: the fake REST API behind an interposer (acks,
 * ephemeral follow-ups, edits and sends become history events) and its gateway, which askgate
 * reaches directly (the URL comes from `GET /gateway/bot`). The fake enforces the 3 s ack window
 * (10062) and a single ack per interaction (40060).
 */
export class DiscordRig {
  private nextRun = 0;
  private nextUser = 0;
  private readonly lastEdit = new Map<string, string>();
  private readonly messageAsk = new Map<string, string>();
  /** Successful question sends per ask. */
  readonly sends = new Map<string, number>();

  private constructor(
    readonly fake: FakeDiscord,
    readonly interposer: Interposer,
    private readonly history: History,
  ) {
    interposer.onExchange = (ex, reply, note) => this.record(ex, reply, note);
  }

  /** Starts the fake and its interposer. */
  static async start(history: History): Promise<DiscordRig> {
    const fake = await FakeDiscord.start();
    const origin = new URL(fake.apiUrl).origin;
    return new DiscordRig(fake, await Interposer.start(origin, discordCall), history);
  }

  /** Env of an askgate child against this rig. */
  env(): Record<string, string> {
    return { DISCORD_BOT_TOKEN: this.fake.token, DISCORD_API_URL: `${this.interposer.url}/api` };
  }

  /** A new person. */
  newUser(): ApiUser {
    const n = ++this.nextUser;
    return apiUser(`4${String(n).padStart(17, '0')}`, `person${n}`);
  }

  /** Creates an ask in `chat`; restricted to `user` when `restrict`. */
  async ask(
    api: { post: (p: string, b?: unknown) => Promise<{ status: number; body: any }> },
    options: { chat: string; timeoutSeconds: number; user: ApiUser; restrict?: boolean },
  ): Promise<{ askId: string }> {
    const runId = `dc-${this.history.name}-${++this.nextRun}`;
    const to = { channel: 'discord', chat: options.chat, ...(options.restrict ? { users: [options.user.id] } : {}) };
    const res = await api.post('/v1/asks', {
      runId,
      questions: [QUESTION],
      to,
      timeoutSeconds: options.timeoutSeconds,
    });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.history.inject('create', {
      askId: res.body.id,
      runId,
      version: res.body.version,
      platform: 'discord',
      data: {
        chat: options.chat,
        timeoutSeconds: options.timeoutSeconds,
        expiresAt: res.body.expiresAt,
        ...(options.restrict ? { users: [options.user.id] } : {}),
      },
    });
    return { askId: res.body.id };
  }

  /** Waits until every ask's message exists at the fake. */
  async allPosted(watch: RedisWatch, askIds: readonly string[], ms = 30_000): Promise<Map<string, ApiMessage>> {
    const out = new Map<string, ApiMessage>();
    const until = Date.now() + ms;
    while (out.size < askIds.length && Date.now() < until) {
      for (const [id, r] of await watch.getMany(askIds.filter((x) => !out.has(x)))) {
        const m = r?.deliveries[0]?.message;
        const stored = m ? this.fake.messages.get(m.messageId) : undefined;
        if (stored) out.set(id, structuredClone(stored));
      }
      if (out.size < askIds.length) await new Promise((r) => setTimeout(r, 100));
    }
    if (out.size < askIds.length)
      throw new Error(`${askIds.length - out.size} Discord asks not posted within ${ms} ms`);
    return out;
  }

  /** A button tap: a new interaction dispatched over the gateway; returns its id. */
  tap(
    askId: string,
    message: ApiMessage,
    label: string,
    user: ApiUser,
    kind: 'tap' | 'duplicate' = 'tap',
    extra: Record<string, unknown> = {},
  ): string {
    const button = (message.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((r) => r.components)
      .find((b) => b.label === label);
    if (!button) throw new Error(`no Discord button ${label}`);
    const interaction = this.fake.tap(message.id, button.custom_id, user);
    this.history.inject(kind, {
      askId,
      actor: user.id,
      platform: 'discord',
      data: { tapId: interaction.id, label, ...extra },
    });
    return interaction.id;
  }

  /**
   * The interaction (tap id) an exchange belongs to: its ack (`POST /interactions/:id/:token/callback`)
   * or its follow-up (`POST /webhooks/:app/:token`); undefined for other calls.
   */
  interactionOf(ex: Exchange): string | undefined {
    const acked = /\/interactions\/(\d+)\//.exec(ex.path)?.[1];
    if (acked) return acked;
    const token = /\/webhooks\/\d+\/([^/?]+)/.exec(ex.path)?.[1];
    return token ? [...this.fake.interactions.values()].find((i) => i.token === token)?.id : undefined;
  }

  /** The message id a `PATCH /channels/:id/messages/:id` edits; undefined for other calls. */
  editedMessageOf(ex: Exchange): string | undefined {
    return ex.call === 'PATCH /channels/:id/messages/:id' ? /\/messages\/(\d+)/.exec(ex.path)?.[1] : undefined;
  }

  /** Closes the interposer and the fake. */
  async close(): Promise<void> {
    await this.interposer.close();
    await this.fake.close();
  }

  private record(ex: Exchange, reply: Reply | null, note: string): void {
    const status = reply?.status ?? 0;
    const ok = status >= 200 && status < 300;
    const code = reply?.body?.code as number | undefined;
    if (ex.call.startsWith('POST /interactions/')) {
      const tapId = /\/interactions\/(\d+)\//.exec(ex.path)?.[1] ?? '';
      this.history.observe('toast', {
        platform: 'discord',
        result: '',
        data: { via: 'ack', tapId, ok, status, code, duplicateAck: code === 40060, note },
      });
    } else if (ex.call.startsWith('POST /webhooks/')) {
      const token = /\/webhooks\/\d+\/([^/?]+)/.exec(ex.path)?.[1];
      const interaction = [...this.fake.interactions.values()].find((i) => i.token === token);
      this.history.observe('toast', {
        platform: 'discord',
        result: String(ex.params.content ?? ''),
        data: { via: 'followup', tapId: interaction?.id, ok, status, code },
      });
    } else if (ex.call === 'PATCH /channels/:id/messages/:id') {
      const message = ex.path.replace(/^\/api\/v\d+\/channels\//, '').replace('/messages/', ':');
      const body = JSON.stringify(ex.params);
      const same = ok && this.lastEdit.get(message) === body;
      if (ok) this.lastEdit.set(message, body);
      const askId = this.messageAsk.get(message.split(':')[1]!);
      this.history.observe('edit', {
        askId,
        platform: 'discord',
        result: same ? 'not_modified' : ok ? 'ok' : status || 'reset',
        data: { message, note, code },
      });
    } else {
      const customId = JSON.stringify(ex.params.components ?? '').match(/"custom_id":"([^"]+)"/)?.[1];
      const askId = customId ? TOKEN.exec(customId)?.[1] : undefined;
      if (ex.call === 'POST /channels/:id/messages' && ok && askId) {
        this.sends.set(askId, (this.sends.get(askId) ?? 0) + 1);
        this.messageAsk.set(String(reply!.body?.id), askId);
      }
      // `at`: when askgate made the call; `messageId`: the id Discord gave the message (to tell a duplicate from the recorded one).
      this.history.observe('platform', {
        platform: 'discord',
        ...(askId ? { askId } : {}),
        data: {
          call: ex.call,
          status,
          code,
          ms: reply?.ms ?? null,
          note,
          at: ex.at,
          ...(ok && reply?.body?.id ? { messageId: String(reply.body.id) } : {}),
        },
      });
    }
  }
}
