import { createHmac } from 'node:crypto';

/** Header carrying the signing time, in Unix seconds. */
export const WEBHOOK_TIMESTAMP_HEADER = 'X-Askgate-Timestamp';
/** Header carrying `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Askgate-Signature';

/** A webhook body as sent or received: the exact bytes are what is signed. */
export type RawBody = string | Uint8Array;

/** The signature header value for a body signed at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number | string, rawBody: RawBody): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest('hex')}`;
}
