/**
 * The signed answer link's token (issue 38): `/a/<token>` opens the answer page of one ask for one
 * recipient until an expiry no later than the ask's. The token is the payload (version, ask id,
 * recipient, expiry in unix seconds) as base64url JSON, a dot, and an HMAC-SHA256 of it with
 * `ASKGATE_LINK_SECRET` (base64url, 43 characters): a link cannot be forged, moved to another ask
 * or person, or used after it expires. Nothing about a link is stored: the token is the whole
 * state. The page's form carries an anti-forgery value derived from the token the same way.
 */
import { createHmac } from 'node:crypto';
import { tokenMatches } from '../security/http.js';

/**
 * Who a link is for: a channel and a person's id there (an email address for `email`), or
 * `anyone` (a link for whoever holds it, only for an ask that names no `users`).
 */
export type LinkRecipient = { channel: string; userId: string } | 'anyone';

/** What a valid token says. */
export interface AnswerLink {
  askId: string;
  recipient: LinkRecipient;
  /** When the link stops working (never later than the ask's deadline). */
  expiresAt: Date;
}

/** The version of the payload's shape. */
const VERSION = 1;
/** Tokens longer than this are refused before any work (a link is ~150–250 characters). */
export const MAX_TOKEN_LENGTH = 1024;
const B64URL = /^[A-Za-z0-9_-]+$/;

const mac = (secret: string, purpose: string, payload: string) =>
  createHmac('sha256', secret).update(`askgate-${purpose}:${payload}`).digest('base64url');

/** Mints the token of `link` with `secret` (at least 32 characters; the config checks it). */
export function mintAnswerToken(link: AnswerLink, secret: string): string {
  const recipient = link.recipient === 'anyone' ? '*' : `${link.recipient.channel}:${link.recipient.userId}`;
  const exp = Math.floor(link.expiresAt.getTime() / 1000);
  const payload = Buffer.from(JSON.stringify([VERSION, link.askId, recipient, exp]), 'utf8').toString('base64url');
  return `${payload}.${mac(secret, 'link', payload)}`;
}

/**
 * Reads a token: its link when the signature is `secret`'s and it has not expired at `now`, else
 * null (forged, altered, malformed, expired: the caller tells them apart only as "not valid").
 */
export function readAnswerToken(token: string, secret: string, now: Date): AnswerLink | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  const payload = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  if (!B64URL.test(payload) || !B64URL.test(signature)) return null;
  if (!tokenMatches(signature, mac(secret, 'link', payload))) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || fields.length !== 4) return null;
  const [version, askId, recipient, exp] = fields as unknown[];
  if (version !== VERSION || typeof askId !== 'string' || typeof recipient !== 'string') return null;
  if (typeof exp !== 'number' || !Number.isInteger(exp) || exp * 1000 <= now.getTime()) return null;
  const colon = recipient.indexOf(':');
  if (recipient !== '*' && colon <= 0) return null;
  return {
    askId,
    recipient:
      recipient === '*' ? 'anyone' : { channel: recipient.slice(0, colon), userId: recipient.slice(colon + 1) },
    expiresAt: new Date(exp * 1000),
  };
}

/** The page form's anti-forgery value for `token`: only someone who holds the token (and loaded the page) has it. */
export function formGuard(token: string, secret: string): string {
  return mac(secret, 'link-form', token);
}

/** Whether `presented` is the anti-forgery value of `token` (constant time). */
export function formGuardMatches(token: string, presented: string | undefined, secret: string): boolean {
  return presented !== undefined && tokenMatches(presented, formGuard(token, secret));
}
