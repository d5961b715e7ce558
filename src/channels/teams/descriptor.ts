// Microsoft Teams as askgate's registry knows it (no SDK: the Bot Connector REST API is called with
// fetch and its JWTs are checked with jose, both loaded only when the channel is enabled).
import { ConfigError, optionalString } from '../../config-values.js';
import { defineChannel } from '../descriptor.js';
import { TEAMS_CAPABILITIES } from './capabilities.js';
import { TEAMS_OWN_WORD_LIMITS, TEAMS_WORD_LIMITS } from './label-limits.js';
import { TEAMS_WORDS } from './words.js';

/** The Bot Framework's OpenID metadata (the default of TEAMS_OPENID_METADATA_URL). */
export const DEFAULT_OPENID_METADATA_URL = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
/** Microsoft Entra's token endpoint for a tenant (the default of TEAMS_TOKEN_URL). */
export const defaultTokenUrl = (tenantId: string) =>
  `https://login.microsoftonline.com/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
/** The default of TEAMS_SERVICE_URL_HOSTS: Teams' service URLs (`https://smba.trafficmanager.net/<region>/`) and the Bot Framework's. */
export const DEFAULT_SERVICE_URL_HOSTS = 'smba.trafficmanager.net,*.botframework.com';
/** A host name, or `*.domain` for any subdomain of `domain`. */
const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** TEAMS_SERVICE_URL_HOSTS as a list of lower-case host patterns, or a ConfigError naming the bad entry. */
function hostPatterns(spec: string): string[] {
  const patterns = spec
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const bad = patterns.find((p) => !HOST_PATTERN.test(p));
  if (patterns.length === 0 || bad !== undefined)
    throw new ConfigError(
      `invalid configuration: TEAMS_SERVICE_URL_HOSTS must list host names or *.domain${bad !== undefined ? ` ("${bad}" is neither)` : ''}`,
    );
  return patterns;
}

/** The variables that must come together. */
const REQUIRED = ['TEAMS_APP_ID', 'TEAMS_APP_PASSWORD', 'TEAMS_TENANT_ID'] as const;
/** A Microsoft Entra id (app or tenant): a GUID. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An http(s) URL setting, or a ConfigError naming it. */
function url(name: string, value: string): string {
  if (!/^https?:\/\/[^\s/]+/i.test(value))
    throw new ConfigError(`invalid configuration: ${name} must be an http(s) URL`);
  return value;
}

/**
 * Microsoft Teams (a single-tenant bot): enabled by `TEAMS_APP_ID`, `TEAMS_APP_PASSWORD` and
 * `TEAMS_TENANT_ID` together; `TEAMS_OPENID_METADATA_URL` (the Bot Framework's, by default) gives
 * the keys inbound JWTs are checked with, `TEAMS_TOKEN_URL` (Entra's for the tenant) the bot's
 * token; `TEAMS_SERVICE_URL_HOSTS` lists the hosts askgate may post to (service-urls.ts).
 */
export const teams = defineChannel({
  name: 'teams',
  displayName: 'Microsoft Teams',
  capabilities: TEAMS_CAPABILITIES,
  sdks: ['jose'],
  wordLimits: TEAMS_WORD_LIMITS,
  words: TEAMS_WORDS,
  ownWordLimits: TEAMS_OWN_WORD_LIMITS,
  env: {
    TEAMS_APP_ID: optionalString,
    TEAMS_APP_PASSWORD: optionalString,
    TEAMS_TENANT_ID: optionalString,
    TEAMS_OPENID_METADATA_URL: optionalString,
    TEAMS_TOKEN_URL: optionalString,
    TEAMS_SERVICE_URL_HOSTS: optionalString,
  },
  settings: (e) => {
    if (!REQUIRED.some((name) => e[name])) return undefined;
    const missing = REQUIRED.find((name) => !e[name]);
    if (missing) throw new ConfigError(`invalid configuration: Teams needs ${missing} (with ${REQUIRED.join(', ')})`);
    for (const name of ['TEAMS_APP_ID', 'TEAMS_TENANT_ID'] as const)
      if (!GUID.test(e[name]!))
        throw new ConfigError(`invalid configuration: ${name} must be a GUID (from the Azure portal)`);
    return {
      appId: e.TEAMS_APP_ID!,
      appPassword: e.TEAMS_APP_PASSWORD!,
      tenantId: e.TEAMS_TENANT_ID!.toLowerCase(),
      metadataUrl: url('TEAMS_OPENID_METADATA_URL', e.TEAMS_OPENID_METADATA_URL ?? DEFAULT_OPENID_METADATA_URL),
      tokenUrl: url('TEAMS_TOKEN_URL', e.TEAMS_TOKEN_URL ?? defaultTokenUrl(e.TEAMS_TENANT_ID!)),
      serviceUrlHosts: hostPatterns(e.TEAMS_SERVICE_URL_HOSTS ?? DEFAULT_SERVICE_URL_HOSTS),
    };
  },
  create: async (settings, { logger, clock, directory }) => {
    const { TeamsChannel } = await import('./teams-channel.js');
    const { ServiceUrlHosts } = await import('./service-urls.js');
    return new TeamsChannel({
      ...settings,
      serviceUrlHosts: new ServiceUrlHosts(settings.serviceUrlHosts),
      directory,
      logger,
      clock,
    });
  },
});
