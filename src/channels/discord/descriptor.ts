// Discord as askgate's registry knows it (no SDK import here: discord.js loads in `create`).
import { z } from 'zod';
import { optionalString, tokenString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { DISCORD_CAPABILITIES } from './capabilities.js';
import { DISCORD_WORD_LIMITS } from './label-limits.js';
import { DISCORD_WORDS } from './words.js';

/** Discord: enabled by `DISCORD_BOT_TOKEN`; `DISCORD_GATEWAY=false` runs a send-only replica. */
export const discord = defineChannel({
  name: 'discord',
  displayName: 'Discord',
  capabilities: DISCORD_CAPABILITIES,
  sdks: ['discord.js', '@discordjs/'],
  wordLimits: DISCORD_WORD_LIMITS,
  words: DISCORD_WORDS,
  env: {
    DISCORD_BOT_TOKEN: tokenString(),
    DISCORD_API_URL: optionalString,
    DISCORD_GATEWAY: z.enum(['true', 'false']).default('true'),
  },
  settings: (e) =>
    e.DISCORD_BOT_TOKEN
      ? { token: e.DISCORD_BOT_TOKEN, apiUrl: e.DISCORD_API_URL, gateway: e.DISCORD_GATEWAY === 'true' }
      : undefined,
  // Discord paces itself through discord.js's REST queue: it takes no clock.
  create: async (settings, { logger }) => {
    const { DiscordChannel } = await import('./discord-channel.js');
    return new DiscordChannel({ ...settings, logger });
  },
});
