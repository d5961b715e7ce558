// Teams settings (descriptor.ts): all three credentials or a ConfigError naming the missing one,
// ids that are GUIDs, http(s) URLs, the service URL allow-list parsed and applied (service-urls.ts).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-values.js';
import { teams } from '../../src/channels/teams/descriptor.js';
import { ServiceUrlHosts } from '../../src/channels/teams/service-urls.js';

const APP = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const env = (extra: Record<string, string | undefined> = {}) =>
  ({ TEAMS_APP_ID: APP, TEAMS_APP_PASSWORD: 'pw', TEAMS_TENANT_ID: TENANT, ...extra }) as Parameters<
    typeof teams.settings
  >[0];
const error = (e: ReturnType<typeof env>) => {
  try {
    teams.settings(e);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return expect.fail('expected a ConfigError');
};

describe('Teams settings', () => {
  it('is off without any TEAMS_* credential; on with the three, with the documented defaults', () => {
    expect(teams.settings({} as never)).toBeUndefined();
    expect(teams.settings(env())).toEqual({
      appId: APP,
      appPassword: 'pw',
      tenantId: TENANT,
      metadataUrl: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
      tokenUrl: `https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/token`,
      serviceUrlHosts: ['smba.trafficmanager.net', '*.botframework.com'],
    });
  });

  it('names the missing credential, and refuses ids that are not GUIDs and URLs that are not http(s)', () => {
    expect(error(env({ TEAMS_APP_PASSWORD: undefined }))).toMatch(/TEAMS_APP_PASSWORD/);
    expect(error(env({ TEAMS_TENANT_ID: undefined }))).toMatch(/TEAMS_TENANT_ID/);
    expect(error({ TEAMS_TENANT_ID: TENANT } as never)).toMatch(/TEAMS_APP_ID/);
    expect(error(env({ TEAMS_APP_ID: 'askgate-bot' }))).toMatch(/TEAMS_APP_ID must be a GUID/);
    expect(error(env({ TEAMS_TENANT_ID: 'contoso.onmicrosoft.com' }))).toMatch(/TEAMS_TENANT_ID must be a GUID/);
    expect(error(env({ TEAMS_TOKEN_URL: 'ftp://x' }))).toMatch(/TEAMS_TOKEN_URL/);
    expect(error(env({ TEAMS_OPENID_METADATA_URL: 'login' }))).toMatch(/TEAMS_OPENID_METADATA_URL/);
    expect(error(env({ TEAMS_SERVICE_URL_HOSTS: 'https://smba.trafficmanager.net/' }))).toMatch(
      /TEAMS_SERVICE_URL_HOSTS/,
    );
    expect(error(env({ TEAMS_SERVICE_URL_HOSTS: ' , ' }))).toMatch(/TEAMS_SERVICE_URL_HOSTS/);
  });

  it('service URLs: https on an allowed host (or http on loopback), nothing else', () => {
    const hosts = new ServiceUrlHosts(teams.settings(env())!.serviceUrlHosts);
    expect(hosts.check('https://smba.trafficmanager.net/amer/')).toBe('https://smba.trafficmanager.net/amer');
    expect(hosts.check('https://europe.botframework.com/')).toBe('https://europe.botframework.com');
    for (const refused of [
      'http://smba.trafficmanager.net/amer/',
      'https://smba.trafficmanager.net.evil.com/',
      'https://evilbotframework.com/',
      'https://user:pw@smba.trafficmanager.net/',
      'https://smba.trafficmanager.net/?x=1',
      'http://127.0.0.1:3978/',
      'not a url',
    ])
      expect(hosts.check(refused)).toBeNull();
    expect(new ServiceUrlHosts(['127.0.0.1']).check('http://127.0.0.1:3978/svc/')).toBe('http://127.0.0.1:3978/svc');
  });
});
