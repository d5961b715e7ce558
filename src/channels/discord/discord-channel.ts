import {
  Client,
  Events,
  GatewayCloseCodes,
  GatewayIntentBits,
  Partials,
  REST,
  Routes,
  type RateLimitData,
} from 'discord.js';
import type { Channel, DeliveryRequest, InboundSink, Logger } from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { DiscordInbound } from './inbound.js';
import { NO_MENTIONS, rejectOnRateLimit, toChannelError } from './limits.js';
import { renderFinal, renderPrompt, renderReminder } from './render.js';
import { describeError } from '../shared/errors.js';
import { DISCORD_CAPABILITIES } from './capabilities.js';

/** Options of {@link DiscordChannel}. */
export interface DiscordChannelOptions {
  token: string;
  /** REST api root without the version (default `https://discord.com/api`); gateway discovery uses it too. */
  apiUrl?: string;
  logger: Logger;
  /**
   * False: no gateway connection (sends and edits only). With several replicas, keep the gateway
   * on one of them per shard: every connection receives every message (each is answered once, by
   * message id, but every replica does the work).
   */
  gateway?: boolean;
  /** How long start() waits for the gateway to be ready (default 30 s). */
  readyTimeoutMs?: number;
  /** How long one attempt at a message holds it before another may take it over, in ms (default 5 s; tests shorten it). */
  messageLeaseMs?: number;
  /** How long the checks before opening a modal may take before askgate answers "try again" (default 2.5 s; tests shorten it). */
  modalOpenBudgetMs?: number;
}

const BASE_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
const FATAL_CLOSE = new Map<number, string>([
  [GatewayCloseCodes.AuthenticationFailed, 'Discord rejected DISCORD_BOT_TOKEN (gateway close 4004)'],
  [GatewayCloseCodes.InvalidIntents, 'Discord refused the gateway intents (close 4013)'],
  [GatewayCloseCodes.ShardingRequired, 'Discord requires sharding for this bot (close 4011)'],
]);

/**
 * The Discord channel: a discord.js gateway client for taps and replies, and a separate REST
 * client for sends and edits. Interaction acks and follow-ups go through the gateway client's
 * REST manager, so a 429 on message creation (which rejects at once, for the outbox to retry
 * after `retry_after`) never queues in front of an ack.
 */
export class DiscordChannel implements Channel {
  /** Channel name used in `to.channel`. */
  readonly name = 'discord';
  /** What Discord renders: its views are built for it (core/capabilities.ts). */
  readonly capabilities = DISCORD_CAPABILITIES;
  private readonly api: string;
  private readonly rest: REST;
  private client: Client | null = null;

  constructor(private readonly options: DiscordChannelOptions) {
    this.api = (options.apiUrl ?? 'https://discord.com/api').replace(/\/+$/, '');
    this.rest = new REST({ api: this.api, rejectOnRateLimit, retries: 2, timeout: 10_000 }).setToken(options.token);
  }

