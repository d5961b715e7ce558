// A local fake of the WhatsApp Cloud API: the messages endpoint (`POST /v23.0/{phone-number-id}/messages`)
// checking bearer token, phone number id and the shapes and limits the real API enforces (text body
// ≤ 4096; reply buttons 1–3, titles 1–20, ids ≤ 256, unique; list rows 1–10, titles ≤ 24,
// descriptions ≤ 72; `context.message_id` of a message it sent), answering with Graph's error body
// (`{error: {message, type, code, fbtrace_id}}`), errors on demand; and webhook deliveries in
// Meta's shape (`object: whatsapp_business_account`, entry → changes → value), signed with
// `X-Hub-Signature-256` like Meta signs them, or forged.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message the fake accepted, as sent (`to`, `type`, the type's object, `context`), with its `wamid`. */
export interface SentMessage {
  id: string;
  body: any;
}

/** What the next send gets instead of its normal answer: an HTTP status and Graph error code, optionally Retry-After. */
export interface FakeFailure {
  status: number;
  code: number;
  retryAfter?: number;
}

/** Options of {@link startFakeWhatsApp}. */
export interface FakeWhatsAppOptions {
  token: string;
  phoneNumberId: string;
  appSecret: string;
  /** Approved templates as `name:language`. */
  templates?: string[];
}

/** The phone number askgate's business number is, in webhook metadata. */
const DISPLAY_NUMBER = '15550001111';

/** A running fake. */
export interface FakeWhatsApp {
  /** WHATSAPP_API_ROOT for askgate. */
  apiRoot: string;
  sent: SentMessage[];
  /** Every refused send (status, Graph code, message), in order. */
  refused: { status: number; code: number; message: string }[];
  /** Send attempts with their times (ms), refused or not. */
  attempts: number[];
  /** Numbers (wa_id) whose 24-hour window is closed: anything but a template gets 131047 until they write. */
  closed: Set<string>;
  /** Numbers (wa_id) the API refuses outright (131030: not in the test number's allowed list). */
  refusedNumbers: Set<string>;
  /** What the person sees of a sent message: its text (body, list rows) and its reply buttons or rows. */
  visible(id: string): { text: string; buttons: { label: string; data: string }[] } | null;
  /** Queues failures for the next sends. */
  failNext(...failures: FakeFailure[]): void;
  /** Called with every message the fake accepts, after it answered the send (a bench's person reacts to it). */
  onSent: ((message: SentMessage) => void) | null;
  /** Posts a delivery to askgate's webhook, signed with the app secret (or `signature` as given, null: none). */
  deliver(url: string, value: object, signature?: string | null): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** A Graph error body. */
const graphError = (message: string, code: number, type = 'OAuthException') => ({
  error: { message, type, code, fbtrace_id: randomBytes(8).toString('hex') },
});

/** Why a message object is refused (Graph code 100, invalid parameter), or null when it is valid. */
export function invalidMessage(
  body: any,
  known: ReadonlySet<string>,
  templates: readonly string[] = [],
): string | null {
  if (body?.messaging_product !== 'whatsapp') return 'messaging_product must be whatsapp';
  if (typeof body.to !== 'string' || !/^\d{7,15}$/.test(body.to)) return 'to must be a phone number';
  if (body.context !== undefined && !known.has(body.context?.message_id)) return 'context.message_id unknown';
  const chars = (s: unknown) => (typeof s === 'string' ? [...s].length : -1);
  if (body.type === 'text') {
    const n = chars(body.text?.body);
    return n < 1 || n > 4096 ? 'text.body must be 1 to 4096 characters' : null;
  }
  if (body.type === 'template') {
    const t = body.template;
    if (!templates.includes(`${t?.name}:${t?.language?.code}`))
      return 'template name does not exist in the translation';
    for (const c of t.components ?? [])
      for (const p of c.parameters ?? []) {
        if (p.type !== 'text' || chars(p.text) < 1 || chars(p.text) > 1024) return 'template parameter must be text';
        if (/[\n\t]| {5,}/.test(p.text))
          return 'template parameter cannot have new-line/tab characters or more than 4 consecutive spaces';
      }
    return null;
  }
  if (body.type !== 'interactive') return `unsupported type ${body.type}`;
  const i = body.interactive;
  const bodyChars = chars(i?.body?.text);
  if (bodyChars < 1 || bodyChars > 1024) return 'interactive.body.text must be 1 to 1024 characters';
  if (i.type === 'button') {
    const buttons = i.action?.buttons;
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) return 'buttons must be 1 to 3';
    const ids = new Set<string>();
    for (const b of buttons) {
      if (b.type !== 'reply') return 'button type must be reply';
      const t = chars(b.reply?.title);
      if (t < 1 || t > 20) return 'button title must be 1 to 20 characters';
      const id = chars(b.reply?.id);
      if (id < 1 || id > 256 || ids.has(b.reply.id)) return 'button id must be 1 to 256 characters and unique';
      ids.add(b.reply.id);
    }
    return null;
  }
  if (i.type === 'list') {
    const label = chars(i.action?.button);
    if (label < 1 || label > 20) return 'action.button must be 1 to 20 characters';
    const rows = (i.action?.sections ?? []).flatMap((s: any) => s.rows ?? []);
    if (rows.length < 1 || rows.length > 10) return 'a list must have 1 to 10 rows';
    const ids = new Set<string>();
    for (const r of rows) {
      const t = chars(r.title);
      if (t < 1 || t > 24) return 'row title must be 1 to 24 characters';
      if (r.description !== undefined && chars(r.description) > 72) return 'row description must be ≤ 72 characters';
      if (chars(r.id) < 1 || chars(r.id) > 200 || ids.has(r.id)) return 'row id must be 1 to 200 characters and unique';
      ids.add(r.id);
    }
    return null;
  }
  return `unsupported interactive type ${i.type}`;
}

