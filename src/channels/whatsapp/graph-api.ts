// The Cloud API's messages endpoint, called with plain fetch: no SDK for it is well kept (Meta's
// own Node SDK was archived), and one POST with a bearer token is all askgate needs.
import { ChannelError } from '../../core/ports.js';
import { retryAfterMs } from '../shared/errors.js';

/** Graph error code of a send outside the 24-hour customer-service window (re-engagement message). */
export const WINDOW_CLOSED = 131047;
/** Graph error code of the pair rate limit (too many messages to one person in a short time). */
export const PAIR_RATE_LIMIT = 131056;
/** Graph error code of the phone number's throughput limit. */
export const THROUGHPUT_LIMIT = 130429;
/** Graph error codes of the app's and the account's rate limits. */
const APP_RATE_LIMITS = new Set([4, 80007]);
/** Waits without a Retry-After header: the pair limit allows one message every 6 s; the others back off 5 s. */
const PAIR_WAIT_MS = 6_000;
const RATE_WAIT_MS = 5_000;

/** The reason a delivery outside the window fails with (the delivery's error starts with it). */
export const WINDOW_CLOSED_REASON = 'window_closed';

/** Where and how askgate calls the Graph API. */
export interface GraphTarget {
  apiRoot: string;
  phoneNumberId: string;
  accessToken: string;
}

/** A Graph API error body's `error`. */
interface GraphError {
  code?: number;
  message?: string;
}

/** Sends one message object (`to`, `type` and the type's part; `messaging_product` added) and returns its `wamid`. */
export async function sendMessage(graph: GraphTarget, message: Record<string, unknown>): Promise<string> {
  const context = { channel: 'whatsapp', method: 'messages' };
  let response: Response;
  try {
    response = await fetch(`${graph.apiRoot}/${graph.phoneNumberId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${graph.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', ...message }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new ChannelError('WhatsApp API not reachable', false, undefined, { ...context, cause: error });
  }
  const body = (await response.json().catch(() => ({}))) as { messages?: { id?: unknown }[]; error?: GraphError };
  if (response.ok) {
    const id = body.messages?.[0]?.id;
    if (typeof id === 'string' && id.length > 0) return id;
    throw new ChannelError('WhatsApp API answered without a message id', false, undefined, context);
  }
  throw graphError(response.status, response.headers.get('retry-after'), body.error ?? {});
}

/** A failed send as a ChannelError: rate limits retried after their wait, the closed window permanent. */
export function graphError(status: number, retryAfter: string | null, error: GraphError): ChannelError {
  const context = { channel: 'whatsapp', method: 'messages', cause: error };
  const code = error.code;
  const what = `WhatsApp API error ${status}${code !== undefined ? ` (code ${code})` : ''}`;
  if (code === WINDOW_CLOSED)
    return new ChannelError(
      `${WINDOW_CLOSED_REASON}: the 24-hour window is closed (${what})`,
      true,
      undefined,
      context,
    );
  if (code === PAIR_RATE_LIMIT)
    return new ChannelError(`${what}: pair rate limit`, false, retryAfterMs(retryAfter, PAIR_WAIT_MS), context);
  if (status === 429 || code === THROUGHPUT_LIMIT || (code !== undefined && APP_RATE_LIMITS.has(code)))
    return new ChannelError(`${what}: rate limited`, false, retryAfterMs(retryAfter, RATE_WAIT_MS), context);
  if (status >= 500 || status === 408) return new ChannelError(what, false, undefined, context);
  return new ChannelError(what, true, undefined, context);
}
