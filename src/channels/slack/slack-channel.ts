import { App, LogLevel, webApi, type Logger as BoltLogger } from '@slack/bolt';
import {
  ChannelError,
  type Channel,
  type DeliveryRequest,
  type InboundRoute,
  type InboundSink,
  type Logger,
  type Clock,
} from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { isEventInProgress, registerInbound } from './inbound.js';
import { describeError, platformErrorCode, toChannelError } from './limits.js';
import { scrubTokens } from '../shared/errors.js';
import { checkIdentity } from '../shared/startup.js';
import { SlackHttpReceiver } from './receiver.js';
import { SlackSocketReceiver } from './socket-receiver.js';
import { renderFinal, renderPrompt, renderReminder } from './render.js';
import { SLACK_CAPABILITIES } from './capabilities.js';
import { formFits } from './modal.js';

/** Settings of {@link SlackChannel}: HTTP mode with `signingSecret`, Socket Mode with `appToken`. */
export interface SlackChannelOptions {
  /** Bot token (`xoxb-…`). */
  token: string;
  signingSecret?: string;
  /** App-level token (`xapp-…`); when set, Socket Mode is used even if a signing secret is set too. */
  appToken?: string;
  /** Web API base URL (default `https://slack.com/api/`). */
  apiUrl?: string;
  logger: Logger;
  /** Reads the time of the signature window (default: the system clock). */
  clock?: Clock;
}

// Slack user ids: chat.postMessage accepts them (it opens the DM) but replies and taps then come from a D… id.
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The Slack adapter: Block Kit buttons, thread replies, signed HTTP requests or Socket Mode, through @slack/bolt. */
export class SlackChannel implements Channel {
  /** Channel name used in `to.channel`. */
  readonly name = 'slack';
  /** What Slack renders: its views are built for it (core/capabilities.ts). */
  readonly capabilities = SLACK_CAPABILITIES;
  private readonly client: webApi.WebClient;
  private readonly receiver: SlackHttpReceiver | null;
  private readonly bolt: BoltLogger;
  private app: App | null = null;
  private sink: InboundSink | null = null;

  constructor(private readonly options: SlackChannelOptions) {
    if (!options.signingSecret && !options.appToken) {
      throw new Error('Slack needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)');
    }
    this.bolt = boltLogger(options.logger);
    this.client = new webApi.WebClient(options.token, this.clientOptions());
    this.receiver = options.appToken
      ? null
      : new SlackHttpReceiver(options.signingSecret!, options.logger, options.clock);
  }

  /** `POST /slack/events` in HTTP mode; nothing in Socket Mode. */
  routes(): InboundRoute[] {
    return this.receiver ? [this.receiver.route()] : [];
  }

