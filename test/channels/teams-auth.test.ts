// The Teams channel's inbound JWT checks (auth.ts) against the fake Bot Framework issuer: a real
// RSA key published through OpenID metadata and a JWKS, tokens signed like the connector's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorAuth } from '../../src/channels/teams/auth.js';
import { startFakeTeams, type FakeTeams, type SignOptions } from '../fakes/teams-connector.js';

const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

let fake: FakeTeams;
let auth: ConnectorAuth;
beforeAll(async () => {
  fake = await startFakeTeams({ appId: APP_ID, appPassword: 'secret-0123456789', tenantId: TENANT });
  auth = new ConnectorAuth({ appId: APP_ID, metadataUrl: fake.metadataUrl });
});
afterAll(() => fake?.close());

const bearer = async (sign: SignOptions = {}) => `Bearer ${await fake.token(sign)}`;

describe('Teams inbound JWT (auth.ts)', () => {
  it('accepts a token the connector signed for this app and returns the service URL it vouches for', async () => {
    expect(await auth.verify(await bearer())).toEqual({ ok: true, serviceUrl: fake.serviceUrl });
    // Within the 5 minutes of clock skew the Bot Framework allows.
    expect((await auth.verify(await bearer({ expiresIn: -120 }))).ok).toBe(true);
  });

  it.each<[string, SignOptions, RegExp]>([
    ['a forged signature (another key under the published kid)', { key: 'forged' }, /signature/],
    ['an unknown kid', { key: 'unknown-kid' }, /unknown signing key/],
    ['a published key endorsed only for another channel', { key: 'other-channel' }, /unknown signing key/],
    ['another issuer', { iss: 'https://sts.windows.net/evil/' }, /iss/],
    ['another audience (another bot)', { aud: '00000000-0000-0000-0000-000000000000' }, /aud/],
    ['an expired token (past the tolerance)', { expiresIn: -600 }, /expired/],
    ['no serviceurl claim', { serviceurl: null }, /serviceurl/],
  ])('refuses %s', async (_name, sign, reason) => {
    const result = await auth.verify(await bearer(sign));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('refuses a missing header, another scheme, a bare string and an oversized token', async () => {
    for (const header of [undefined, '', `Basic ${await fake.token()}`, 'Bearer', 'Bearer not.a.jwt', ['a', 'b']]) {
      expect((await auth.verify(header)).ok).toBe(false);
    }
    expect(await auth.verify(`Bearer ${'a'.repeat(9000)}`)).toEqual({ ok: false, reason: 'token too long' });
  });

  it('a rotated key is read again on its first token, at most every 30 s', async () => {
    let now = Date.now();
    const rotating = new ConnectorAuth({ appId: APP_ID, metadataUrl: fake.metadataUrl, clock: { now: () => now } });
    expect((await rotating.verify(await bearer())).ok).toBe(true);
    await fake.rotateKey();
    const fresh = await bearer();
    now += 10_000; // within the cooldown: the keys are not read again
    expect(await rotating.verify(fresh)).toEqual({ ok: false, reason: 'unknown signing key' });
    now += 25_000;
    expect((await rotating.verify(fresh)).ok).toBe(true);
  });

  it('accepts nothing when the metadata cannot be read, and recovers once it can', async () => {
    const broken = new ConnectorAuth({ appId: APP_ID, metadataUrl: `${fake.metadataUrl}-missing` });
    const result = await broken.verify(await bearer());
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/signing keys unavailable/) });
    const closed = new ConnectorAuth({ appId: APP_ID, metadataUrl: 'http://127.0.0.1:1/openid' });
    expect(await closed.verify(await bearer())).toMatchObject({ ok: false, reason: /not reachable/ });
  });
});
