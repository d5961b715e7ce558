/** Types, limits and body parsing of the fake Telegram Bot API (see telegram-api.ts). */
import type { IncomingMessage } from 'node:http';

/** A Telegram user as the fake knows it. */
export interface FakeUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  /** IETF language tag of the user's language (Bot API `User.language_code`, e.g. "es", "pt-br"). */
  language_code?: string;
}
/** A chat: private (id = the user's id) or a group (negative id). */
export interface FakeChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  title?: string;
  first_name?: string;
  username?: string;
}
/** An inline keyboard button. */
export interface Button {
  text: string;
  callback_data?: string;
  /** A link button (exactly one of callback_data and url). */
  url?: string;
}
/** Reply markup as stored: an inline keyboard or a force-reply request. */
export type Markup = { inline_keyboard: Button[][] } | { force_reply: true; input_field_placeholder?: string };
/** A message as the fake stores it. */
export interface StoredMessage {
  message_id: number;
  chat: FakeChat;
  from: FakeUser;
  date: number;
  text: string;
  entities?: { type: string; offset: number; length: number }[];
  reply_markup?: Markup;
  reply_to?: number;
  /** Forum topic the message was sent in (`message_thread_id`). */
  message_thread_id?: number;
  parse_mode?: string;
  edits: number;
}
/** One Bot API call the fake answered (the token is not kept). */
export interface ApiCall {
  method: string;
  params: Record<string, any>;
  at: number;
  ok: boolean;
  error_code?: number;
  description?: string;
}
/** An answerCallbackQuery the fake accepted. */
export interface CallbackAnswer {
  id: string;
  text: string;
  show_alert: boolean;
  at: number;
}
/** An error the fake answers with: `{ok: false, error_code, description, parameters}`. */
export interface Failure {
  error_code: number;
  description: string;
  retry_after?: number;
}

/** A Bot API error the fake answers with. */
export class ApiFail extends Error {
  constructor(readonly failure: Failure) {
    super(failure.description);
  }
}
/** Throws an {@link ApiFail}. */
export const fail = (error_code: number, description: string): never => {
  throw new ApiFail({ error_code, description });
};
/** Telegram's answer to a late or repeated answerCallbackQuery. */
export const TOO_OLD = 'Bad Request: query is too old and response timeout expired or query ID is invalid';
/** Telegram's answer to an edit that changes nothing. */
export const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message';

/** Validates a message text (1–4096 characters). */
export function checkText(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '') return fail(400, 'Bad Request: message text is empty');
  if (text.length > 4096) fail(400, 'Bad Request: message is too long');
  return text;
}

/** Validates entity offsets against the text. */
export function checkEntities(entities: unknown, text: string): void {
  if (entities === undefined) return;
  if (!Array.isArray(entities)) fail(400, "Bad Request: can't parse entities: not an array");
  for (const e of entities as { type?: string; offset: number; length: number; [k: string]: unknown }[]) {
    if (!(e.offset >= 0 && e.length > 0 && e.offset + e.length <= text.length))
      fail(400, "Bad Request: can't parse entities: entity out of range");
    // Bot API 9.5: a date_time entity has an integer unix_time (at most about three years ahead) and
    // a format of an optional w, then d or D, then t or T, or r alone.
    if (e.type === 'date_time') {
      const unix = e.unix_time;
      if (!Number.isInteger(unix) || (unix as number) < 0 || (unix as number) > Date.now() / 1000 + 1098 * 86_400)
        fail(400, "Bad Request: can't parse entities: invalid unix_time");
      if (typeof e.date_time_format !== 'string' || !/^(r|w?[dD]?[tT]?)$/.test(e.date_time_format))
        fail(400, "Bad Request: can't parse entities: invalid date_time_format");
    }
  }
}

/** Validates reply markup: 64-byte callback_data, keyboard size, a force-reply's 1–64-character placeholder. */
export function checkMarkup(markup: any): Markup | undefined {
  if (markup === undefined) return undefined;
  if (markup.force_reply === true) {
    // Bot API: input_field_placeholder is 1-64 characters.
    const placeholder: unknown = markup.input_field_placeholder;
    if (
      placeholder !== undefined &&
      (typeof placeholder !== 'string' || placeholder.length < 1 || placeholder.length > 64)
    )
      fail(400, 'Bad Request: invalid input field placeholder specified');
    return markup as Markup;
  }
  if (!Array.isArray(markup.inline_keyboard))
    return fail(400, "Bad Request: can't parse reply keyboard markup JSON object");
  const rows = markup.inline_keyboard as Button[][];
  if (rows.flat().length > 100 || rows.some((r) => r.length > 8)) fail(400, 'Bad Request: reply markup is too long');
  for (const b of rows.flat()) {
    if (typeof b.text !== 'string' || b.text === '')
      fail(400, 'Bad Request: text buttons are unallowed in the inline keyboard');
    if (b.url !== undefined) {
      // Bot API: a URL button has no callback_data; http(s) and tg:// links are accepted.
      if (b.callback_data !== undefined || !/^(https?|tg):\/\/[^\s]+$/.test(b.url))
        fail(400, 'Bad Request: inline keyboard button URL is invalid');
      continue;
    }
    const bytes = Buffer.byteLength(b.callback_data ?? '', 'utf8');
    if (bytes < 1 || bytes > 64) fail(400, 'Bad Request: BUTTON_DATA_INVALID');
  }
  return rows.flat().length === 0 ? undefined : { inline_keyboard: rows };
}

/** True when two markups are identical. */
export function sameMarkup(a: Markup | undefined, b: Markup | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Reads JSON, form or query-string parameters (form values holding JSON are parsed). */
export async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, any> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return raw ? (JSON.parse(raw) as Record<string, any>) : {};
  if (type.startsWith('multipart/')) return null;
  const form = new URLSearchParams(type.includes('x-www-form-urlencoded') ? raw : url.search);
  const params: Record<string, any> = {};
  for (const [k, v] of form) {
    try {
      params[k] = /^[[{]/.test(v) || v === 'true' || v === 'false' ? JSON.parse(v) : v;
    } catch {
      params[k] = v;
    }
  }
  return params;
}