/** Starts the fake on a free loopback port. */
export async function startFakeWhatsApp(options: FakeWhatsAppOptions): Promise<FakeWhatsApp> {
  const sent: SentMessage[] = [];
  const refused: FakeWhatsApp['refused'] = [];
  const attempts: number[] = [];
  const failures: FakeFailure[] = [];
  const known = new Set<string>();
  const closed = new Set<string>();
  const refusedNumbers = new Set<string>();
  const answer = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: number, message: string, headers = {}) => {
    refused.push({ status, code, message });
    answer(res, status, graphError(message, code), headers);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const match = /^\/v\d+\.\d+\/([^/]+)\/messages$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) return refuse(res, 400, 100, 'Unknown path components');
    attempts.push(Date.now());
    if (req.headers.authorization !== `Bearer ${options.token}`)
      return refuse(res, 401, 190, 'Invalid OAuth access token');
    if (match[1] !== options.phoneNumberId)
      return refuse(res, 400, 100, 'Unsupported post request: object does not exist');
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return refuse(res, 400, 100, 'Invalid JSON');
    }
    const failure = failures.shift();
    if (failure) {
      const headers: Record<string, string> =
        failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
      return refuse(res, failure.status, failure.code, `failure on demand (${failure.code})`, headers);
    }
    if (refusedNumbers.has(body.to)) return refuse(res, 400, 131030, 'Recipient phone number not in allowed list');
    if (closed.has(body.to) && body.type !== 'template')
      return refuse(
        res,
        400,
        131047,
        'Re-engagement message: more than 24 hours have passed since the customer last replied',
      );
    const problem = invalidMessage(body, known, options.templates);
    if (problem) return refuse(res, 400, 100, `(#100) Invalid parameter: ${problem}`);
    const id = `wamid.${randomBytes(18).toString('base64url')}`;
    known.add(id);
    const message = { id, body };
    sent.push(message);
    answer(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: body.to, wa_id: body.to }],
      messages: [{ id }],
    });
    fake.onSent?.(message);
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeWhatsApp = {
    apiRoot: `http://127.0.0.1:${port}/v23.0`,
    onSent: null,
    sent,
    refused,
    attempts,
    closed,
    refusedNumbers,
    visible(id) {
      const body = sent.find((m) => m.id === id)?.body;
      if (!body) return null;
      if (body.type === 'text') return { text: body.text.body, buttons: [] };
      if (body.type === 'template')
        return { text: body.template.components[0].parameters.map((p: any) => p.text).join(' '), buttons: [] };
      const i = body.interactive;
      if (i.type === 'button')
        return {
          text: i.body.text,
          buttons: i.action.buttons.map((b: any) => ({ label: b.reply.title, data: b.reply.id })),
        };
      const rows = i.action.sections.flatMap((s: any) => s.rows);
      const lines = rows.map((r: any) => (r.description ? `${r.title}\n${r.description}` : r.title));
      return {
        text: [i.body.text, ...lines].join('\n'),
        buttons: rows.map((r: any) => ({ label: r.title, data: r.id })),
      };
    },
    failNext: (...f) => void failures.push(...f),
    async deliver(url, value, signature) {
      // A person's message may be replied to (`context`), like askgate's own.
      // A person's message opens their window again.
      for (const m of (value as { messages?: { id: string; from: string }[] }).messages ?? []) {
        known.add(m.id);
        closed.delete(m.from);
      }
      const raw = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: DISPLAY_NUMBER, phone_number_id: options.phoneNumberId },
                  ...value,
                },
              },
            ],
          },
        ],
      });
      const sig =
        signature === undefined
          ? `sha256=${createHmac('sha256', options.appSecret).update(raw).digest('hex')}`
          : signature;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(sig !== null ? { 'x-hub-signature-256': sig } : {}) },
        body: raw,
      });
      return { status: response.status, text: await response.text() };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return fake;
}

let seq = 0;
/** A person's message in the webhook's `value` (`contacts` and `messages`): `from` is the wa_id (digits). */
export function inboundMessage(from: string, message: object, name = 'Alice'): object {
  seq += 1;
  return {
    contacts: [{ profile: { name }, wa_id: from }],
    messages: [
      {
        from,
        id: `wamid.in${seq}${randomBytes(6).toString('hex')}`,
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...message,
      },
    ],
  };
}

/** A tap on a reply button of message `context` (its id) with `id`. */
export const buttonReply = (context: string, id: string, title = 'x') => ({
  type: 'interactive',
  context: { from: DISPLAY_NUMBER, id: context },
  interactive: { type: 'button_reply', button_reply: { id, title } },
});

/** A pick of a list row of message `context` with `id`. */
export const listReply = (context: string, id: string, title = 'x') => ({
  type: 'interactive',
  context: { from: DISPLAY_NUMBER, id: context },
  interactive: { type: 'list_reply', list_reply: { id, title } },
});

/** A text, replying to message `context` when given. */
export const textReply = (body: string, context?: string) => ({
  type: 'text',
  text: { body },
  ...(context ? { context: { from: DISPLAY_NUMBER, id: context } } : {}),
});

/** A status of message `id` (sent, delivered, read, failed with Graph error `code` and its `title`). */
export function statusUpdate(
  id: string,
  recipient: string,
  status: string,
  code?: number,
  title = 'Re-engagement message',
): object {
  return {
    statuses: [
      {
        id,
        status,
        timestamp: String(Math.floor(Date.now() / 1000)),
        recipient_id: recipient,
        ...(code !== undefined ? { errors: [{ code, title, message: title, error_data: { details: title } }] } : {}),
      },
    ],
  };
}
