import type { Update } from 'grammy/types';
import type { InboundHttpRequest, InboundHttpResponse, Logger } from '../../core/ports.js';
import type { EffectGate } from '../shared/take-event.js';
import { tokenMatches } from '../../security/http.js';
import { describeError } from './limits.js';

/** Path of the webhook route on askgate's HTTP port. */
export const WEBHOOK_PATH = '/telegram/webhook';
const WEBHOOK_ANSWER_MS = 1500;

/** Waits for `work`, but at most `ms`. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** What {@link receiveWebhook} needs from the channel. */
export interface WebhookHost {
  secret: string | undefined;
  logger: Logger;
  started(): boolean;
  /** Takes the update (see the channel's `take`). */
  take(update: Update): Promise<EffectGate | 'done' | 'busy'>;
  /**
   * Runs the update under its gate. `reply` answers Telegram's POST with a method call (a webhook
   * reply) while that answer is still open, and returns false once it went out without one: the
   * caller then makes the call itself. Never rejects.
   */
  run(update: Update, gate: EffectGate, reply: (payload: string) => boolean): Promise<void>;
}

/** Answers one `POST /telegram/webhook`: checks the secret, takes the update and runs it. */
export async function receiveWebhook(request: InboundHttpRequest, host: WebhookHost): Promise<InboundHttpResponse> {
  const header = request.headers['x-telegram-bot-api-secret-token'];
  const given = Array.isArray(header) ? header[0] : header;
  const secret = host.secret;
  if (!secret || typeof given !== 'string' || !tokenMatches(given, secret)) {
    return {
      status: 401,
      body: { error: { code: 'unauthorized', message: 'missing or wrong X-Telegram-Bot-Api-Secret-Token' } },
    };
  }
  if (!host.started())
    return { status: 503, body: { error: { code: 'unavailable', message: 'telegram channel not started' } } };
  let update: Update;
  try {
    update = JSON.parse(request.rawBody.toString('utf8')) as Update;
  } catch {
    return { status: 400, body: { error: { code: 'invalid_request', message: 'body is not JSON' } } };
  }
  if (!update || typeof update.update_id !== 'number')
    return { status: 400, body: { error: { code: 'invalid_request', message: 'not a Telegram update' } } };
  // Telegram re-sends an update whose answer was slow or failed, to any replica: an update an
  // attempt settled is acknowledged without effect; one no attempt could be sure of fails, so
  // Telegram re-sends it later.
  let taken: EffectGate | 'done' | 'busy';
  try {
    taken = await host.take(update);
  } catch (error) {
    host.logger.warn(
      { channel: 'telegram', err: describeError(error) },
      'telegram update not taken: store unavailable',
    );
    return { status: 503, body: { error: { code: 'unavailable', message: 'store unavailable, re-send later' } } };
  }
  if (taken === 'done') return { status: 200, body: { ok: true } };
  if (taken === 'busy')
    return {
      status: 503,
      body: { error: { code: 'in_progress', message: 'this update is being handled, re-send later' } },
    };
  // The POST is answered once: with the first webhook reply, or empty when the update was handled
  // without one or after WEBHOOK_ANSWER_MS; a reply after that is refused, never silently dropped.
  let answer: (payload: string | null) => void = () => {};
  const answered = new Promise<string | null>((resolve) => (answer = resolve));
  let open = true;
  const close = (payload: string | null): boolean => {
    if (!open) return false;
    open = false;
    answer(payload);
    return true;
  };
  const timer = setTimeout(() => close(null), WEBHOOK_ANSWER_MS);
  void host.run(update, taken, (payload) => close(payload)).finally(() => close(null));
  const payload = await answered;
  clearTimeout(timer);
  if (payload !== null) return { status: 200, headers: { 'content-type': 'application/json' }, body: payload };
  return { status: 200, body: { ok: true } };
}
