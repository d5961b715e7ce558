// WhatsApp as askgate's registry knows it (no SDK: the Cloud API is called with plain fetch).
import { ConfigError, optionalString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { WHATSAPP_CAPABILITIES } from './capabilities.js';

/** The Graph API root with its version, unless WHATSAPP_API_ROOT says otherwise (a fake in tests). */
export const DEFAULT_API_ROOT = 'https://graph.facebook.com/v23.0';

/** The variables that come with WHATSAPP_ACCESS_TOKEN. */
const PARTNERS = ['WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN'] as const;

/**
 * WhatsApp (Cloud API): enabled by `WHATSAPP_ACCESS_TOKEN` with `WHATSAPP_PHONE_NUMBER_ID`,
 * `WHATSAPP_APP_SECRET` (webhook signatures) and `WHATSAPP_VERIFY_TOKEN` (the webhook's
 * verification challenge); `WHATSAPP_API_ROOT` defaults to {@link DEFAULT_API_ROOT};
 * `WHATSAPP_TEMPLATE` (`name:language`) is read for the closed 24-hour window.
 */
export const whatsapp = defineChannel({
  name: 'whatsapp',
  displayName: 'WhatsApp',
  capabilities: WHATSAPP_CAPABILITIES,
  sdks: [],
  wordLimits: new Map(),
  env: {
    WHATSAPP_ACCESS_TOKEN: optionalString,
    WHATSAPP_PHONE_NUMBER_ID: optionalString,
    WHATSAPP_APP_SECRET: optionalString,
    WHATSAPP_VERIFY_TOKEN: optionalString,
    WHATSAPP_API_ROOT: optionalString,
    WHATSAPP_TEMPLATE: optionalString,
  },
  settings: (e) => {
    if (!e.WHATSAPP_ACCESS_TOKEN) return undefined;
    for (const name of PARTNERS)
      if (!e[name]) throw new ConfigError(`invalid configuration: WHATSAPP_ACCESS_TOKEN needs ${name}`);
    if (!/^\d+$/.test(e.WHATSAPP_PHONE_NUMBER_ID!))
      throw new ConfigError('invalid configuration: WHATSAPP_PHONE_NUMBER_ID must be the number id (digits)');
    const apiRoot = (e.WHATSAPP_API_ROOT ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(apiRoot))
      throw new ConfigError('invalid configuration: WHATSAPP_API_ROOT must be an http(s) URL');
    if (e.WHATSAPP_TEMPLATE && !/^[a-z0-9_]+:[A-Za-z]{2,3}(_[A-Za-z]{2,4})?$/.test(e.WHATSAPP_TEMPLATE))
      throw new ConfigError(
        'invalid configuration: WHATSAPP_TEMPLATE must be name:language (e.g. askgate_question:en_US)',
      );
    return {
      accessToken: e.WHATSAPP_ACCESS_TOKEN,
      phoneNumberId: e.WHATSAPP_PHONE_NUMBER_ID!,
      appSecret: e.WHATSAPP_APP_SECRET!,
      verifyToken: e.WHATSAPP_VERIFY_TOKEN!,
      apiRoot,
      ...(e.WHATSAPP_TEMPLATE ? { template: e.WHATSAPP_TEMPLATE } : {}),
    };
  },
  create: async (settings, { logger, clock }) => {
    const { WhatsAppChannel } = await import('./whatsapp-channel.js');
    return new WhatsAppChannel({ ...settings, logger, clock });
  },
});
