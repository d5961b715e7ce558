// Inbound authentication: every request to `/teams/messages` carries a JWT the Bot Connector
// signed (`Authorization: Bearer …`). Its signature is checked against the keys the OpenID metadata
// publishes (`jwks_uri`), then its issuer, audience (the app id), expiry and `serviceurl` claim.
// jose does the cryptography; nothing of the body is read before the token passed.
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../core/ports.js';
import { systemClock } from '../../system-clock.js';

/** The issuer of the tokens the Bot Connector sends to bots (public cloud). */
export const BOT_CONNECTOR_ISSUER = 'https://api.botframework.com';
/** Clock skew allowed on `exp` and `nbf`, in seconds (the Bot Framework's own validators allow 5 minutes). */
export const CLOCK_TOLERANCE_S = 300;
/** How long the metadata (its `jwks_uri`) is kept before it is read again; the Bot Framework asks for at least daily. */
const METADATA_TTL_MS = 24 * 3_600_000;
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
  private keys: { set: Promise<JWTVerifyGetKey>; at: number } | null = null;

  constructor(private readonly options: ConnectorAuthOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Verifies the `Authorization` header: a signed, unexpired token for this app from the Bot Connector with a `serviceurl` claim. */
  async verify(authorization: string | string[] | undefined): Promise<Authenticated | Refused> {
    const header = typeof authorization === 'string' ? authorization : undefined;
    const token = header && /^Bearer ([\x21-\x7e]+)$/i.exec(header.trim())?.[1];
    if (!token) return { ok: false, reason: 'no bearer token' };
    if (token.length > TOKEN_MAX) return { ok: false, reason: 'token too long' };
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.keySet();
    } catch (error) {
      // The metadata could not be read: nothing can be verified, so nothing is accepted.
      return { ok: false, reason: `signing keys unavailable: ${(error as Error).message}` };
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
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

  /** The key set of the metadata's `jwks_uri`, read once a day; a failed read is retried by the next request. */
  private keySet(): Promise<JWTVerifyGetKey> {
    const now = this.clock.now();
    if (!this.keys || now - this.keys.at > METADATA_TTL_MS) {
      const set = this.readMetadata();
      this.keys = { set, at: now };
      set.catch(() => {
        if (this.keys?.set === set) this.keys = null;
      });
    }
    return this.keys.set;
  }

  private async readMetadata(): Promise<JWTVerifyGetKey> {
    const response = await fetch(this.options.metadataUrl, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`OpenID metadata answered ${response.status}`);
    const metadata = (await response.json()) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri !== 'string') throw new Error('OpenID metadata without jwks_uri');
    // jose keeps the keys (10 min) and reads them again, at most every 30 s, when a token names an unknown kid.
    return createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: 10_000 });
  }
}

/** Why jose refused a token, in a few words (never the token). */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim} refused`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'unknown signing key';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad signature';
  if (error instanceof errors.JOSEError) return error.code;
  return error instanceof Error ? error.message.slice(0, 120) : 'refused';
}
