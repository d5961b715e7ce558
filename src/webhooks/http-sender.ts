import { ChannelError, type WebhookPayload, type WebhookSender } from '../core/ports.js';
import { WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, signWebhook } from '../client/webhook.js';

/** Options of {@link HttpWebhookSender}. */
export interface HttpWebhookSenderOptions {
  /** HMAC-SHA256 key (`ASKGATE_WEBHOOK_SECRET`). */
  secret: string;
  /** Deadline of one POST, in ms (default 10 000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Current time in epoch ms (tests). */
  now?: () => number;
}

/** Longest `Retry-After` honoured, so a receiver cannot park a job for days. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * POSTs signed webhook payloads. Each attempt is signed afresh (a new timestamp), redirects are
 * not followed, and the response body is never read. 2xx is success; 408, 429, 5xx and network
 * errors are retried by the outbox; any other status is permanent. Errors never carry the URL
 * (it may hold a secret).
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly opts: HttpWebhookSenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = opts.now ?? (() => Date.now());
  }

  /** Signs and POSTs one payload; throws {@link ChannelError} unless the receiver answered 2xx. */
  async send(url: string, payload: WebhookPayload): Promise<{ status: number }> {
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(this.now() / 1000);
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'askgate-webhook/1',
          [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(this.opts.secret, timestamp, body),
        },
        body,
      });
    } catch (error) {
      const err = error as Error & { cause?: { code?: string } };
      const why = err.name === 'TimeoutError' ? `no response within ${this.timeoutMs} ms` : (err.cause?.code ?? err.message);
      throw new ChannelError(`webhook request failed: ${why}`, false);
    }
    await response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) return { status: response.status };
    const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
    const hint = retryAfterMs(response.headers.get('retry-after'), this.now());
    throw new ChannelError(`webhook answered HTTP ${response.status}`, !retryable, hint);
  }
}

function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}
