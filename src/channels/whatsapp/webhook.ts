// `GET/POST /whatsapp/webhook`: the verification challenge, then signed deliveries. The signature
// (`X-Hub-Signature-256`, HMAC-SHA256 of the raw body with the app secret) is checked before the
// body is parsed; messages become taps and replies, statuses delivery events (a failed one says why).
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { InboundHttpRequest, InboundHttpResponse } from '../../core/ports.js';
import { tokenMatches } from '../../security/http.js';
import { shorten } from '../../core/text.js';
import { WINDOW_CLOSED, WINDOW_CLOSED_REASON } from './graph-api.js';

/** The webhook's path. */
export const WEBHOOK_PATH = '/whatsapp/webhook';

/** Answers Meta's verification GET: the challenge echoed for the configured verify token, 403 otherwise. */
export function verifyChallenge(request: InboundHttpRequest, verifyToken: string): InboundHttpResponse {
  const q = request.query ?? {};
  const challenge = q['hub.challenge'];
  if (q['hub.mode'] !== 'subscribe' || !tokenMatches(q['hub.verify_token'], verifyToken) || !challenge)
    return { status: 403, body: { error: 'forbidden' } };
  return { status: 200, headers: { 'content-type': 'text/plain' }, body: challenge };
}

/** Whether the request carries a valid signature of its raw body: `missing` (401) or `forged` (403) otherwise. */
export function signatureCheck(request: InboundHttpRequest, appSecret: string): 'ok' | 'missing' | 'forged' {
  const header = request.headers['x-hub-signature-256'];
  const presented = typeof header === 'string' ? /^sha256=([0-9a-f]{64})$/i.exec(header.trim())?.[1] : undefined;
  if (!presented) return 'missing';
  const expected = createHmac('sha256', appSecret).update(request.rawBody).digest('hex');
  return tokenMatches(presented.toLowerCase(), expected) ? 'ok' : 'forged';
}

const Message = z.object({
  id: z.string().min(1).max(256),
  from: z.string().regex(/^\d{5,20}$/),
  type: z.string(),
  context: z.object({ id: z.string().optional() }).optional(),
  text: z.object({ body: z.string() }).optional(),
  interactive: z
    .object({
      type: z.string(),
      button_reply: z.object({ id: z.string() }).optional(),
      list_reply: z.object({ id: z.string() }).optional(),
    })
    .optional(),
});

const Status = z.object({
  id: z.string().min(1).max(256),
  status: z.string(),
  recipient_id: z.string().optional(),
  errors: z.array(z.object({ code: z.number().optional(), title: z.string().optional() })).optional(),
});

const Contact = z.object({ wa_id: z.string(), profile: z.object({ name: z.string().optional() }).optional() });

/** A webhook delivery as far as askgate reads it (unknown fields pass, unknown shapes are dropped). */
export const WebhookBody = z.object({
  object: z.string(),
  entry: z.array(
    z.object({
      changes: z.array(
        z.object({
          field: z.string(),
          value: z
            .object({
              metadata: z.object({ phone_number_id: z.string() }).optional(),
              contacts: z.array(Contact).optional(),
              messages: z.array(z.unknown()).optional(),
              statuses: z.array(z.unknown()).optional(),
            })
            .passthrough(),
        }),
      ),
    }),
  ),
});

/** One inbound message, normalised: a tap (the button's or row's id) or a text. */
export type InboundMessage = {
  id: string;
  /** The sender as E.164 (`+` and the wa_id). */
  chat: string;
  name?: string;
  /** The message it replies to (a tap: the message tapped). */
  replyTo?: string;
} & ({ kind: 'tap'; token: string } | { kind: 'text'; text: string });

/** A status of a message askgate sent, to the number `chat` (E.164); `reason` for a failed one. */
export interface InboundStatus {
  messageId: string;
  chat?: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  reason?: string;
}

/** Statuses askgate reads (Meta also sends `deleted` and `warning`, which say nothing of a delivery). */
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);
/** A failed status's reason: at most this many characters (the error's code and its title, Meta's words). */
const REASON_MAX = 80;

/**
 * Why a message failed, as a short code kept in the ask's history: `window_closed` for 131047 (sent
 * outside the 24-hour window), else `error <code>: <title>` of the first error, cut short. The title
 * is Meta's text for the code, never the person's; a title that is not printable ASCII is left out.
 */
export function failureReason(errors: readonly { code?: number; title?: string }[]): string {
  if (errors.some((e) => e.code === WINDOW_CLOSED)) return WINDOW_CLOSED_REASON;
  const first = errors[0];
  if (!first) return 'failed';
  const title = first.title && /^[\x20-\x7e]+$/.test(first.title) ? first.title : '';
  const code = first.code !== undefined ? `error ${first.code}` : 'failed';
  return shorten(title ? `${code}: ${title}` : code, REASON_MAX, 'utf16');
}

/** The messages (for this phone number id) and statuses of a parsed delivery; other shapes are skipped. */
export function readDelivery(
  body: z.output<typeof WebhookBody>,
  phoneNumberId: string,
): { messages: InboundMessage[]; statuses: InboundStatus[] } {
  const messages: InboundMessage[] = [];
  const statuses: InboundStatus[] = [];
  for (const entry of body.entry)
    for (const change of entry.changes) {
      const value = change.value;
      if (change.field !== 'messages' || value.metadata?.phone_number_id !== phoneNumberId) continue;
      for (const raw of value.messages ?? []) {
        const m = Message.safeParse(raw);
        if (!m.success) continue;
        const name = value.contacts?.find((c) => c.wa_id === m.data.from)?.profile?.name;
        const head = {
          id: m.data.id,
          chat: `+${m.data.from}`,
          ...(name ? { name } : {}),
          ...(m.data.context?.id ? { replyTo: m.data.context.id } : {}),
        };
        const tap = m.data.interactive?.button_reply?.id ?? m.data.interactive?.list_reply?.id;
        if (m.data.type === 'interactive' && tap) messages.push({ ...head, kind: 'tap', token: tap });
        else if (m.data.type === 'text' && m.data.text)
          messages.push({ ...head, kind: 'text', text: m.data.text.body });
      }
      for (const raw of value.statuses ?? []) {
        const s = Status.safeParse(raw);
        if (!s.success || !STATUSES.has(s.data.status)) continue;
        const status = s.data.status as InboundStatus['status'];
        statuses.push({
          messageId: s.data.id,
          ...(s.data.recipient_id && /^\d{5,20}$/.test(s.data.recipient_id) ? { chat: `+${s.data.recipient_id}` } : {}),
          status,
          ...(status === 'failed' ? { reason: failureReason(s.data.errors ?? []) } : {}),
        });
      }
    }
  return { messages, statuses };
}
