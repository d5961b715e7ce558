// Telegram as askgate's registry knows it (no SDK import here: grammy loads in `create`).
import { ConfigError, optionalString, tokenString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { TELEGRAM_CAPABILITIES } from './capabilities.js';
import { TELEGRAM_OWN_WORD_LIMITS, TELEGRAM_WORD_LIMITS } from './label-limits.js';
import { TELEGRAM_WORDS } from './words.js';

/** Telegram: enabled by `TELEGRAM_BOT_TOKEN`; long polling, or a webhook with `TELEGRAM_WEBHOOK_URL`. */
export const telegram = defineChannel({
  name: 'telegram',
  displayName: 'Telegram',
  capabilities: TELEGRAM_CAPABILITIES,
  sdks: ['grammy', '@grammyjs/'],
  wordLimits: TELEGRAM_WORD_LIMITS,
  words: TELEGRAM_WORDS,
  ownWordLimits: TELEGRAM_OWN_WORD_LIMITS,
  env: {
    TELEGRAM_BOT_TOKEN: tokenString(),
    TELEGRAM_API_ROOT: optionalString,
    TELEGRAM_WEBHOOK_URL: optionalString,
    TELEGRAM_WEBHOOK_SECRET: optionalString.refine(
      (v) => v === undefined || /^[A-Za-z0-9_-]{16,256}$/.test(v),
      'must be 16–256 characters of A-Z a-z 0-9 _ -',
    ),
  },
  settings: (e) => {
    if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET) {
      throw new ConfigError(
        'invalid configuration: TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET (16–256 characters of A-Z a-z 0-9 _ -)',
      );
    }
    if (!e.TELEGRAM_BOT_TOKEN) return undefined;
    return {
      token: e.TELEGRAM_BOT_TOKEN,
      apiRoot: e.TELEGRAM_API_ROOT,
      webhookUrl: e.TELEGRAM_WEBHOOK_URL,
      webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
    };
  },
  create: async (settings, { logger, clock }) => {
    const { TelegramChannel } = await import('./telegram-channel.js');
    return new TelegramChannel({ ...settings, logger, clock });
  },
});
