/**
 * Every payload the Discord fake sends, in one place (platform-facts §7.6): discord.js crashes or
 * silently drops events when a required field is missing.
 */

const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;

/** A fresh snowflake (17–19 digits, so discord.js buckets by major id like it does for real ids). */
export function snowflake(): string {
  increment = (increment + 1n) & 0xfffn;
  return String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment);
}

/** A user as the API shows it. */
export interface ApiUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: null;
  bot?: boolean;
  flags?: number;
}

/** A stored message as the API returns it. */
export interface ApiMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: ApiUser;
  content: string;
  components: unknown[];
  flags: number;
  type: number;
  [key: string]: unknown;
}

/** A channel the fake knows. */
export interface ApiChannel {
  id: string;
  type: 0 | 1 | 11;
  name?: string;
  guild_id?: string;
  parent_id?: string;
  recipients?: ApiUser[];
}

/** A user object. */
export function user(id: string, username: string, globalName: string | null = null, bot = false): ApiUser {
  return {
    id,
    username,
    discriminator: '0',
    global_name: globalName,
    avatar: null,
    ...(bot ? { bot: true } : {}),
    flags: 0,
  };
}

/** A message object with every field discord.js reads. */
export function message(
  fields: Pick<ApiMessage, 'id' | 'channel_id' | 'author' | 'content'> & Partial<ApiMessage>,
): ApiMessage {
  return {
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    components: [],
    flags: 0,
    ...fields,
  };
}

/** A guild member wrapper for `user`. */
export function member(u: ApiUser) {
  return {
    user: u,
    roles: [],
    joined_at: new Date(0).toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
    permissions: '3072',
  };
}

/** The thread fields of a public thread. */
export function thread(id: string, guildId: string, parentId: string, ownerId: string) {
  return {
    id,
    type: 11,
    guild_id: guildId,
    parent_id: parentId,
    owner_id: ownerId,
    name: 'answer',
    member_count: 1,
    message_count: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
    },
  };
}

/** READY for one shard with the guilds listed as unavailable (GUILD_CREATE follows). */
export function ready(bot: ApiUser, applicationId: string, guildIds: string[], resumeUrl: string) {
  return {
    v: 10,
    user: { ...bot, bot: true, flags: 0 },
    guilds: guildIds.map((id) => ({ id, unavailable: true })),
    session_id: `session-${snowflake()}`,
    resume_gateway_url: resumeUrl,
    shard: [0, 1],
    application: { id: applicationId, flags: 0 },
  };
}

/** GUILD_CREATE with its text channels and threads. */
export function guildCreate(guildId: string, ownerId: string, channels: ApiChannel[]) {
  return {
    id: guildId,
    name: 'askgate test guild',
    unavailable: false,
    owner_id: ownerId,
    joined_at: new Date(0).toISOString(),
    member_count: 2,
    large: false,
    features: [],
    roles: [
      {
        id: guildId,
        name: '@everyone',
        permissions: '3072',
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    stickers: [],
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    channels: channels
      .filter((c) => c.type === 0)
      .map((c) => ({ id: c.id, type: 0, name: c.name, position: 0, permission_overwrites: [] })),
    threads: channels.filter((c) => c.type === 11).map((c) => thread(c.id, guildId, c.parent_id!, ownerId)),
  };
}

/** Who, where and which message an interaction comes from (guild member, or DM user when `guildId` is absent). */
export interface InteractionSource {
  id: string;
  token: string;
  applicationId: string;
  channel: ApiChannel;
  guildId?: string;
  user: ApiUser;
  message: ApiMessage;
  /** The person's client language (discord-api-types `Locale`, e.g. `pt-BR`, `es-ES`); `en-US` by default. */
  locale?: string;
}

/** INTERACTION_CREATE for a button on `msg`, tapped by `u` (guild member, or DM user when `guildId` is absent). */
export function buttonInteraction(args: InteractionSource & { customId: string }) {
  return {
    ...interactionBase(args, 3),
    data: { custom_id: args.customId, component_type: 2 },
    message: args.message,
  };
}

/**
 * INTERACTION_CREATE of type 5 (MODAL_SUBMIT) for a modal opened from a button on `message`
 * (`APIModalSubmitInteraction`: `data.custom_id` is the modal's, `data.components` the submitted
 * Labels with their child's `value` / `values`; `message` is present because a component opened it).
 */
export function modalSubmitInteraction(args: InteractionSource & { customId: string; components: unknown[] }) {
  return {
    ...interactionBase(args, 5),
    data: { custom_id: args.customId, components: args.components },
    message: args.message,
  };
}

function interactionBase(args: InteractionSource, type: number) {
  const { channel } = args;
  return {
    id: args.id,
    application_id: args.applicationId,
    type,
    token: args.token,
    version: 1,
    entitlements: [],
    authorizing_integration_owners: {},
    app_permissions: '3072',
    locale: args.locale ?? 'en-US',
    attachment_size_limit: 10_485_760,
    context: args.guildId ? 0 : 1,
    channel_id: channel.id,
    channel: {
      id: channel.id,
      type: channel.type,
      ...(channel.guild_id ? { guild_id: channel.guild_id } : {}),
      ...(channel.parent_id ? { parent_id: channel.parent_id } : {}),
      ...(channel.recipients ? { recipients: channel.recipients } : {}),
    },
    ...(args.guildId
      ? { guild_id: args.guildId, guild_locale: 'en-US', member: member(args.user) }
      : { user: args.user }),
  };
}

/** MESSAGE_CREATE from a person; a reply when `referenced` is given. */
export function userMessage(args: {
  id: string;
  channel: ApiChannel;
  guildId?: string;
  user: ApiUser;
  content: string;
  referenced?: ApiMessage;
  mentions?: ApiUser[];
}) {
  const ref = args.referenced;
  return message({
    id: args.id,
    channel_id: args.channel.id,
    author: args.user,
    content: args.content,
    type: ref ? 19 : 0,
    mentions: args.mentions ?? (ref ? [ref.author] : []),
    ...(args.guildId
      ? { guild_id: args.guildId, member: { ...member(args.user), user: undefined } }
      : { channel_type: args.channel.type }),
    ...(ref
      ? {
          message_reference: {
            type: 0,
            message_id: ref.id,
            channel_id: ref.channel_id,
            ...(ref.guild_id ? { guild_id: ref.guild_id } : {}),
          },
          referenced_message: ref,
        }
      : {}),
  });
}
