// Slack as askgate's registry knows it (no SDK import here: @slack/bolt loads in `create`).
import { ConfigError, optionalString, tokenString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { SLACK_CAPABILITIES } from './capabilities.js';
import { SLACK_WORD_LIMITS } from './label-limits.js';
import { SLACK_WORDS } from './words.js';

/** Slack: enabled by `SLACK_BOT_TOKEN`; HTTP mode with `SLACK_SIGNING_SECRET`, Socket Mode with `SLACK_APP_TOKEN`. */
export const slack = defineChannel({
  name: 'slack',
  displayName: 'Slack',
  capabilities: SLACK_CAPABILITIES,
  sdks: ['@slack/'],
  wordLimits: SLACK_WORD_LIMITS,
  words: SLACK_WORDS,
  env: {
    SLACK_BOT_TOKEN: tokenString(),
    SLACK_SIGNING_SECRET: tokenString(),
    SLACK_APP_TOKEN: tokenString(),
    SLACK_API_URL: optionalString,
  },
  settings: (e) => {
    if (!e.SLACK_BOT_TOKEN) return undefined;
    if (!e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
      throw new ConfigError(
        'invalid configuration: SLACK_BOT_TOKEN needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)',
      );
    }
    return {
      token: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
    };
  },
  create: async (settings, { logger, clock }) => {
    const { SlackChannel } = await import('./slack-channel.js');
    return new SlackChannel({ ...settings, logger, clock });
  },
});
