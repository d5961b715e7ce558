// The fields of an inbound Bot Framework activity askgate reads (everything else passes unread).
// Shapes follow the Bot Connector's activity schema as Teams sends it; ids are bounded so nothing
// unbounded reaches the store or a log line.
import { z } from 'zod';

const id = (max: number) => z.string().min(1).max(max);

const Account = z.object({
  id: id(256),
  name: z.string().max(512).optional(),
  /** The person's Microsoft Entra object id (a GUID): who may answer is checked against it. */
  aadObjectId: z.string().max(64).optional(),
});

const Mention = z.object({
  type: z.literal('mention'),
  mentioned: z
    .object({ id: z.string().max(256) })
    .partial()
    .optional(),
  text: z.string().max(1024).optional(),
});

/** An inbound activity as far as askgate reads it. */
export const ActivitySchema = z.object({
  type: z.string().max(64),
  id: id(256).optional(),
  channelId: z.string().max(64).optional(),
  serviceUrl: z.string().min(1).max(512),
  from: Account,
  recipient: Account.partial().optional(),
  conversation: z.object({
    id: id(512),
    conversationType: z.string().max(32).optional(),
    tenantId: z.string().max(64).optional(),
    name: z.string().max(512).optional(),
    isGroup: z.boolean().optional(),
  }),
  text: z.string().max(28_000).optional(),
  replyToId: z.string().max(256).optional(),
  locale: z.string().max(35).optional(),
  /** An invoke's name (`adaptiveCard/action`). */
  name: z.string().max(128).optional(),
  /** An invoke's payload (read by card-actions.ts); untrusted. */
  value: z.unknown().optional(),
  entities: z.array(z.unknown()).max(64).optional(),
  /** An installationUpdate's `add` or `remove` (`add-upgrade`, `remove-upgrade`). */
  action: z.string().max(32).optional(),
  /** A conversationUpdate's members who left (the bot among them: it was removed). */
  membersRemoved: z.array(Account.partial()).max(256).optional(),
  channelData: z
    .object({
      tenant: z
        .object({ id: z.string().max(64) })
        .partial()
        .optional(),
      team: z
        .object({ id: z.string().max(512), name: z.string().max(512) })
        .partial()
        .optional(),
      channel: z
        .object({ id: z.string().max(512), name: z.string().max(512) })
        .partial()
        .optional(),
    })
    .partial()
    .optional(),
});

/** A parsed inbound activity. */
export type InboundActivity = z.output<typeof ActivitySchema>;

/** How a Teams conversation is shared: a one-to-one chat, a team's channel, or a group chat. */
export type ConversationKind = 'personal' | 'channel' | 'groupChat';

/** The conversation's kind, from its `conversationType` (older activities only say `isGroup`). */
export function conversationKind(activity: InboundActivity): ConversationKind {
  const type = activity.conversation.conversationType;
  if (type === 'channel' || type === 'groupChat' || type === 'personal') return type;
  return activity.conversation.isGroup ? 'groupChat' : 'personal';
}

/** The app uninstalled from the conversation, or the bot removed from its team or chat. */
export function botRemoved(activity: InboundActivity): boolean {
  if (activity.type === 'installationUpdate') return activity.action?.startsWith('remove') ?? false;
  const bot = activity.recipient?.id;
  return activity.type === 'conversationUpdate' && !!bot && !!activity.membersRemoved?.some((m) => m.id === bot);
}

/** A channel conversation id names its thread after `;messageid=`: the base id and the thread's root. */
export function splitConversationId(conversationId: string): { chat: string; thread?: string } {
  const at = conversationId.indexOf(';messageid=');
  if (at < 0) return { chat: conversationId };
  const thread = conversationId.slice(at + ';messageid='.length);
  return { chat: conversationId.slice(0, at), ...(thread ? { thread } : {}) };
}

/** The tenant the activity comes from (`channelData.tenant.id`, else the conversation's). */
export function tenantOf(activity: InboundActivity): string | undefined {
  return activity.channelData?.tenant?.id ?? activity.conversation.tenantId;
}

/**
 * A message's text without the bot's own `@mention` (Teams puts `<at>Name</at>` in the text for
 * every mention, and channels deliver only messages that mention the bot), trimmed.
 */
export function textWithoutBotMention(activity: InboundActivity): string {
  let text = activity.text ?? '';
  const botId = activity.recipient?.id;
  for (const raw of activity.entities ?? []) {
    const mention = Mention.safeParse(raw);
    if (!mention.success || !mention.data.text) continue;
    if (botId && mention.data.mentioned?.id !== botId) continue;
    text = text.split(mention.data.text).join('');
  }
  return text.replace(/\u00a0/g, ' ').trim();
}
