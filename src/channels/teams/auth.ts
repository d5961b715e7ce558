// Inbound authentication: every request to `/teams/messages` carries a JWT the Bot Connector
// signed (`Authorization: Bearer …`). Its signature is checked against the keys the OpenID metadata
// publishes (`jwks_uri`), then its issuer, audience (the app id), expiry and `serviceurl` claim.
// jose does the cryptography; nothing of the body is read before the token passed.
import { createLocalJWKSet, errors, jwtVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../core/ports.js';
import { systemClock } from '../../system-clock.js';

/** The issuer of the tokens the Bot Connector sends to bots (public cloud). */
export const BOT_CONNECTOR_ISSUER = 'https://api.botframework.com';
/** Clock skew allowed on `exp` and `nbf`, in seconds (the Bot Framework's own validators allow 5 minutes). */
export const CLOCK_TOLERANCE_S = 300;
/** How long the metadata and its keys are kept before they are read again. */
const KEYS_TTL_MS = 3_600_000;
/** A token naming a key askgate does not have (a rotation) reads the keys again, at most this often. */
const RELOAD_COOLDOWN_MS = 30_000;
/** The channel a signing key must be endorsed for (the Bot Framework lists each key's channels). */
const ENDORSEMENT = 'msteams';
/** The longest bearer token taken (Bot Connector tokens are about 1–2 kB). */
const TOKEN_MAX = 8192;

/** Options of {@link ConnectorAuth}. */
export interface ConnectorAuthOptions {
  /** TEAMS_APP_ID: the audience every token must name. */
  appId: string;
  /** TEAMS_OPENID_METADATA_URL. */
  metadataUrl: string;
  clock?: Clock;
}

/** A request that authenticated: the service URL its token vouches for. */
export type Authenticated = { ok: true; serviceUrl: string };
/** A request that did not, and why (for the log; the caller only ever answers 401). */
export type Refused = { ok: false; reason: string };

/** Checks the Bot Connector's JWTs against the keys its OpenID metadata publishes. */
export class ConnectorAuth {
  private readonly clock: Clock;
  private keys: { get: JWTVerifyGetKey; at: number } | null = null;
  private loading: Promise<JWTVerifyGetKey> | null = null;

  constructor(private readonly options: ConnectorAuthOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Verifies the `Authorization` header: a signed, unexpired token for this app from the Bot Connector with a `serviceurl` claim. */
  async verify(authorization: string | string[] | undefined): Promise<Authenticated | Refused> {
    const header = typeof authorization === 'string' ? authorization : undefined;
    const token = header && /^Bearer ([\x21-\x7e]+)$/i.exec(header.trim())?.[1];
    if (!token) return { ok: false, reason: 'no bearer token' };
    if (token.length > TOKEN_MAX) return { ok: false, reason: 'token too long' };
    try {
      const { payload } = await jwtVerify(token, this.getKey, {
        issuer: BOT_CONNECTOR_ISSUER,
        audience: this.options.appId,
        algorithms: ['RS256'],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
        currentDate: new Date(this.clock.now()),
      });
      const serviceUrl = payload['serviceurl'];
      if (typeof serviceUrl !== 'string' || serviceUrl === '') return { ok: false, reason: 'no serviceurl claim' };
      return { ok: true, serviceUrl };
    } catch (error) {
      return { ok: false, reason: refusal(error) };
    }
  }

  /** The key a token names, among the published keys endorsed for Teams; an unknown kid reads the keys again (at most every 30 s). */
  private readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const keys = await this.load(false);
    try {
      return await keys(header, token);
    } catch (error) {
      const at = this.keys?.at ?? 0;
      if (!(error instanceof errors.JWKSNoMatchingKey) || this.clock.now() - at < RELOAD_COOLDOWN_MS) throw error;
      return (await this.load(true))(header, token);
    }
  };

  /** The keys, read once an hour (or now, `force`), one read at a time; a failed read is tried again by the next token. */
  private load(force: boolean): Promise<JWTVerifyGetKey> {
    if (this.keys && !force && this.clock.now() - this.keys.at < KEYS_TTL_MS) return Promise.resolve(this.keys.get);
    this.loading ??= this.readKeys()
      .then((get) => {
        this.keys = { get, at: this.clock.now() };
        return get;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  /** Reads the metadata, then its `jwks_uri`: the keys endorsed for Teams (a key listing no endorsements is taken). */
  private async readKeys(): Promise<JWTVerifyGetKey> {
    const metadata = (await readJson(this.options.metadataUrl, 'OpenID metadata')) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri !== 'string') throw new KeysUnavailable('OpenID metadata without jwks_uri');
    const jwks = (await readJson(metadata.jwks_uri, 'signing keys')) as { keys?: unknown };
    if (!Array.isArray(jwks.keys)) throw new KeysUnavailable('signing keys without keys');
    const endorsed = (jwks.keys as (JWK & { endorsements?: unknown })[]).filter(
      (k) => !Array.isArray(k.endorsements) || k.endorsements.includes(ENDORSEMENT),
    );
    return createLocalJWKSet({ keys: endorsed });
  }
}

/** The published keys could not be read: nothing can be verified, so nothing is accepted. */
class KeysUnavailable extends Error {}

async function readJson(url: string, what: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch {
    throw new KeysUnavailable(`${what} not reachable`);
  }
  if (!response.ok) throw new KeysUnavailable(`${what} answered ${response.status}`);
  return response.json().catch(() => {
    throw new KeysUnavailable(`${what} not JSON`);
  });
}

/** Why jose refused a token, in a few words (never the token). */
function refusal(error: unknown): string {
  if (error instanceof KeysUnavailable) return `signing keys unavailable: ${error.message}`;
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim} refused`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'unknown signing key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (error instanceof errors.JOSEError) return error.code;
  return error instanceof Error ? error.message.slice(0, 120) : 'refused';
}
