// An inbound mail turned into a reply for the core (InboundSink.text), and what the person is told
// back as a mail in the thread. Every path that may send a mail is gated by the message's claim, so
// a re-read (IMAP after a crash) or a re-post (the raw route) answers once and tells once.
import type { Clock, InboundOutcome, InboundSink, Logger, TextReceived } from '../../core/ports.js';
import { outcomeNotice } from '../../core/notices.js';
import { settleOrShow, takeEvent } from '../shared/take-event.js';
import { describeError } from '../shared/errors.js';
import { responderOf } from '../shared/responder.js';
import { authenticated, readMail, type ReadMail } from './read-mail.js';
import { freshPart, mailId, questionId, threadOf, type MailId } from './message-ids.js';
import { renderNote } from './render.js';
import type { OutgoingMail } from './smtp.js';
import { ReplyLimiter } from './reply-limit.js';

/** What handling one inbound mail came to. */
export type InboundResult = 'handled' | 'duplicate' | 'busy';

/** What the inbound side of the email channel needs. */
export interface EmailInboundDeps {
  sink: InboundSink;
  /** The domain of ASKGATE_EMAIL_FROM: askgate's Message-IDs end with it. */
  domain: string;
  send(mail: OutgoingMail): Promise<void>;
  logger: Logger;
  clock: Clock;
  /** ASKGATE_EMAIL_TRUSTED_AUTHSERV: when set, a reply counts only when this server authenticated its sender. */
  trustedAuthserv?: string;
}

/** How long one attempt holds a mail (parsing and one commit), and how long its id is remembered. */
export const MAIL_TTL = { leaseMs: 30_000, keepMs: 14 * 86_400_000 };

/** Turns inbound mails into replies for the core and mails the person what came of them. */
export class EmailInbound {
  private readonly limiter: ReplyLimiter;

  constructor(private readonly deps: EmailInboundDeps) {
    this.limiter = new ReplyLimiter(() => deps.clock.now());
  }

  /** Handles one raw message; throws when it could not be handled (the caller leaves it to be read again). */
  async handle(raw: Buffer): Promise<InboundResult> {
    const { sink, logger, clock } = this.deps;
    const mail = await readMail(raw);
    // Mail that answers nothing of askgate's costs no claim: a shared mailbox's other mail writes nothing.
    if (!threadOf(mail.inReplyTo, mail.references, this.deps.domain)) return 'handled';
    const gate = await takeEvent(sink.seen, 'email', mail.id, MAIL_TTL, clock);
    if (gate === 'done') return 'duplicate';
    if (gate === 'busy') return 'busy';
    const thread = this.accepted(mail);
    if (!thread || !mail.from) {
      await gate.settle();
      return 'handled';
    }
    const event: TextReceived = {
      channel: 'email',
      chat: thread.chat,
      replyTo: questionId(thread, this.deps.domain),
      privateChat: false,
      user: responderOf('email', { id: mail.from, name: mail.name }),
      text: mail.text,
    };
    const outcome = await sink.text(event);
    const shown = await settleOrShow(gate, (error) =>
      logger.warn({ channel: 'email', err: describeError(error) }, 'mail could not be marked handled; replying anyway'),
    );
    if (!shown) return 'duplicate';
    // A retried mail whose first attempt recorded it (and died before replying): stay silent.
    if (gate.retried && outcome.kind === 'already_resolved') return 'handled';
    await this.tell(mail, thread, outcome);
    return 'handled';
  }

  /** The thread a mail answers, when it is a person's reply askgate may read; null (logged) otherwise. */
  private accepted(mail: ReadMail): MailId | null {
    const { logger, domain, trustedAuthserv } = this.deps;
    const thread = threadOf(mail.inReplyTo, mail.references, domain);
    if (!thread) return null; // not a reply to askgate: nothing to do
    const log = { channel: 'email', askId: thread.askId };
    if (mail.automatic || !mail.from) {
      logger.info(log, 'automatic mail ignored (auto-reply, bounce or list)');
      return null;
    }
    // Without `users`, the conversation is the one address the question went to; with them, core checks the list.
    if (!thread.users && mail.from !== thread.chat.toLowerCase()) {
      logger.warn(log, 'reply from an address the question was not sent to: ignored');
      return null;
    }
    if (trustedAuthserv && !authenticated(mail, trustedAuthserv)) {
      logger.warn(
        log,
        `reply not authenticated by ${trustedAuthserv} (DMARC, DKIM or SPF of the From domain): ignored`,
      );
      return null;
    }
    return thread;
  }

  /** Mails the person what came of their reply, in the thread; nothing for a recorded answer (the outcome mail follows) or a refusal. */
  private async tell(mail: ReadMail, thread: MailId, outcome: InboundOutcome): Promise<void> {
    if (outcome.kind === 'recorded' || outcome.kind === 'ignored' || outcome.kind === 'forbidden') return;
    const text = outcomeNotice(outcome);
    if (text) await this.reply(mail, thread, text, outcome.locale ?? 'en');
  }

  /** Sends `text` to the mail's sender as a reply in its thread, within the per-address limit; failures are logged. */
  private async reply(mail: ReadMail, thread: MailId, text: string, locale: string): Promise<void> {
    if (!mail.from || !this.limiter.take(mail.from)) return;
    const note = renderNote(mail.subject || 'askgate', text, locale);
    try {
      await this.deps.send({
        to: mail.from,
        ...note,
        messageId: mailId({ ...thread, part: freshPart('f') }, this.deps.domain),
        inReplyTo: mail.id,
        references: [...mail.references, mail.id].slice(-20),
      });
    } catch (error) {
      this.deps.logger.warn(
        { channel: 'email', askId: thread.askId, err: describeError(error) },
        'reply mail not sent',
      );
    }
  }
}
