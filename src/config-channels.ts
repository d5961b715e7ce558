import { z } from 'zod';
import { ConfigError, optionalString, tokenString } from './config-values.js';

/** The environment variables of the chat platforms (a platform is enabled when its bot token is set). */
export const CHANNEL_ENV = {
  TELEGRAM_BOT_TOKEN: tokenString(),
  TELEGRAM_API_ROOT: optionalString,
  TELEGRAM_WEBHOOK_URL: optionalString,
  TELEGRAM_WEBHOOK_SECRET: optionalString.refine(
    (v) => v === undefined || /^[A-Za-z0-9_-]{16,256}$/.test(v),
    'must be 16–256 characters of A-Z a-z 0-9 _ -',
  ),
  SLACK_BOT_TOKEN: tokenString(),
  SLACK_SIGNING_SECRET: tokenString(),
  SLACK_APP_TOKEN: tokenString(),
  SLACK_API_URL: optionalString,
  DISCORD_BOT_TOKEN: tokenString(),
  DISCORD_API_URL: optionalString,
  DISCORD_GATEWAY: z.enum(['true', 'false']).default('true'),
};

/** The parsed values of {@link CHANNEL_ENV}. */
type ChannelEnv = { [K in keyof typeof CHANNEL_ENV]: z.output<(typeof CHANNEL_ENV)[K]> };

/** Settings of each chat platform (absent when its token is not set). */
export interface ChannelsConfig {
  telegram?: { token: string; apiRoot?: string; webhookUrl?: string; webhookSecret?: string };
  slack?: { token: string; signingSecret?: string; appToken?: string; apiUrl?: string };
  discord?: { token: string; apiUrl?: string; gateway: boolean };
}

/** The settings of each enabled platform; throws {@link ConfigError} for a combination that cannot work. */
export function channelsConfig(e: ChannelEnv): ChannelsConfig {
  if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET) {
    throw new ConfigError(
      'invalid configuration: TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET (16–256 characters of A-Z a-z 0-9 _ -)',
    );
  }
  if (e.SLACK_BOT_TOKEN && !e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
    throw new ConfigError(
      'invalid configuration: SLACK_BOT_TOKEN needs SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)',
    );
  }
  return {
    ...(e.TELEGRAM_BOT_TOKEN && {
      telegram: {
        token: e.TELEGRAM_BOT_TOKEN,
        apiRoot: e.TELEGRAM_API_ROOT,
        webhookUrl: e.TELEGRAM_WEBHOOK_URL,
        webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
      },
    }),
    ...(e.SLACK_BOT_TOKEN && {
      slack: {
        token: e.SLACK_BOT_TOKEN,
        signingSecret: e.SLACK_SIGNING_SECRET,
        appToken: e.SLACK_APP_TOKEN,
        apiUrl: e.SLACK_API_URL,
      },
    }),
    ...(e.DISCORD_BOT_TOKEN && {
      discord: { token: e.DISCORD_BOT_TOKEN, apiUrl: e.DISCORD_API_URL, gateway: e.DISCORD_GATEWAY === 'true' },
    }),
  };
}
