// The Microsoft Teams channel, on the Bot Connector REST API (no SDK: the Bot Framework SDK is
// retired and the Teams SDK brings its own HTTP server). A prompt is an Adaptive Card posted to a
// conversation askgate learned (conversations.ts); the outcome replaces it in place; reminders and
// notices reply in its thread. Inbound: `POST /teams/messages`, every request's JWT checked first
// (auth.ts), then messages answer like replies and card actions like taps (invoke.ts).
import {
  ChannelError,
  type Channel,
  type ChannelDirectory,
  type Clock,
  type DeliveryRequest,
  type InboundHttpRequest,
  type InboundHttpResponse,
  type InboundRoute,
  type InboundSink,
  type Logger,
} from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import type { PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { outcomeNotice } from '../../core/notices.js';
import { systemClock } from '../../system-clock.js';
import { describeError } from '../shared/errors.js';
import { responderOf } from '../shared/responder.js';
import { settleOrShow, takeEvent } from '../shared/take-event.js';
import {
  ActivitySchema,
  botRemoved,
  splitConversationId,
  tenantOf,
  textWithoutBotMention,
  type InboundActivity,
} from './activity.js';
import { ConnectorAuth } from './auth.js';
import { BotConnector, type OutboundActivity } from './connector.js';
import { TeamsConversations, type ConversationRef } from './conversations.js';
import { CARD_ACTION_INVOKE, InvokeHandler } from './invoke.js';
import { TEAMS_CAPABILITIES } from './capabilities.js';
import { outcomeCard, promptCard } from './cards.js';
import type { ServiceUrlHosts } from './service-urls.js';
import { BotToken } from './token.js';

/** The messaging endpoint to register for the bot. */
export const MESSAGES_PATH = '/teams/messages';
/** Largest activity taken (Teams' are a few kB; a card's submitted inputs stay far below). */
const BODY_MAX = 262_144;
/** One attempt holds a message 10 s; its id is kept a day (the connector re-sends within minutes). */
const MESSAGE_TTL = { leaseMs: 10_000, keepMs: 86_400_000 };

/** Options of {@link TeamsChannel}. */
export interface TeamsChannelOptions {
  appId: string;
  appPassword: string;
  tenantId: string;
  metadataUrl: string;
  tokenUrl: string;
  serviceUrlHosts: ServiceUrlHosts;
  directory: ChannelDirectory;
  logger: Logger;
  clock?: Clock;
}

/** An Adaptive Card as a message activity. */
const cardMessage = (card: object, summary?: string): OutboundActivity => ({
  type: 'message',
  ...(summary ? { summary: summary.slice(0, 200) } : {}),
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: card }],
});
/** Plain text (no markdown, so nothing in it can mention anyone). */
const textMessage = (text: string): OutboundActivity => ({ type: 'message', text, textFormat: 'plain' });

/** The Teams channel. */
export class TeamsChannel implements Channel {
  readonly name = 'teams';
  readonly capabilities = TEAMS_CAPABILITIES;
  private readonly clock: Clock;
  private readonly auth: ConnectorAuth;
  private readonly connector: BotConnector;
  private readonly conversations: TeamsConversations;
  private readonly invokes: InvokeHandler;
  private sink: InboundSink | null = null;

  constructor(private readonly options: TeamsChannelOptions) {
    this.clock = options.clock ?? systemClock;
    this.auth = new ConnectorAuth({ appId: options.appId, metadataUrl: options.metadataUrl, clock: this.clock });
    this.connector = new BotConnector(
      new BotToken({
        appId: options.appId,
        appPassword: options.appPassword,
        tokenUrl: options.tokenUrl,
        clock: this.clock,
      }),
    );
    this.conversations = new TeamsConversations(options.directory, options.serviceUrlHosts);
    this.invokes = new InvokeHandler(options.logger, this.clock);
  }

