// A local fake of what a Teams bot talks to: the Bot Framework's OpenID metadata and signing keys
// (an RSA key made by jose, published as a JWKS with Teams' endorsement), Microsoft Entra's token
// endpoint (client credentials checked: tenant in the path, client id, secret, scope), and the Bot
// Connector's v3 conversations endpoints (send, reply, update) storing every activity and update,
// with 429/5xx on demand. It also plays the connector towards the bot: activities POSTed to
// askgate's `/teams/messages` with `Authorization: Bearer <jwt>` signed like the connector signs
// them (iss https://api.botframework.com, aud the app id, the `serviceurl` claim), and returns the
// HTTP answer (an invoke's body included). Shapes are typed with the Teams SDK's types.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type {
  AdaptiveCardActionResponse,
  ChannelData,
  ConversationAccount,
  IAdaptiveCardActionInvokeActivity,
  IConversationUpdateActivity,
  IMessageActivity,
  InstallUpdateActivity,
} from '@microsoft/teams.api';

/** The issuer of the connector's tokens. */
export const CONNECTOR_ISSUER = 'https://api.botframework.com';
/** Scope the Entra endpoint grants tokens for. */
export const CONNECTOR_SCOPE = 'https://api.botframework.com/.default';

/** An activity as JSON on the wire (dates as strings, no methods). */
type Wire<T> = {
  [K in keyof T as T[K] extends (...a: never[]) => unknown ? never : K]: T[K] extends Date | undefined ? string : T[K];
};
/** A message activity as sent to a bot. */
export type WireMessage = Partial<Wire<IMessageActivity>>;
/** An `adaptiveCard/action` invoke as sent to a bot. */
export type WireInvoke = Partial<Wire<IAdaptiveCardActionInvokeActivity>>;
/** What a bot sent or updated, stored by the fake. */
export interface StoredActivity {
  id: string;
  conversationId: string;
  /** The activity it replies to (a reply), if any. */
  replyToId?: string;
  body: any;
  /** Each PUT of it, in order (the body as sent). */
  updates: any[];
}

/** What the next connector call gets instead of its answer: a status and an optional Retry-After (seconds or a date). */
export interface ConnectorFailure {
  status: number;
  retryAfter?: string;
}

/** Options of {@link startFakeTeams}. */
export interface FakeTeamsOptions {
  appId: string;
  appPassword: string;
  tenantId: string;
}

/** How a signed request is made: a claim or header changed to test refusals. */
export interface SignOptions {
  iss?: string;
  aud?: string;
  serviceurl?: string | null;
  /** Seconds from now the token expires (negative: expired). */
  expiresIn?: number;
  /**
   * Sign with a key the JWKS does not publish under the published kid (a forgery), under an unknown
   * kid, or with a published key endorsed only for another channel (webchat).
   */
  key?: 'published' | 'forged' | 'unknown-kid' | 'other-channel';
  /** The Authorization header as given (null: none). */
  authorization?: string | null;
}

/** The answer askgate gave to an activity. */
export interface BotAnswer {
  status: number;
  body: any;
}