  /** Verifies the bot token (auth.test), then starts receiving events over HTTP or Socket Mode. */
  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    const identity = await this.authTest();
    const { token, appToken, apiUrl } = this.options;
    const app = new App({
      token,
      botId: identity.botId,
      botUserId: identity.botUserId,
      tokenVerificationEnabled: false,
      logger: this.bolt,
      convoStore: false,
      ignoreSelf: true,
      clientOptions: this.clientOptions(),
      // Socket Mode: events are acked once processed (bolt's own receiver acks them first, so a
      // crash or a failure before the commit lost a thread reply that Slack would not re-send).
      receiver: appToken
        ? new SlackSocketReceiver({
            appToken,
            ...(apiUrl ? { apiUrl: apiBase(apiUrl) } : {}),
            boltLogger: this.bolt,
            logger: this.options.logger,
          })
        : this.receiver!,
    });
    app.error(async (error) => {
      if (!isEventInProgress(error))
        this.options.logger.warn({ channel: 'slack', err: error.code ?? error.message }, 'slack listener failed');
      throw error;
    });
    registerInbound(app, { sink, client: this.client, logger: this.options.logger });
    try {
      await app.start();
    } catch (error) {
      const code = platformErrorCode(error);
      throw new Error(
        code
          ? `Slack rejected SLACK_APP_TOKEN (apps.connections.open: ${code})`
          : `Slack Socket Mode did not connect: ${describe(error)}`,
      );
    }
    this.app = app;
  }

  /** Stops receiving (closes the Socket Mode connection). */
  async stop(): Promise<void> {
    const app = this.app;
    this.app = null;
    this.sink = null;
    if (app) await app.stop();
  }

  /** Posts the question (in `target.thread` when set); the message ref is the channel id and `ts`. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const { target, view, askId } = request;
    if (USER_ID.test(target.chat)) {
      throw new ChannelError(
        `slack: to.chat must be a conversation id (C…, G… or D…), not the user id ${target.chat}`,
        true,
        undefined,
        { channel: 'slack', method: 'chat.postMessage' },
      );
    }
    const message = renderPrompt(view, formFits(view));
    let channel: string;
    let ts: string;
    try {
      const response = await this.client.chat.postMessage({
        channel: target.chat,
        text: message.text,
        blocks: message.blocks as never,
        unfurl_links: false,
        unfurl_media: false,
        ...(target.thread ? { thread_ts: target.thread } : {}),
      });
      if (!response.ts || !response.channel)
        throw new ChannelError('chat.postMessage: response without ts', false, undefined, {
          channel: 'slack',
          method: 'chat.postMessage',
        });
      channel = response.channel;
      ts = response.ts;
    } catch (error) {
      throw toChannelError(error, 'chat.postMessage');
    }
    // Replies in the existing thread carry the thread's root ts, not the question's: bind it too.
    if (target.thread && this.sink) {
      await this.sink.bindFollowUp('slack', channel, target.thread, askId).catch((error: unknown) => {
        this.options.logger.warn({ channel: 'slack', askId, err: describe(error) }, 'slack thread binding failed');
      });
    }
    return { chat: channel, messageId: ts, ...(target.thread ? { thread: target.thread } : {}) };
  }

  /** Replaces the buttons with the outcome through chat.update with the bot token (works after any delay). */
  finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    return this.update(ref, renderFinal(view, outcome));
  }

  /**
   * Posts a reminder in the question's thread (`thread_ts` = the question's ts, or the thread it was
   * posted in), mrkdwn escaped so no `<!channel>` or link can be injected. A 429 surfaces with Slack's Retry-After.
   */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    if (stillWanted && !(await stillWanted())) return null;
    const root = ref.thread ?? ref.messageId;
    try {
      const response = await this.client.chat.postMessage({
        channel: ref.chat,
        thread_ts: root,
        ...renderReminder(text),
        unfurl_links: false,
        unfurl_media: false,
      });
      if (!response.ts)
        throw new ChannelError('chat.postMessage: response without ts', false, undefined, {
          channel: 'slack',
          method: 'chat.postMessage',
        });
      return { chat: response.channel ?? ref.chat, messageId: response.ts, thread: root };
    } catch (error) {
      throw toChannelError(error, 'chat.postMessage');
    }
  }

  /** Re-renders an open prompt (its tally) through chat.update, buttons kept (the blocks are sent again). */
  refresh(ref: MessageRef, view: PromptView): Promise<void> {
    return this.update(ref, renderPrompt(view, formFits(view)));
  }

  /** Replaces a posted message's text and blocks (chat.update). */
  private async update(ref: MessageRef, message: { text: string; blocks: unknown }): Promise<void> {
    try {
      await this.client.chat.update({
        channel: ref.chat,
        ts: ref.messageId,
        text: message.text,
        blocks: message.blocks as never,
      });
    } catch (error) {
      throw toChannelError(error, 'chat.update');
    }
  }

  private authTest(): Promise<{ botId: string; botUserId: string }> {
    const failed = (error: unknown) => new Error(`Slack auth.test failed: ${describe(error)}`);
    return checkIdentity({
      call: async () => {
        const result = await this.client.auth.test();
        if (!result.user_id || !result.bot_id)
          throw new Error('auth.test returned no bot identity: SLACK_BOT_TOKEN must be a bot token (xoxb-…)');
        return { botId: result.bot_id, botUserId: result.user_id };
      },
      fatal: (error) => {
        const code = platformErrorCode(error);
        if (code) return new Error(`Slack rejected SLACK_BOT_TOKEN (auth.test: ${code})`);
        // Only the client's own errors (network, HTTP) are worth another attempt.
        return (error as { code?: string }).code ? null : failed(error);
      },
      unreachable: failed,
    });
  }

  private clientOptions(): webApi.WebClientOptions {
    const { apiUrl } = this.options;
    // 429s surface as errors (the outbox honours Retry-After) instead of sleeping inside the client.
    return {
      ...(apiUrl ? { slackApiUrl: apiBase(apiUrl) } : {}),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: 10_000,
      logger: this.bolt,
    };
  }
}

/** The Web API base URL with the trailing slash the client appends method names to. */
function apiBase(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** An error or a log argument of bolt's, log-safe: objects as JSON, tokens scrubbed. */
function describe(value: unknown): string {
  return value instanceof Error || typeof value === 'string'
    ? describeError(value)
    : scrubTokens(String(JSON.stringify(value))).slice(0, 300);
}

/** bolt's logger interface over askgate's: debug dropped, tokens scrubbed, bodies never logged. */
function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const text = (args: unknown[]) => args.map(describe).join(' ').slice(0, 500);
  return {
    debug: () => {},
    info: (...args: unknown[]) => logger.info({ channel: 'slack' }, text(args)),
    warn: (...args: unknown[]) => logger.warn({ channel: 'slack' }, text(args)),
    error: (...args: unknown[]) => logger.error({ channel: 'slack' }, text(args)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
