// `GET/POST /whatsapp/webhook`: the verification challenge, then signed deliveries. The signature
// (`X-Hub-Signature-256`, HMAC-SHA256 of the raw body with the app secret) is checked before the
// body is parsed; messages become taps and replies, statuses are logged (a failed one says why).
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { InboundHttpRequest, InboundHttpResponse } from '../../core/ports.js';
import { tokenMatches } from '../../security/http.js';

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
  id: z.string(),
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

/** A status of a message askgate sent. */
export interface InboundStatus {
  messageId: string;
  status: string;
  codes: number[];
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
        if (!s.success) continue;
        const codes = (s.data.errors ?? []).flatMap((e) => (e.code !== undefined ? [e.code] : []));
        statuses.push({ messageId: s.data.id, status: s.data.status, codes });
      }
    }
  return { messages, statuses };
}