/** A running fake. */
export interface FakeTeams {
  /** TEAMS_OPENID_METADATA_URL. */
  metadataUrl: string;
  /** TEAMS_TOKEN_URL (the tenant's token endpoint). */
  tokenUrl: string;
  /** askgate's TEAMS_* settings for this fake: the credentials, its metadata and token URLs, loopback service URLs. */
  settings: Record<string, string>;
  /** The service URL activities carry (with its trailing slash, as Teams sends it). */
  serviceUrl: string;
  /** Activities the bot sent, by id. */
  activities: Map<string, StoredActivity>;
  /** Every connector call the fake answered (method, path, status). */
  calls: { method: string; path: string; status: number }[];
  /** Token requests, accepted or not. */
  tokenRequests: { clientId: string; status: number }[];
  failNext(...failures: ConnectorFailure[]): void;
  /** Activities sent to `conversationId` (a thread's posts under `<id>;messageid=<root>`). */
  sentTo(conversationId: string): StoredActivity[];
  /** POSTs `activity` to askgate's messaging endpoint, signed as the connector signs (changed by `sign`). */
  post(url: string, activity: object, sign?: SignOptions): Promise<BotAnswer>;
  /** Rotates the signing key: a new key under a new kid replaces the published one. */
  rotateKey(): Promise<void>;
  /** A signed token for `serviceUrl` (the fake's by default). */
  token(sign?: SignOptions): Promise<string>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The connector's error body. */
const connectorError = (code: string, message: string) => ({ error: { code, message } });

/** Starts the fake on a loopback port. */
export async function startFakeTeams(options: FakeTeamsOptions): Promise<FakeTeams> {
  let kid = `kid-${randomBytes(4).toString('hex')}`;
  let published = await generateKeyPair('RS256');
  const forged = await generateKeyPair('RS256');
  const webchat = await generateKeyPair('RS256');
  let jwk: JWK = { ...(await exportJWK(published.publicKey)), kid, use: 'sig', alg: 'RS256' };
  const webchatJwk: JWK = { ...(await exportJWK(webchat.publicKey)), kid: `${kid}-webchat`, use: 'sig', alg: 'RS256' };
  const issued = new Set<string>();
  const activities = new Map<string, StoredActivity>();
  const calls: FakeTeams['calls'] = [];
  const tokenRequests: FakeTeams['tokenRequests'] = [];
  const failures: ConnectorFailure[] = [];
  let base = '';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    const raw = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/v1/.well-known/openidconfiguration')
      return send(res, 200, {
        issuer: CONNECTOR_ISSUER,
        authorization_endpoint: 'https://invalid.botframework.com',
        jwks_uri: `${base}/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
    // The Bot Framework's keys carry the channels they are endorsed for.
    if (req.method === 'GET' && url.pathname === '/v1/.well-known/keys')
      return send(res, 200, {
        keys: [
          { ...jwk, endorsements: ['msteams', 'skype'] },
          { ...webchatJwk, endorsements: ['webchat'] },
        ],
      });
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (req.method === 'POST' && tokenPath) return issueToken(res, tokenPath[1]!, raw);
    const conv = /^\/svc\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname);
    if (conv) return connector(req, res, decodeURIComponent(conv[1]!), conv[2] && decodeURIComponent(conv[2]), raw);
    send(res, 404, { error: 'not found' });
  }

  function issueToken(res: ServerResponse, tenant: string, raw: string): void {
    const form = new URLSearchParams(raw);
    const clientId = form.get('client_id') ?? '';
    const refuse = (status: number, error: string) => {
      tokenRequests.push({ clientId, status });
      send(res, status, { error, error_description: `AADSTS: ${error}` });
    };
    if (tenant !== options.tenantId) return refuse(400, 'invalid_request');
    if (form.get('grant_type') !== 'client_credentials') return refuse(400, 'unsupported_grant_type');
    if (clientId !== options.appId) return refuse(400, 'unauthorized_client');
    if (form.get('client_secret') !== options.appPassword) return refuse(401, 'invalid_client');
    if (form.get('scope') !== CONNECTOR_SCOPE) return refuse(400, 'invalid_scope');
    const token = `ey${randomBytes(24).toString('base64url')}`;
    issued.add(token);
    tokenRequests.push({ clientId, status: 200 });
    send(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  }

  function connector(
    req: IncomingMessage,
    res: ServerResponse,
    conversationId: string,
    activityId: string | undefined,
    raw: string,
  ): void {
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      calls.push({ method: req.method ?? '', path: `${conversationId}/${activityId ?? ''}`, status });
      send(res, status, body, headers);
    };
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer))
      return answer(401, { message: 'Authorization has been denied for this request.' });
    const failure = failures.shift();
    if (failure)
      return answer(
        failure.status,
        connectorError(failure.status === 429 ? 'TooManyRequests' : 'ServiceError', 'injected'),
        failure.retryAfter !== undefined ? { 'retry-after': failure.retryAfter } : {},
      );
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return answer(400, connectorError('BadArgument', 'invalid JSON'));
    }
    const invalid = invalidActivity(body);
    if (invalid) return answer(400, connectorError('BadArgument', invalid));
    if (req.method === 'PUT' && activityId) {
      const stored = activities.get(activityId);
      if (!stored) return answer(404, connectorError('ActivityNotFoundInConversation', 'unknown activity'));
      stored.updates.push(body);
      return answer(200, { id: activityId });
    }
    if (req.method !== 'POST') return answer(405, connectorError('BadArgument', 'method'));
    if (activityId && !activities.has(activityId) && !isThreadRoot(activityId))
      return answer(404, connectorError('ActivityNotFoundInConversation', 'unknown activity'));
    // Teams' message ids are epoch milliseconds.
    const id = `${Date.now()}${String(activities.size).padStart(3, '0')}`;
    activities.set(id, { id, conversationId, ...(activityId ? { replyToId: activityId } : {}), body, updates: [] });
    answer(201, { id });
  }

  /** A person's own message may be replied to (askgate replies in its thread): ids the fake did not issue count when numeric. */
  const isThreadRoot = (id: string) => /^\d+$/.test(id);

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceUrl = `${base}/svc/`;

  async function token(sign: SignOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey =
      sign.key === 'forged'
        ? forged.privateKey
        : sign.key === 'other-channel'
          ? webchat.privateKey
          : published.privateKey;
    const keyId = sign.key === 'unknown-kid' ? 'kid-unknown' : sign.key === 'other-channel' ? webchatJwk.kid : kid;
    const claims: Record<string, unknown> = {
      serviceurl: sign.serviceurl === undefined ? serviceUrl : sign.serviceurl,
    };
    if (claims.serviceurl === null) delete claims.serviceurl;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: keyId })
      .setIssuer(sign.iss ?? CONNECTOR_ISSUER)
      .setAudience(sign.aud ?? options.appId)
      .setIssuedAt(now - 60)
      .setNotBefore(now - 60)
      .setExpirationTime(now + (sign.expiresIn ?? 3600))
      .sign(key);
  }

  const metadataUrl = `${base}/v1/.well-known/openidconfiguration`;
  const tokenUrl = `${base}/${options.tenantId}/oauth2/v2.0/token`;
  return {
    metadataUrl,
    tokenUrl,
    settings: {
      TEAMS_APP_ID: options.appId,
      TEAMS_APP_PASSWORD: options.appPassword,
      TEAMS_TENANT_ID: options.tenantId,
      TEAMS_OPENID_METADATA_URL: metadataUrl,
      TEAMS_TOKEN_URL: tokenUrl,
      TEAMS_SERVICE_URL_HOSTS: '127.0.0.1',
    },
    serviceUrl,
    activities,
    calls,
    tokenRequests,
    failNext: (...f) => void failures.push(...f),
    sentTo: (conversationId) => [...activities.values()].filter((a) => a.conversationId === conversationId),
    token,
    async post(url, activity, sign = {}) {
      const authorization = sign.authorization === undefined ? `Bearer ${await token(sign)}` : sign.authorization;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization !== null ? { authorization } : {}) },
        body: JSON.stringify(activity),
      });
      const text = await res.text();
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : '';
      } catch {
        /* kept as text */
      }
      return { status: res.status, body };
    },
    async rotateKey() {
      published = await generateKeyPair('RS256');
      kid = `kid-${randomBytes(4).toString('hex')}`;
      jwk = { ...(await exportJWK(published.publicKey)), kid, use: 'sig', alg: 'RS256' };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Why an activity the bot sent is refused (the connector's BadArgument), or null. */
export function invalidActivity(body: any): string | null {
  if (body?.type !== 'message') return 'type must be message';
  const attachments = body.attachments ?? [];
  if (!Array.isArray(attachments)) return 'attachments must be an array';
  if (attachments.length === 0 && (typeof body.text !== 'string' || body.text === '')) return 'empty message';
  for (const a of attachments) {
    if (a?.contentType !== 'application/vnd.microsoft.card.adaptive') return 'unknown attachment type';
    if (a.content?.type !== 'AdaptiveCard' || typeof a.content.version !== 'string') return 'not an Adaptive Card';
  }
  // Teams refuses messages over about 28 KB.
  return JSON.stringify(body).length > 28_000 ? 'message too large' : null;
}

/** Who is who in the fake tenant. */
export interface TeamsPeople {
  appId: string;
  tenantId: string;
  serviceUrl: string;
}

const botAccount = (p: TeamsPeople) => ({ id: `28:${p.appId}`, name: 'askgate', role: 'bot' as const });

/** A person in the tenant: their Teams id and their Entra object id. */
export const person = (name: string, aadObjectId: string) => ({
  id: `29:${name}-${aadObjectId.slice(0, 8)}`,
  name,
  aadObjectId,
  role: 'user' as const,
});

/** The conversation part of an activity. */
export function conversation(
  p: TeamsPeople,
  id: string,
  kind: 'personal' | 'channel' | 'groupChat',
): { conversation: ConversationAccount; channelData: ChannelData } {
  return {
    conversation: {
      id,
      conversationType: kind,
      tenantId: p.tenantId,
      ...(kind !== 'personal' ? { isGroup: true } : {}),
    },
    channelData: {
      tenant: { id: p.tenantId },
      ...(kind === 'channel'
        ? {
            team: { id: '19:team@thread.tacv2', name: 'Platform' },
            channel: { id: id.split(';')[0]!, name: 'Deploys' },
          }
        : {}),
    },
  };
}

const common = (p: TeamsPeople) => ({
  id: `${Date.now()}${randomBytes(2).readUInt16BE(0)}`,
  channelId: 'msteams',
  serviceUrl: p.serviceUrl,
  timestamp: new Date().toISOString(),
  recipient: botAccount(p),
});

/** The bot added to a team (conversationUpdate `teamMemberAdded`, membersAdded: the bot), in its channel `conversationId`. */
export function botAddedToTeam(p: TeamsPeople, conversationId: string) {
  const where = conversation(p, conversationId, 'channel');
  const activity = {
    ...common(p),
    type: 'conversationUpdate' as const,
    from: person('installer', randomUUID()),
    membersAdded: [botAccount(p)],
    conversation: where.conversation,
    channelData: { ...where.channelData, eventType: 'teamMemberAdded' as const },
  };
  return activity satisfies Partial<Wire<IConversationUpdateActivity>>;
}

/** The bot removed from a team (conversationUpdate `teamMemberRemoved`, membersRemoved: the bot), in its channel `conversationId`. */
export function botRemovedFromTeam(p: TeamsPeople, conversationId: string) {
  const where = conversation(p, conversationId, 'channel');
  const activity = {
    ...common(p),
    type: 'conversationUpdate' as const,
    from: person('owner', randomUUID()),
    membersRemoved: [botAccount(p)],
    conversation: where.conversation,
    channelData: { ...where.channelData, eventType: 'teamMemberRemoved' as const },
  };
  return activity satisfies Partial<Wire<IConversationUpdateActivity>>;
}

/** The app uninstalled for a person or from a chat (installationUpdate, action remove). */
export function uninstalled(p: TeamsPeople, conversationId: string, kind: 'personal' | 'channel' | 'groupChat') {
  const activity = { ...installed(p, conversationId, kind), action: 'remove' as const };
  return activity satisfies Partial<Wire<InstallUpdateActivity>>;
}

/** The app installed for a person or a chat (installationUpdate, action add). */
export function installed(p: TeamsPeople, conversationId: string, kind: 'personal' | 'channel' | 'groupChat') {
  const activity = {
    ...common(p),
    type: 'installationUpdate' as const,
    action: 'add' as const,
    from: person('installer', randomUUID()),
    ...conversation(p, conversationId, kind),
  };
  return activity satisfies Partial<Wire<InstallUpdateActivity>>;
}

/** A person's message; in a channel it mentions the bot (`<at>askgate</at> …`), as Teams requires. */
export function message(
  p: TeamsPeople,
  from: ReturnType<typeof person>,
  conversationId: string,
  kind: 'personal' | 'channel' | 'groupChat',
  text: string,
  extra: { replyToId?: string; locale?: string } = {},
): WireMessage {
  const mention = kind !== 'personal';
  return {
    ...common(p),
    type: 'message',
    from,
    text: mention ? `<at>askgate</at> ${text}` : text,
    textFormat: 'plain',
    locale: extra.locale ?? 'en-US',
    ...(extra.replyToId ? { replyToId: extra.replyToId } : {}),
    ...(mention
      ? { entities: [{ type: 'mention', text: '<at>askgate</at>', mentioned: botAccount(p) } as never] }
      : {}),
    ...conversation(p, conversationId, kind),
  };
}

/** A click on a card's Action.Execute (`verb`, `data`), as an `adaptiveCard/action` invoke. */
export function cardAction(
  p: TeamsPeople,
  from: ReturnType<typeof person>,
  conversationId: string,
  kind: 'personal' | 'channel' | 'groupChat',
  replyToId: string,
  action: { verb: string; data: Record<string, unknown> },
  extra: { locale?: string; trigger?: 'manual' } = {},
): WireInvoke {
  return {
    ...common(p),
    type: 'invoke',
    name: 'adaptiveCard/action',
    from,
    replyToId,
    locale: extra.locale ?? 'en-US',
    value: { action: { type: 'Action.Execute', ...action }, ...(extra.trigger ? { trigger: extra.trigger } : {}) },
    ...conversation(p, conversationId, kind),
  };
}

/** Type guard for an invoke answer askgate gave: the SDK's adaptive card action response. */
export function isCardActionResponse(body: unknown): body is AdaptiveCardActionResponse {
  const b = body as { statusCode?: unknown; type?: unknown } | null;
  return typeof b?.statusCode === 'number' && typeof b.type === 'string';
}
