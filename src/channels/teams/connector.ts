// The Bot Connector REST API (v3), called with fetch: send an activity to a conversation, reply to
// one (a thread reply in a channel), update one in place. Errors become ChannelErrors the outbox
// understands: 429 waits for Retry-After; 401/403/404 and other refusals are permanent.
import { ChannelError } from '../../core/ports.js';
import { isRefusal } from '../shared/errors.js';
import type { BotToken } from './token.js';

/** Wait after a 429 that names none. */
const RATE_WAIT_MS = 2_000;
/** Longest wait honoured from a Retry-After (a bigger one is capped: the outbox retries again). */
const RETRY_AFTER_MAX_MS = 10 * 60_000;

/** An outbound activity (a message with its card, or a plain text), as the connector takes it. */
export type OutboundActivity = Record<string, unknown> & { type: 'message' };

/** Where and how askgate calls the connector. */
export class BotConnector {
  constructor(private readonly token: BotToken) {}

  /** Posts `activity` to a conversation (for a channel, `<id>;messageid=<root>` posts in that thread); returns its id. */
  send(serviceUrl: string, conversationId: string, activity: OutboundActivity): Promise<string> {
    return this.call('POST', serviceUrl, conversationId, '', activity, 'sendToConversation');
  }

  /** Replies to an activity (in a channel, in its thread); returns the reply's id. */
  reply(serviceUrl: string, conversationId: string, activityId: string, activity: OutboundActivity): Promise<string> {
    return this.call('POST', serviceUrl, conversationId, activityId, activity, 'replyToActivity');
  }

  /** Replaces an activity the bot sent (its card) in place. */
  async update(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: OutboundActivity,
  ): Promise<void> {
    await this.call('PUT', serviceUrl, conversationId, activityId, { ...activity, id: activityId }, 'updateActivity');
  }

  private async call(
    method: 'POST' | 'PUT',
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: object,
    name: string,
  ): Promise<string> {
    const path = `/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
    const url = `${serviceUrl}${path}${activityId ? `/${encodeURIComponent(activityId)}` : ''}`;
    // A token the connector refuses (revoked, rotated) is dropped and the call made once more with a new one.
    for (let attempt = 1; ; attempt++) {
      const token = await this.token.get();
      const response = await this.fetch(url, method, token, activity, name);
      if (response.status === 401 && attempt === 1) {
        this.token.drop(token);
        continue;
      }
      const body = (await response.json().catch(() => ({}))) as { id?: unknown; error?: { code?: unknown } };
      if (response.ok) {
        if (method === 'PUT') return activityId;
        if (typeof body.id === 'string' && body.id !== '') return body.id;
        throw new ChannelError(`Bot Connector ${name}: answered without an id`, false, undefined, {
          channel: 'teams',
          method: name,
        });
      }
      throw connectorError(response.status, response.headers.get('retry-after'), name, body.error?.code);
    }
  }

  private async fetch(url: string, method: string, token: string, activity: object, name: string) {
    try {
      return await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(activity),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new ChannelError('Bot Connector not reachable', false, undefined, {
        channel: 'teams',
        method: name,
        cause: error,
      });
    }
  }
}

/** A failed call as a ChannelError: 429 retried after its wait, 5xx and 408 retried, every other refusal permanent. */
export function connectorError(
  status: number,
  retryAfter: string | null,
  method: string,
  code?: unknown,
): ChannelError {
  const context = { channel: 'teams', method };
  const named = typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? ` (${code})` : '';
  const what = `Bot Connector ${method}: ${status}${named}`;
  if (status === 429) return new ChannelError(`${what}: rate limited`, false, retryAfterOf(retryAfter), context);
  if (status === 401 || status === 403)
    return new ChannelError(
      `${what}: the bot may not post here (removed from the conversation, or the app's credentials are not accepted)`,
      true,
      undefined,
      context,
    );
  if (status === 404) return new ChannelError(`${what}: no such conversation or message`, true, undefined, context);
  return new ChannelError(what, isRefusal(status), undefined, context);
}

/** A Retry-After header (seconds, or an HTTP date) as milliseconds, capped; the default wait without one. */
export function retryAfterOf(header: string | null, now = Date.now()): number {
  if (header === null || header.trim() === '') return RATE_WAIT_MS;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms) || ms <= 0) return RATE_WAIT_MS;
  return Math.min(ms, RETRY_AFTER_MAX_MS);
}
