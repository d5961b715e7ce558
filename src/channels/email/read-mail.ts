// A raw RFC 822 message read with mailparser: who sent it, what it answers, the new text, whether
// a machine sent it, and whether a trusted server authenticated its sender's domain.
import { simpleParser, type AddressObject } from 'mailparser';
import { createHash } from 'node:crypto';
import { bare } from './message-ids.js';
import { stripQuoted } from './quote-strip.js';

/** An inbound mail as the email channel reads it. */
export interface ReadMail {
  /** The Message-ID without brackets; a hash of the message when it has none. */
  id: string;
  /** The sender's address, lower-cased; null when there is none. */
  from: string | null;
  name?: string;
  subject: string;
  inReplyTo?: string;
  references: string[];
  /** What the person wrote: quoted text, signature and trailer removed. */
  text: string;
  /** Sent by a machine: an auto-reply, a bounce, a list: never an answer, never replied to. */
  automatic: boolean;
  /** The Authentication-Results header lines, topmost first, unfolded. */
  authResults: string[];
}

/** Longest text read from a mail (a reply is a few lines; the rest is quoted history). */
const TEXT_MAX = 20_000;

const firstAddress = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value[0];
const unfold = (line: string) => line.replace(/\r?\n[ \t]+/g, ' ');
const headerValue = (line: string) => unfold(line.slice(line.indexOf(':') + 1)).trim();

/** True for mails no person wrote (RFC 3834 Auto-Submitted, common auto-responder headers, bounces). */
function isAutomatic(headers: ReadonlyMap<string, unknown>, from: string | null, contentType: string): boolean {
  const auto = String(headers.get('auto-submitted') ?? 'no').toLowerCase();
  const precedence = String(headers.get('precedence') ?? '').toLowerCase();
  return (
    auto.split(';')[0]!.trim() !== 'no' ||
    headers.has('x-autoreply') ||
    headers.has('x-autorespond') ||
    ['bulk', 'junk', 'list', 'auto_reply'].includes(precedence) ||
    /^multipart\/report/i.test(contentType) ||
    (from !== null && /^(mailer-daemon|postmaster)@/i.test(from))
  );
}

/** Reads `raw` (an RFC 822 message). */
export async function readMail(raw: Buffer): Promise<ReadMail> {
  const mail = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipTextLinks: true });
  const sender = firstAddress(mail.from);
  const from = sender?.address ? sender.address.trim().toLowerCase() : null;
  const refs =
    mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : [mail.references];
  const contentType = mail.headerLines.find((h) => h.key === 'content-type');
  const text = (mail.text ?? '').slice(0, TEXT_MAX);
  return {
    id: mail.messageId ? bare(mail.messageId) : `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    from,
    ...(sender?.name ? { name: sender.name } : {}),
    subject: (mail.subject ?? '').replace(/\s+/g, ' ').trim().slice(0, 200),
    ...(mail.inReplyTo ? { inReplyTo: bare(mail.inReplyTo.split(/\s+/)[0]!) } : {}),
    references: refs
      .flatMap((r) => r.split(/\s+/))
      .filter(Boolean)
      .map(bare),
    text: stripQuoted(text),
    automatic: isAutomatic(mail.headers, from, contentType ? headerValue(contentType.line) : ''),
    authResults: mail.headerLines.filter((h) => h.key === 'authentication-results').map((h) => headerValue(h.line)),
  };
}

/** The domain of an address, lower-cased. */
export const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** `key=value` of one Authentication-Results method clause ("dkim=pass header.d=example.com"). */
function clauseValue(clause: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${key.replace('.', '\\.')}=("?)([^\\s";]+)\\1`, 'i').exec(clause);
  return m?.[2]?.toLowerCase();
}

/**
 * Whether the topmost Authentication-Results header of `authserv` (the receiving server askgate
 * trusts, which removes such headers arriving from outside: RFC 8601 §5) says the From domain
 * passed DMARC, or DKIM with a signature of that domain, or SPF for an envelope sender of it.
 */
export function authenticated(mail: Pick<ReadMail, 'from' | 'authResults'>, authserv: string): boolean {
  if (!mail.from) return false;
  const domain = domainOf(mail.from);
  const header = mail.authResults.find(
    (h) =>
      h
        .replace(/\([^)]*\)/g, '')
        .trim()
        .split(/[\s;]/)[0]!
        .toLowerCase() === authserv.toLowerCase(),
  );
  if (!header) return false;
  const clauses = header
    .replace(/\([^)]*\)/g, ' ')
    .split(';')
    .slice(1)
    .map((c) => c.trim());
  const sameDomain = (value: string | undefined) => value !== undefined && domainOf(value) === domain;
  return clauses.some((c) => {
    const method = /^(\w+)\s*=\s*(\w+)/.exec(c);
    if (!method || method[2]!.toLowerCase() !== 'pass') return false;
    switch (method[1]!.toLowerCase()) {
      case 'dmarc':
        return clauseValue(c, 'header.from') === undefined || sameDomain(clauseValue(c, 'header.from'));
      case 'dkim':
        return sameDomain(clauseValue(c, 'header.d') ?? clauseValue(c, 'header.i'));
      case 'spf':
        return sameDomain(clauseValue(c, 'smtp.mailfrom'));
      default:
        return false;
    }
  });
}
