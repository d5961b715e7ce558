// The conversation references askgate learns from authenticated activities (the bot installed,
// added to a team or chat, any message), kept in the channel directory shared by every replica:
// what a proactive post needs (the service URL, the tenant) and what an operator lists to find ids.
import { z } from 'zod';
import { ChannelError, type ChannelDirectory } from '../../core/ports.js';
import { conversationKind, splitConversationId, tenantOf, type InboundActivity } from './activity.js';
import type { ServiceUrlHosts } from './service-urls.js';

const NAME_MAX = 256;

/** What askgate keeps of one conversation (the directory entry's JSON, keyed by the conversation id). */
export const ConversationRefSchema = z.object({
  serviceUrl: z.string(),
  tenantId: z.string(),
  kind: z.enum(['personal', 'channel', 'groupChat']),
  name: z.string().optional(),
  teamName: z.string().optional(),
  /** The team of a channel, so removing the bot from the team marks all of its channels. */
  teamId: z.string().optional(),
  updatedAt: z.string(),
  /** The app was uninstalled or the bot removed (at `removedAt`): kept and listed, never posted to. */
  removed: z.boolean().optional(),
  removedAt: z.string().optional(),
});
/** A conversation reference. */
export type ConversationRef = z.output<typeof ConversationRefSchema>;

/** The directory of Teams conversations. */
export class TeamsConversations {
  constructor(
    private readonly directory: ChannelDirectory,
    private readonly hosts: ServiceUrlHosts,
  ) {}

  /**
   * Keeps the reference of an authenticated activity's conversation (its base id: a thread's
   * replies share their channel's), with the checked service URL. Any activity there but a
   * removal means the bot is there (again): a removal mark goes.
   */
  async learn(activity: InboundActivity, serviceUrl: string, tenantId: string, now: number): Promise<ConversationRef> {
    const ref = refOf(activity, serviceUrl, tenantId, now);
    await this.directory.put('teams', splitConversationId(activity.conversation.id).chat, JSON.stringify(ref));
    return ref;
  }

  /**
   * Marks the activity's conversation removed (the app uninstalled, the bot removed), and with a
   * team every channel of it askgate learned: still listed for operators, never posted to.
   */
  async remove(activity: InboundActivity, serviceUrl: string, tenantId: string, now: number): Promise<ConversationRef> {
    const mark = { removed: true, removedAt: new Date(now).toISOString() };
    const ref = { ...refOf(activity, serviceUrl, tenantId, now), ...mark };
    await this.directory.put('teams', splitConversationId(activity.conversation.id).chat, JSON.stringify(ref));
    if (!ref.teamId) return ref;
    let cursor: string | undefined;
    do {
      const page = await this.directory.list('teams', { limit: 200, ...(cursor ? { cursor } : {}) });
      for (const entry of page.entries) {
        const other = ConversationRefSchema.safeParse(safeJson(entry.value));
        if (other.success && other.data.teamId === ref.teamId && !other.data.removed)
          await this.directory.put('teams', entry.key, JSON.stringify({ ...other.data, ...mark }));
      }
      cursor = page.cursor;
    } while (cursor);
    return ref;
  }

  /**
   * The reference of a conversation askgate may post to: learned, and its service URL still on the
   * allow-list. Throws a permanent {@link ChannelError} otherwise (install the bot or message it first).
   */
  async lookup(chat: string): Promise<ConversationRef & { serviceUrl: string }> {
    const context = { channel: 'teams', method: 'lookup' };
    const raw = await this.directory.get('teams', chat);
    if (raw === null)
      throw new ChannelError(
        `teams: unknown conversation ${chat.slice(0, 64)}: install the app in that team or chat (or message the bot there) so askgate learns it, then list ids at GET /v1/channels/teams/conversations`,
        true,
        undefined,
        context,
      );
    let ref: ConversationRef;
    try {
      ref = ConversationRefSchema.parse(JSON.parse(raw));
    } catch (error) {
      throw new ChannelError('teams: the stored conversation reference is unreadable', true, undefined, {
        ...context,
        cause: error,
      });
    }
    if (ref.removed)
      throw new ChannelError(
        `teams: askgate was removed from conversation ${chat.slice(0, 64)} (${ref.removedAt ?? 'time unknown'}): install the app there again to post to it`,
        true,
        undefined,
        context,
      );
    const serviceUrl = this.hosts.check(ref.serviceUrl);
    if (!serviceUrl)
      throw new ChannelError(
        'teams: the conversation service URL is not on TEAMS_SERVICE_URL_HOSTS',
        true,
        undefined,
        context,
      );
    return { ...ref, serviceUrl };
  }
}

/** `raw` parsed as JSON, or undefined (an entry another version wrote badly is skipped, not fatal). */
function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** What askgate keeps of an activity's conversation. */
function refOf(activity: InboundActivity, serviceUrl: string, tenantId: string, now: number): ConversationRef {
  const kind = conversationKind(activity);
  const cut = (s: string | undefined) => (s ? s.slice(0, NAME_MAX) : undefined);
  // A channel's name is in channelData (the General channel has none: it is named after the team).
  const name = cut(activity.channelData?.channel?.name ?? activity.conversation.name);
  const teamName = kind === 'channel' ? cut(activity.channelData?.team?.name) : undefined;
  const teamId = kind === 'channel' ? activity.channelData?.team?.id : undefined;
  return {
    serviceUrl,
    tenantId: tenantOf(activity) ?? tenantId,
    kind,
    ...(name ? { name } : {}),
    ...(teamName ? { teamName } : {}),
    ...(teamId ? { teamId } : {}),
    updatedAt: new Date(now).toISOString(),
  };
}
