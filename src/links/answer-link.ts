/**
 * Minting answer links (issue 38): the URL of an ask's answer page for one recipient, signed with
 * `ASKGATE_LINK_SECRET` (answer-token.ts), expiring with the ask. The shell's one place that turns
 * a record and a recipient into `${ASKGATE_PUBLIC_URL}/a/<token>`; the API route, the email channel
 * and chat messages' "Open" buttons use it.
 */
import { AskgateError } from '../core/errors.js';
import { deadlineOf, isTerminal, mayAnswer, namesUsers, LINK_CHANNEL } from '../core/record-state.js';
import type { AskRecord, Responder, Target } from '../core/schemas.js';
import { mintAnswerToken, type LinkRecipient } from './answer-token.js';

/** What minting needs: the public base URL (no trailing slash) and the HMAC key, both from config. */
export interface LinkSettings {
  publicUrl: string;
  secret: string;
}

/** A minted link: the page's URL and when it stops working. */
export interface MintedLink {
  url: string;
  expiresAt: string;
}

/**
 * The page's URL for `token`: `${publicUrl}/a/${token}`, and with `option` (1-based, a single
 * choice question's option) `?option=<n>`, which opens the page with that option selected (a GET:
 * nothing is recorded until the person confirms).
 */
export function answerUrl(publicUrl: string, token: string, option?: number): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/a/${token}`;
  return option === undefined ? base : `${base}?option=${option}`;
}

/** Who answers through a link to `recipient`: the person, or channel `link` for a link anyone may use. */
export function linkResponder(recipient: LinkRecipient): Responder {
  return recipient === 'anyone' ? { channel: LINK_CHANNEL, userId: LINK_CHANNEL } : { ...recipient };
}

/**
 * Whether `recipient` may answer `record` now: the ask's own check ({@link mayAnswer}), and for a
 * link anyone may use, an ask that names no `users` (users never change after creation).
 */
export function recipientMayAnswer(record: AskRecord, recipient: LinkRecipient): boolean {
  if (recipient === 'anyone') return !namesUsers(record);
  return mayAnswer(record, linkResponder(recipient));
}

/**
 * The link of `record` for `recipient`, expiring with the ask (the token's expiry is in whole
 * seconds, rounded down: never later than the ask's deadline). Refused (409) when the ask ended,
 * when a link for anyone is asked for an ask that names `users`, or when the recipient may not answer.
 */
export function mintLink(
  settings: LinkSettings,
  record: AskRecord,
  recipient: LinkRecipient,
  now: number,
  option?: number,
): MintedLink {
  const deadline = deadlineOf(record);
  if (isTerminal(record) || deadline <= now) {
    throw new AskgateError('already_resolved', `ask ${record.id} has ended: its page shows the outcome`);
  }
  if (recipient === 'anyone' && namesUsers(record)) {
    throw new AskgateError(
      'link_needs_recipient',
      `ask ${record.id} names who may answer (users): ask for a link to one of them with "to"`,
    );
  }
  if (!recipientMayAnswer(record, recipient)) {
    throw new AskgateError('forbidden', `that person may not answer ask ${record.id}`);
  }
  const expiresAt = new Date(Math.floor(deadline / 1000) * 1000);
  const token = mintAnswerToken({ askId: record.id, recipient, expiresAt }, settings.secret);
  return { url: answerUrl(settings.publicUrl, token, option), expiresAt: expiresAt.toISOString() };
}

/**
 * The link a chat message carries to the answer page ("Open"), for the delivery's target. A shared
 * message shows its link to everyone in the conversation, so it is only ever a link they could use
 * anyway: a target naming no users links for the conversation itself (`userId`: its chat; everyone
 * there may answer), a target naming one user only when the conversation is that person's own (its
 * chat is their id: a Telegram private chat, an email address); any other target gets none (a
 * group message would hand one person's link to the whole group). Undefined as well when the ask
 * cannot take it (ended, the recipient may not answer).
 */
export function deliveryLink(
  settings: LinkSettings,
  now: () => number,
): (record: AskRecord, target: Target) => string | undefined {
  return (record, target) => {
    const users = target.users ?? [];
    if (users.length > 1 || (users.length === 1 && users[0] !== target.chat)) return undefined;
    try {
      return mintLink(settings, record, { channel: target.channel, userId: target.chat }, now()).url;
    } catch {
      return undefined;
    }
  };
}
