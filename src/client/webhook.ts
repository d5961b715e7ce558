import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { AskResultSchema } from '../core/schemas.js';

/** Header carrying the signing time, in Unix seconds. */
export const WEBHOOK_TIMESTAMP_HEADER = 'X-Askgate-Timestamp';
/** Header carrying `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Askgate-Signature';

/** The JSON body of a webhook: the terminal result of one ask. */
export const WebhookPayloadSchema = z.object({
  askId: z.string(),
  runId: z.string(),
  version: z.number().int().positive(),
  result: AskResultSchema,
});
/** The JSON body of a webhook. */
export type WebhookBody = z.output<typeof WebhookPayloadSchema>;

type RawBody = string | Uint8Array;

/** The signature header value for a body signed at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number | string, rawBody: RawBody): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest('hex')}`;
}

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