  /** Sends the question to channel `target.thread ?? target.chat` (a text channel, thread or DM channel id). */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const message = renderPrompt(request.view);
    const channelId = request.target.thread ?? request.target.chat;
    try {
      const sent = (await this.rest.post(Routes.channelMessages(channelId), { body: message })) as { id: string };
      return { chat: channelId, messageId: sent.id };
    } catch (err) {
      throw toChannelError(err, 'send');
    }
  }

  /** Edits the message with the bot token (valid long after the 15-minute interaction token). */
  async finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    const message = renderFinal(view, outcome);
    try {
      await this.rest.patch(Routes.channelMessage(ref.chat, ref.messageId), { body: message });
    } catch (err) {
      throw toChannelError(err, 'edit');
    }
  }

  /**
   * Posts a reminder as a reply to the question (message reference; a question that is gone fails
   * it, 50035), escaped, never pinging. A 429 rejects at once with Discord's retry_after.
   */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    if (stillWanted && !(await stillWanted())) return null;
    try {
      const sent = (await this.rest.post(Routes.channelMessages(ref.chat), {
        body: renderReminder(text, ref.messageId),
      })) as { id: string };
      return { chat: ref.chat, messageId: sent.id };
    } catch (err) {
      throw toChannelError(err, 'send');
    }
  }

  /** Re-renders an open prompt (its tally) with the bot token, buttons kept (the components are sent again). */
  async refresh(ref: MessageRef, view: PromptView): Promise<void> {
    const message = renderPrompt(view);
    try {
      await this.rest.patch(Routes.channelMessage(ref.chat, ref.messageId), { body: message });
    } catch (err) {
      throw toChannelError(err, 'edit');
    }
  }

  /** Logs in to the gateway and resolves when the client is ready; rejects clearly on a bad token. */
  async start(sink: InboundSink): Promise<void> {
    if (this.options.gateway === false) return;
    const outcome = await this.connect(sink, true);
    if (outcome === 'ready') return;
    // The privileged intent is not enabled for this application: run without it; replies then
    // arrive with empty content and people are asked to use the buttons or mention the bot.
    this.options.logger.warn(
      { channel: 'discord' },
      'Message Content intent is not enabled for this bot; text replies need a bot mention',
    );
    if ((await this.connect(sink, false)) !== 'ready')
      throw new Error('discord: gateway refused the connection without the Message Content intent');
  }

  /** Disconnects from the gateway. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners();
      await client.destroy();
    }
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }

  private async connect(sink: InboundSink, withContent: boolean): Promise<'ready' | 'disallowed'> {
    const { logger, token } = this.options;
    const client = new Client({
      intents: withContent ? [...BASE_INTENTS, GatewayIntentBits.MessageContent] : BASE_INTENTS,
      partials: [Partials.Channel],
      allowedMentions: NO_MENTIONS,
      // An ack that sat out a 429 would arrive after the 3 s window anyway: fail it at once.
      rest: {
        api: this.api,
        rejectOnRateLimit: (d: RateLimitData) => d.route.startsWith('/interactions') || rejectOnRateLimit(d),
      },
    });
    this.client = client;
    const leaseMs = this.options.messageLeaseMs;
    const inbound = new DiscordInbound({
      sink,
      rest: this.rest,
      logger,
      botId: () => client.user?.id ?? '',
      ...(leaseMs ? { leaseMs } : {}),
      ...(this.options.modalOpenBudgetMs !== undefined ? { modalOpenBudgetMs: this.options.modalOpenBudgetMs } : {}),
    });
    const failed = (err: unknown) =>
      logger.error({ channel: 'discord', err: describeError(err) }, 'discord inbound event failed');
    client.on(Events.InteractionCreate, (i) => void inbound.interaction(i).catch(failed));
    client.on(Events.MessageCreate, (m) => void inbound.message(m).catch(failed));
    client.on(Events.Error, (err) =>
      logger.warn({ channel: 'discord', err: describeError(err) }, 'discord client error'),
    );
    client.on(Events.ShardDisconnect, (event) => {
      if (client.isReady())
        logger.error({ channel: 'discord', code: event.code }, 'discord gateway closed and will not reconnect');
    });
    const ready = new Promise<'ready' | 'disallowed'>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('discord: gateway not ready in time')),
        this.options.readyTimeoutMs ?? 30_000,
      );
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      client.once(Events.ClientReady, () => settle(() => resolve('ready')));
      client.on(Events.ShardDisconnect, (event) => {
        if (event.code === GatewayCloseCodes.DisallowedIntents && withContent) settle(() => resolve('disallowed'));
        else if (FATAL_CLOSE.has(event.code))
          settle(() => reject(new Error(`discord: ${FATAL_CLOSE.get(event.code)}`)));
      });
      client.login(token).catch((err: unknown) => {
        const disallowed = withContent && err instanceof Error && /disallowed intent/i.test(err.message);
        settle(() => (disallowed ? resolve('disallowed') : reject(loginError(err))));
      });
    });
    try {
      const result = await ready;
      if (result === 'ready') logger.info({ channel: 'discord', botId: client.user?.id }, 'discord gateway ready');
      else await this.stopClient(client);
      return result;
    } catch (err) {
      await this.stopClient(client);
      throw err;
    }
  }

  private async stopClient(client: Client): Promise<void> {
    client.removeAllListeners();
    await client.destroy().catch(() => {});
    if (this.client === client) this.client = null;
  }
}

function loginError(err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  if (code === 'TokenInvalid') return new Error('discord: Discord rejected DISCORD_BOT_TOKEN (401 on /gateway/bot)');
  return new Error(`discord: login failed: ${describeError(err)}`);
}
