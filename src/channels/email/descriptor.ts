// Email as askgate's registry knows it (no SDK import here: nodemailer, mailparser and imapflow load in `create`).
import { ConfigError, optionalString, publicUrl, tokenString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { EMAIL_CAPABILITIES } from './capabilities.js';
import { EMAIL_WORDS } from './words.js';

/** Email's limits on catalogue words: none (a mail holds any length). */
const NO_LIMITS = new Map();

/**
 * Email: enabled by `SMTP_URL` with `ASKGATE_EMAIL_FROM`; replies read from `ASKGATE_EMAIL_IMAP_URL`
 * (a mailbox polled) and/or `POST /email/inbound` (`ASKGATE_EMAIL_INBOUND_TOKEN`). Links to the
 * answer page when `ASKGATE_PUBLIC_URL` and `ASKGATE_LINK_SECRET` are both set.
 */
export const email = defineChannel({
  name: 'email',
  displayName: 'Email',
  capabilities: EMAIL_CAPABILITIES,
  sdks: ['nodemailer', 'mailparser', 'imapflow'],
  wordLimits: NO_LIMITS,
  words: EMAIL_WORDS,
  env: {
    SMTP_URL: optionalString,
    ASKGATE_EMAIL_FROM: optionalString,
    ASKGATE_EMAIL_IMAP_URL: optionalString,
    ASKGATE_EMAIL_INBOUND_TOKEN: tokenString(16),
    ASKGATE_EMAIL_TRUSTED_AUTHSERV: optionalString,
    // Read here, checked where they are declared: the same parsers (config.ts, the answer page's settings).
    ASKGATE_PUBLIC_URL: publicUrl('must be the absolute http(s) URL askgate is reached at'),
    ASKGATE_LINK_SECRET: tokenString(32),
  },
  settings: (e) => {
    if (!e.SMTP_URL) return undefined;
    if (!/^smtps?:\/\//i.test(e.SMTP_URL))
      throw new ConfigError('invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL');
    if (!e.ASKGATE_EMAIL_FROM)
      throw new ConfigError(
        'invalid configuration: SMTP_URL needs ASKGATE_EMAIL_FROM (the address askgate mails from)',
      );
    if (e.ASKGATE_EMAIL_IMAP_URL && !/^imaps?:\/\//i.test(e.ASKGATE_EMAIL_IMAP_URL))
      throw new ConfigError('invalid configuration: ASKGATE_EMAIL_IMAP_URL must be an imap:// or imaps:// URL');
    return {
      smtpUrl: e.SMTP_URL,
      from: e.ASKGATE_EMAIL_FROM,
      imapUrl: e.ASKGATE_EMAIL_IMAP_URL,
      inboundToken: e.ASKGATE_EMAIL_INBOUND_TOKEN,
      trustedAuthserv: e.ASKGATE_EMAIL_TRUSTED_AUTHSERV,
      publicUrl: e.ASKGATE_PUBLIC_URL,
      linkSecret: e.ASKGATE_LINK_SECRET,
    };
  },
  create: async (settings, { logger, clock }) => {
    const { EmailChannel } = await import('./email-channel.js');
    return new EmailChannel({ ...settings, logger, clock });
  },
});