  /** Posts the prompt's card in the conversation (in `thread` when set); unknown conversations fail permanently. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const { target, view, askId } = request;
    const ref = await this.conversations.lookup(target.chat);
    if (target.thread && ref.kind !== 'channel')
      throw new ChannelError(
        'teams: a thread exists only in a team channel (leave thread out for chats)',
        true,
        undefined,
        {
          channel: 'teams',
          method: 'sendToConversation',
        },
      );
    // With target users, the card as sent is read-only and Teams refreshes it for them into the live one.
    const card = promptCard(view, target.users ? { live: false, refreshUserIds: target.users } : { live: true });
    const id = await this.connector.send(
      ref.serviceUrl,
      threadId(target.chat, target.thread),
      cardMessage(card, view.questions[0]?.question),
    );
    // Replies in an existing thread name the thread's root, not the card: bind it too (as on Slack).
    if (target.thread && this.sink)
      await this.sink.bindFollowUp('teams', target.chat, target.thread, askId).catch((error: unknown) => {
        this.options.logger.warn({ channel: 'teams', askId, err: describeError(error) }, 'thread binding failed');
      });
    return { chat: target.chat, messageId: id, ...(target.thread ? { thread: target.thread } : {}) };
  }

  /** Replaces the card in place with the outcome (no actions left). */
  async finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    await this.update(ref, cardMessage(outcomeCard(outcome, view), outcome.text));
  }

  /** Re-draws an open prompt (its tally) in place, actions kept: for the target's users alone, as delivered. */
  async refresh(ref: MessageRef, view: PromptView, target?: { users?: readonly string[] }): Promise<void> {
    const users = target?.users?.length ? [...target.users] : undefined;
    await this.update(
      ref,
      cardMessage(promptCard(view, users ? { live: false, refreshUserIds: users } : { live: true })),
    );
  }

  /** Replies to the card (in a channel, in its thread) with a reminder, unless the ask ended meanwhile. */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    const conversation = await this.conversations.lookup(ref.chat);
    if (stillWanted && !(await stillWanted())) return null;
    const root = ref.thread ?? ref.messageId;
    const id = await this.replyIn(conversation, ref.chat, root, textMessage(text));
    return { chat: ref.chat, messageId: id, thread: root };
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.options.logger.info({ channel: 'teams' }, `teams channel started (${MESSAGES_PATH})`);
  }

  async stop(): Promise<void> {
    this.sink = null;
  }

  /** `POST /teams/messages`: the bot's messaging endpoint. */
  routes(): InboundRoute[] {
    return [{ method: 'POST', path: MESSAGES_PATH, bodyLimit: BODY_MAX, handle: (r) => this.onActivity(r) }];
  }

  private async update(ref: MessageRef, activity: OutboundActivity): Promise<void> {
    const conversation = await this.conversations.lookup(ref.chat);
    await this.connector.update(conversation.serviceUrl, threadId(ref.chat, ref.thread), ref.messageId, activity);
  }

  /** Replies to `activityId`: in a channel, a post in the thread of `root`; elsewhere, a reply in the chat. */
  private replyIn(conversation: ConversationRef, chat: string, root: string, activity: OutboundActivity) {
    const id = conversation.kind === 'channel' ? threadId(chat, root) : chat;
    return this.connector.reply(conversation.serviceUrl, id, root, activity);
  }

  /** One activity: authenticated first (401, nothing read, otherwise), then learned, then handled. */
  private async onActivity(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    const arrivedAt = this.clock.now();
    const auth = await this.auth.verify(request.headers['authorization']);
    if (!auth.ok) {
      this.options.logger.warn({ channel: 'teams', reason: auth.reason }, 'activity refused: not authenticated');
      return { status: 401, body: { error: 'unauthorized' } };
    }
    let activity: InboundActivity;
    try {
      const parsed = ActivitySchema.safeParse(JSON.parse(request.rawBody.toString('utf8')));
      if (!parsed.success) return { status: 400, body: { error: 'invalid_activity' } };
      activity = parsed.data;
    } catch {
      return { status: 400, body: { error: 'invalid_json' } };
    }
    // The token vouches for one service URL: an activity naming another is not the connector's.
    if (auth.serviceUrl.toLowerCase() !== activity.serviceUrl.toLowerCase()) {
      this.options.logger.warn({ channel: 'teams' }, 'activity refused: serviceUrl does not match the token');
      return { status: 401, body: { error: 'unauthorized' } };
    }
    const serviceUrl = this.options.serviceUrlHosts.check(activity.serviceUrl);
    // Authentic but not for this bot: another channel (Web Chat), another tenant, a host off the allow-list.
    const outside = !serviceUrl
      ? 'serviceUrl host'
      : activity.channelId !== 'msteams'
        ? 'channelId'
        : tenantOf(activity)?.toLowerCase() !== this.options.tenantId
          ? 'tenant'
          : null;
    if (!serviceUrl || outside) {
      this.options.logger.warn(
        { channel: 'teams', reason: outside },
        'activity refused: not from Teams in this tenant',
      );
      return { status: 403, body: { error: 'forbidden' } };
    }
    const sink = this.sink;
    if (!sink) return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'not_started' } };
    let conversation: ConversationRef;
    try {
      const learn = botRemoved(activity) ? 'remove' : 'learn';
      conversation = await this.conversations[learn](activity, serviceUrl, this.options.tenantId, this.clock.now());
    } catch (error) {
      this.options.logger.warn({ channel: 'teams', err: describeError(error) }, 'conversation not stored');
      return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'not_handled' } };
    }
    const { chat } = splitConversationId(activity.conversation.id);
    const user = responderOf('teams', { id: activity.from.aadObjectId ?? activity.from.id, name: activity.from.name });
    const invoke = {
      activityId: activity.id,
      user,
      chat,
      ...(activity.locale ? { locale: activity.locale } : {}),
      value: activity.value,
      arrivedAt,
    };
    // Said after the invoke was answered (the sink was slow): a reply to the card, in its thread.
    const root = splitConversationId(activity.conversation.id).thread ?? activity.replyToId;
    const late = (text: string) =>
      root ? this.replyIn(conversation, chat, root, textMessage(text)).then(() => {}) : Promise.resolve();
    if (activity.type === 'invoke') {
      // Other invokes (message extensions, tabs) are not askgate's: 501, as the Bot Framework answers them.
      if (activity.name !== CARD_ACTION_INVOKE) return { status: 501, body: {} };
      return this.invokes.handle(sink, invoke, late);
    }
    // A client without Universal Actions runs the Action.Submit fallback: a message whose `value` is the action's data.
    if (activity.type === 'message' && isSubmit(activity)) {
      const answer = await this.invokes.handle(sink, invoke, late);
      const said = (answer.body as { type?: string; value?: unknown } | undefined)?.value;
      if (typeof said === 'string' && activity.id)
        await this.replyIn(conversation, chat, activity.replyToId ?? activity.id, textMessage(said)).catch(
          (error: unknown) =>
            this.options.logger.warn({ channel: 'teams', err: describeError(error) }, 'notice not sent'),
        );
      return { status: 200, body: {} };
    }
    if (activity.type === 'message' && activity.text !== undefined) {
      try {
        return await this.onMessage(sink, activity, conversation, user);
      } catch (error) {
        this.options.logger.warn({ channel: 'teams', err: describeError(error) }, 'message not handled');
        return { status: 503, headers: { 'retry-after': '10' }, body: { error: 'not_handled' } };
      }
    }
    // conversationUpdate, installationUpdate and the rest: learned (or marked removed) above, nothing else to do.
    return { status: 200, body: {} };
  }

  /** A message: claimed by its id, handed to core as a reply, then the notice replied (once). */
  private async onMessage(
    sink: InboundSink,
    activity: InboundActivity,
    conversation: ConversationRef,
    user: ReturnType<typeof responderOf>,
  ): Promise<InboundHttpResponse> {
    const text = textWithoutBotMention(activity);
    if (text === '') return { status: 200, body: {} };
    const gate = activity.id
      ? await takeEvent(sink.seen, 'teams', `message:${activity.id}`, MESSAGE_TTL, this.clock)
      : undefined;
    if (gate === 'done') return { status: 200, body: {} };
    if (gate === 'busy') return { status: 503, headers: { 'retry-after': '10' }, body: { error: 'busy' } };
    const { chat, thread } = splitConversationId(activity.conversation.id);
    // A reply in a channel thread names the thread's root in its conversation id (and in replyToId).
    const replyTo = thread ?? activity.replyToId;
    const outcome = await sink.text({
      channel: 'teams',
      chat,
      ...(replyTo ? { replyTo } : {}),
      privateChat: conversation.kind === 'personal',
      user,
      text,
      ...(activity.locale ? { locale: activity.locale } : {}),
    });
    const shown = gate
      ? await settleOrShow(gate, (error) =>
          this.options.logger.warn({ channel: 'teams', err: describeError(error) }, 'message not marked handled'),
        )
      : true;
    if (!shown || (gate?.retried && outcome.kind === 'already_resolved')) return { status: 200, body: {} };
    const notice = outcome.kind === 'recorded' ? null : outcomeNotice(outcome);
    if (notice && activity.id) {
      try {
        const id = await this.replyIn(conversation, chat, thread ?? activity.id, textMessage(notice));
        // A reply to the prompt for the rest (or a hint) counts for the same ask.
        if ('askId' in outcome) await sink.bindFollowUp('teams', chat, id, outcome.askId);
      } catch (error) {
        this.options.logger.warn({ channel: 'teams', err: describeError(error) }, 'notice not sent');
      }
    }
    return { status: 200, body: {} };
  }
}

/** A message posted by a card's Action.Submit: a `value` object and no typed text. */
function isSubmit(activity: InboundActivity): boolean {
  const value = activity.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !activity.text?.trim();
}

/** A channel conversation's id for a post in the thread of `root` (`<id>;messageid=<root>`), or the id itself. */
function threadId(chat: string, root: string | undefined): string {
  return root ? `${chat};messageid=${root}` : chat;
}
