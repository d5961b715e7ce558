// The bot's outbound token: client credentials (app id and password) exchanged at Microsoft Entra
// for a token with the Bot Connector's scope, kept until shortly before it expires, and fetched
// once for every caller waiting at the same time (single flight).
import { ChannelError, type Clock } from '../../core/ports.js';
import { systemClock } from '../../system-clock.js';
import { isRefusal } from '../shared/errors.js';

/** The scope of tokens for the Bot Connector. */
export const BOT_CONNECTOR_SCOPE = 'https://api.botframework.com/.default';
/** A token is renewed this long before it expires (Entra's last about an hour). */
const RENEW_BEFORE_MS = 5 * 60_000;

/** Options of {@link BotToken}. */
export interface BotTokenOptions {
  appId: string;
  appPassword: string;
  tokenUrl: string;
  clock?: Clock;
}

/** The bot's access token for the Bot Connector, cached and fetched once at a time. */
export class BotToken {
  private readonly clock: Clock;
  private cached: { token: string; until: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly options: BotTokenOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** A valid token: the cached one, or the one being fetched, or a new one. Throws {@link ChannelError}. */
  get(): Promise<string> {
    if (this.cached && this.clock.now() < this.cached.until) return Promise.resolve(this.cached.token);
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Forgets `token` (the connector refused it): the next {@link get} fetches a new one. */
  drop(token: string): void {
    if (this.cached?.token === token) this.cached = null;
  }

  private async fetchToken(): Promise<string> {
    const context = { channel: 'teams', method: 'token' };
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.appId,
      client_secret: this.options.appPassword,
      scope: BOT_CONNECTOR_SCOPE,
    });
    let response: Response;
    try {
      response = await fetch(this.options.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new ChannelError('Microsoft Entra token endpoint not reachable', false, undefined, {
        ...context,
        cause: error,
      });
    }
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
    };
    if (!response.ok) {
      // Entra's error code (invalid_client, unauthorized_client, …) names what is wrong; never its description's ids.
      const code = typeof body.error === 'string' ? `: ${body.error.slice(0, 64)}` : '';
      const message = `Microsoft Entra refused the bot's credentials (${response.status}${code}): check TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID`;
      if (isRefusal(response.status)) throw new ChannelError(message, true, undefined, context);
      throw new ChannelError(`Microsoft Entra token endpoint error ${response.status}`, false, undefined, context);
    }
    const expiresIn = Number(body.expires_in);
    if (typeof body.access_token !== 'string' || body.access_token === '' || !(expiresIn > 0))
      throw new ChannelError('Microsoft Entra answered without a token', false, undefined, context);
    const lifetime = expiresIn * 1000;
    // A short-lived token is kept for half its life rather than not at all.
    const keep = lifetime > 2 * RENEW_BEFORE_MS ? lifetime - RENEW_BEFORE_MS : lifetime / 2;
    this.cached = { token: body.access_token, until: this.clock.now() + keep };
    return body.access_token;
  }
}
