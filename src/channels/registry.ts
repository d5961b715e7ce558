// Every chat platform askgate knows: a new channel is its folder plus one line here.
import { telegram } from './telegram/descriptor.js';
import { slack } from './slack/descriptor.js';
import { discord } from './discord/descriptor.js';
import { email } from './email/descriptor.js';
import { whatsapp } from './whatsapp/descriptor.js';
import { teams } from './teams/descriptor.js';
import type { MessageKey } from '../core/i18n/index.js';

/** The channel descriptors, in the order config checks them and main starts them. */
export const CHANNELS = [telegram, slack, discord, email, whatsapp, teams] as const;

/** A registered channel's descriptor. */
export type RegisteredChannel = (typeof CHANNELS)[number];

/** A registered channel's name (`telegram` | `slack` | `discord`). */
export type ChannelName = RegisteredChannel['name'];

/** How people read each registered channel ("Telegram"), by name: the data core's outcome lines show. */
export const CHANNEL_DISPLAY_NAMES: ReadonlyMap<string, string> = new Map(CHANNELS.map((c) => [c.name, c.displayName]));

/** The longest each catalogue word may be: the strictest limit of every channel that shows it. */
export const WORD_LIMITS: ReadonlyMap<MessageKey, number> = CHANNELS.flatMap((c) => [...c.wordLimits]).reduce(
  (limits, [key, max]) => limits.set(key, Math.min(max, limits.get(key) ?? max)),
  new Map<MessageKey, number>(),
);

/** The registered channels as people read them, for descriptions: "Telegram, Slack, Discord". */
export const CHANNEL_DISPLAY_LIST = CHANNELS.map((c) => c.displayName).join(', ');

/** The registered channels' names as examples, for descriptions: `"telegram", "slack", "discord"`. */
export const CHANNEL_NAME_EXAMPLES = CHANNELS.map((c) => `"${c.name}"`).join(', ');
