import { timingSafeEqual } from 'node:crypto';
import type { WebhookPayload } from '../core/schemas.js';
import { signWebhook, type RawBody } from '../webhooks/signing.js';

export { WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, signWebhook } from '../webhooks/signing.js';

/** The JSON body of a webhook (parse it with `WebhookPayloadSchema`). */
export type WebhookBody = WebhookPayload;

/**
 * Verifies a webhook: the signature must match the exact raw body and the timestamp must be
 * within `toleranceSeconds` of now (replay protection). Constant-time; never throws.
 * `signature` may list several `v1=` values separated by commas (secret rotation).
 */
export function verifyWebhook(
  secret: string,
  timestamp: string | number | null | undefined,
  rawBody: RawBody,
  signature: string | null | undefined,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  if (!secret || timestamp === null || timestamp === undefined || !signature) return false;
  const ts = String(timestamp).trim();
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, ts, rawBody).slice(3), 'hex');
  let ok = false;
  for (const part of signature.split(',')) {
    const match = /^\s*v1=([0-9a-f]{64})\s*$/i.exec(part);
    if (match && timingSafeEqual(Buffer.from(match[1]!.toLowerCase(), 'hex'), expected)) ok = true;
  }
  return ok;
}
