// askgate's Message-IDs: each names its ask and conversation, so a reply's In-Reply-To/References
// find the ask again (the delivery's id is the message binding core looks up: app/inbound-find.ts).
import { randomBytes } from 'node:crypto';

/** What an askgate Message-ID carries: the ask, the conversation (the target's `chat`) and what was sent. */
export interface MailId {
  askId: string;
  chat: string;
  /** `d<n>`: the question to recipient n; `r…`: a reminder; `o…`: the outcome; `f…`: a reply to a person. */
  part: string;
  /** The target names `users` (the ones who may answer, checked by core); else only `chat` may. */
  users: boolean;
}

const ASK_ID = /^[A-Za-z0-9]{1,64}$/;
const PART = /^[a-z][A-Za-z0-9]{0,24}$/;
const B64URL = /^[A-Za-z0-9_-]{1,256}$/;

/** `<…>` removed, white space trimmed. */
export const bare = (id: string) => id.trim().replace(/^<|>$/g, '');

/** The Message-ID (without angle brackets) of `id` at `domain`. */
export function mailId(id: MailId, domain: string): string {
  const chat = Buffer.from(id.chat, 'utf8').toString('base64url');
  return `ask.${id.askId}.${id.part}.${chat}${id.users ? '.u' : ''}@${domain}`;
}

/** A fresh part of kind `kind` (`r`, `f`): unique per mail, so two reminders never share an id (an outcome's part is the fixed `o`: one per delivery). */
export const freshPart = (kind: 'r' | 'o' | 'f') => `${kind}${randomBytes(6).toString('hex')}`;

/** The delivery's Message-ID of an ask in a conversation (to its first recipient): the id its message binding holds. */
export const questionId = (id: Omit<MailId, 'part'>, domain: string) => mailId({ ...id, part: 'd0' }, domain);

/** Reads an askgate Message-ID made at `domain` (case-insensitive), or null for anyone else's. */
export function readMailId(raw: string, domain: string): MailId | null {
  const id = bare(raw);
  const at = id.lastIndexOf('@');
  if (at < 0 || id.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const parts = id.slice(0, at).split('.');
  const users = parts.length === 5 && parts[4] === 'u';
  if ((parts.length !== 4 && !users) || parts[0] !== 'ask') return null;
  const [, askId, part, chat] = parts as [string, string, string, string];
  if (!ASK_ID.test(askId) || !PART.test(part) || !B64URL.test(chat)) return null;
  const decoded = Buffer.from(chat, 'base64url').toString('utf8');
  return decoded ? { askId, chat: decoded, part, users } : null;
}

/**
 * The ask a reply belongs to: In-Reply-To first, then References from the newest, the first
 * askgate id of `domain` among them.
 */
export function threadOf(inReplyTo: string | undefined, references: readonly string[], domain: string): MailId | null {
  for (const raw of [...(inReplyTo ? [inReplyTo] : []), ...[...references].reverse()]) {
    const id = readMailId(raw, domain);
    if (id) return id;
  }
  return null;
}
