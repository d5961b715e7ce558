// The email channel: a question is one mail per recipient (text and HTML, links to the answer page
// when configured), reminders and the outcome follow in its thread, and replies come back by IMAP
// polling or `POST /email/inbound` (inbound.ts). Email cannot edit a sent mail: the outcome is posted.
import type {
  Channel,
  Clock,
  DeliveryRequest,
  InboundHttpRequest,
  InboundHttpResponse,
  InboundRoute,
  InboundSink,
  Logger,
} from '../../core/ports.js';
import { ChannelError } from '../../core/ports.js';
import type { OutcomeView } from '../../core/outcome-view.js';
import { choiceView, type PromptView } from '../../core/prompt-view.js';
import type { MessageRef } from '../../core/schemas.js';
import { tokenMatches } from '../../security/http.js';
import { mintAnswerToken } from '../../links/answer-token.js';
import { answerUrl } from '../../links/answer-link.js';
import { systemClock } from '../../system-clock.js';
import { describeError } from '../shared/errors.js';
import { EMAIL_CAPABILITIES } from './capabilities.js';
import { EmailInbound } from './inbound.js';
import { ImapPoller, parseImapUrl } from './imap.js';
import { freshPart, mailId, questionId } from './message-ids.js';
import { renderNote, renderPrompt, subjectOf, type PageLinks } from './render.js';
import { SmtpSender } from './smtp.js';
import { domainOf } from './read-mail.js';

/** The inbound route's path. */
export const INBOUND_PATH = '/email/inbound';
/** Largest raw message the inbound route takes. */
export const INBOUND_BODY_MAX = 1_048_576;
/** A plain address check: one @, no spaces or brackets (the SMTP server has the last word). */
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** Options of {@link EmailChannel}. */
export interface EmailChannelOptions {
  smtpUrl: string;
  /** ASKGATE_EMAIL_FROM: an address, or `Name <address>`. */
  from: string;
  imapUrl?: string;
  inboundToken?: string;
  trustedAuthserv?: string;
  /** ASKGATE_PUBLIC_URL and ASKGATE_LINK_SECRET: links to the answer page only when both are set. */
  publicUrl?: string;
  linkSecret?: string;
  logger: Logger;
  clock?: Clock;
  /** Time between looks at the mailbox without an IDLE notice (default 60 s; tests shorten it). */
  imapPollMs?: number;
}

/** What an email delivery's MessageRef keeps in `thread`: the subject (mails that follow reuse it) and the `users` mailed. */
interface ThreadInfo {
  s: string;
  /** The ask's locale (the mails' `lang`). */
  l?: string;
  u?: string[];
}

/** The email channel. */
export class EmailChannel implements Channel {
  readonly name = 'email';
  readonly capabilities = EMAIL_CAPABILITIES;
  private readonly smtp: SmtpSender;
  private readonly domain: string;
  private readonly clock: Clock;
  private inbound: EmailInbound | null = null;
  private poller: ImapPoller | null = null;

  constructor(private readonly options: EmailChannelOptions) {
    const address = /<([^>]+)>\s*$/.exec(options.from)?.[1] ?? options.from.trim();
    if (!ADDRESS.test(address)) throw new Error('ASKGATE_EMAIL_FROM must be an email address (or "Name <address>")');
    this.domain = domainOf(address);
    this.clock = options.clock ?? systemClock;
    this.smtp = new SmtpSender(options.smtpUrl, options.from);
  }

  /** Mails the question to each recipient (the target's `users`, else its `chat`); returns the first mail's id. */
  async deliver(request: DeliveryRequest): Promise<MessageRef> {
    const { askId, target, view } = request;
    const recipients = target.users ?? [target.chat];
    const bad = recipients.find((r) => !ADDRESS.test(r));
    if (bad !== undefined)
      throw new ChannelError('not an email address: the target needs addresses', true, undefined, { channel: 'email' });
    const users = target.users !== undefined;
    const failures: ChannelError[] = [];
    for (const [i, to] of recipients.entries()) {
      const rendered = renderPrompt(view, this.links(askId, to, request.expiresAt, view));
      try {
        await this.smtp.send({
          to,
          ...rendered,
          messageId: mailId({ askId, chat: target.chat, part: `d${i}`, users }, this.domain),
        });
      } catch (error) {
        // A transient failure is retried whole (a mail already sent keeps its Message-ID: clients show it once).
        if (!(error instanceof ChannelError) || !error.permanent) throw error;
        failures.push(error);
        this.options.logger.warn(
          { channel: 'email', askId, err: describeError(error) },
          'mail refused for a recipient',
        );
      }
    }
    if (failures.length === recipients.length) throw failures[0]!;
    const thread: ThreadInfo = { s: subjectOf(view), l: view.locale, ...(users ? { u: recipients } : {}) };
    return {
      chat: target.chat,
      messageId: questionId({ askId, chat: target.chat, users }, this.domain),
      thread: JSON.stringify(thread),
    };
  }

  /** Email cannot edit a sent mail: the outcome is a new mail in the thread (the outbox calls {@link post}). */
  async finalize(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<void> {
    await this.post(ref, outcome, view);
  }

  /** Mails the outcome ("Answered by …: …") in the question's thread. */
  post(ref: MessageRef, outcome: OutcomeView, view: PromptView): Promise<MessageRef> {
    return this.follow(ref, 'o', outcome.text, view.locale);
  }

  /** Mails a reminder in the question's thread, unless the ask ended meanwhile. */
  async remind(ref: MessageRef, text: string, stillWanted?: () => Promise<boolean>): Promise<MessageRef | null> {
    if (stillWanted && !(await stillWanted())) return null;
    return this.follow(ref, 'r', text, threadInfo(ref).l ?? 'en');
  }

  /** Nothing to re-render: a sent mail stays as sent (edits: false, so the outbox asks for no refresh). */
  async refresh(): Promise<void> {}

  /** Starts reading replies: the mailbox (when ASKGATE_EMAIL_IMAP_URL is set) and the raw route. */
  async start(sink: InboundSink): Promise<void> {
    this.inbound = new EmailInbound({
      sink,
      domain: this.domain,
      send: (mail) => this.smtp.send(mail),
      logger: this.options.logger,
      clock: this.clock,
      ...(this.options.trustedAuthserv ? { trustedAuthserv: this.options.trustedAuthserv } : {}),
    });
    if (this.options.imapUrl) {
      const inbound = this.inbound;
      this.poller = new ImapPoller(
        parseImapUrl(this.options.imapUrl),
        (raw) => inbound.handle(raw),
        this.options.logger,
        this.options.imapPollMs,
      );
      this.poller.start();
    }
    this.options.logger.info(
      { channel: 'email', imap: Boolean(this.options.imapUrl), route: Boolean(this.options.inboundToken) },
      'email channel started',
    );
    // Not fatal (mail is retried by the outbox), but said at startup: a wrong SMTP_URL shows at once.
    this.smtp
      .verify()
      .catch((error: unknown) =>
        this.options.logger.warn(
          { channel: 'email', err: describeError(error) },
          'SMTP server not usable (check SMTP_URL)',
        ),
      );
  }

  async stop(): Promise<void> {
    await this.poller?.stop();
    this.poller = null;
    this.inbound = null;
    this.smtp.close();
  }

  /** `POST /email/inbound` when ASKGATE_EMAIL_INBOUND_TOKEN is set. */
  routes(): InboundRoute[] {
    if (!this.options.inboundToken) return [];
    return [
      { method: 'POST', path: INBOUND_PATH, bodyLimit: INBOUND_BODY_MAX, handle: (request) => this.onInbound(request) },
    ];
  }

  /** A raw message from a mail provider: authenticated, handled (committed), then acknowledged with 202. */
  private async onInbound(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    const auth = request.headers.authorization;
    const presented = typeof auth === 'string' ? /^Bearer (\S+)$/i.exec(auth)?.[1] : undefined;
    if (!tokenMatches(presented, this.options.inboundToken!))
      return { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { error: 'unauthorized' } };
    const type = request.headers['content-type'];
    if (typeof type !== 'string' || !/^message\/rfc822\s*(;|$)/i.test(type))
      return {
        status: 415,
        body: { error: 'unsupported_media_type', message: 'send the raw message as message/rfc822' },
      };
    if (request.rawBody.length === 0) return { status: 400, body: { error: 'empty_message' } };
    const inbound = this.inbound;
    if (!inbound) return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'not_started' } };
    try {
      const result = await inbound.handle(request.rawBody);
      if (result === 'busy') return { status: 503, headers: { 'retry-after': '30' }, body: { error: 'busy' } };
      return { status: 202, body: { status: result === 'duplicate' ? 'duplicate' : 'accepted' } };
    } catch (error) {
      this.options.logger.warn({ channel: 'email', err: describeError(error) }, 'inbound mail not handled');
      return { status: 503, headers: { 'retry-after': '30' }, body: { error: 'not_handled' } };
    }
  }

  /** The answer page's links for one recipient, or null when links are not configured. */
  private links(askId: string, to: string, expiresAt: string | undefined, view: PromptView): PageLinks | null {
    const { publicUrl, linkSecret } = this.options;
    if (!publicUrl || !linkSecret || !expiresAt) return null;
    const recipient = { channel: 'email', userId: to.toLowerCase() };
    const token = mintAnswerToken({ askId, recipient, expiresAt: new Date(expiresAt) }, linkSecret);
    const page = answerUrl(publicUrl, token);
    const only = view.questions.length === 1 && !view.approval ? choiceView(view.questions[0]!) : null;
    const options = only && !only.multiSelect ? only.options.map((o) => answerUrl(publicUrl, token, o.number)) : [];
    return { page, options };
  }

  /** Mails `text` to the delivery's recipients as a follow-up in its thread; returns the first mail's id. */
  private async follow(ref: MessageRef, kind: 'o' | 'r', text: string, locale: string): Promise<MessageRef> {
    const info = threadInfo(ref);
    const users = info.u !== undefined;
    const root = questionId({ askId: askOf(ref), chat: ref.chat, users }, this.domain);
    // The outcome is mailed once per delivery: its Message-ID is fixed, so the mail a process sent
    // before dying unrecorded and the one its successor sends are one message to every mail client.
    const base = kind === 'o' ? 'o' : freshPart(kind);
    const idOf = (i: number) =>
      mailId({ askId: askOf(ref), chat: ref.chat, part: users ? `${base}n${i}` : base, users }, this.domain);
    const note = renderNote(info.s, text, locale);
    const recipients = info.u ?? [ref.chat];
    const failures: ChannelError[] = [];
    for (const [i, to] of recipients.entries()) {
      try {
        await this.smtp.send({ to, ...note, messageId: idOf(i), inReplyTo: root, references: [root] });
      } catch (error) {
        if (!(error instanceof ChannelError) || !error.permanent) throw error;
        failures.push(error);
      }
    }
    if (failures.length === recipients.length) throw failures[0]!;
    const messageId = idOf(0);
    return { chat: ref.chat, messageId, ...(ref.thread ? { thread: ref.thread } : {}) };
  }
}

/** The ask a delivery's MessageRef belongs to (its Message-ID names it). */
function askOf(ref: MessageRef): string {
  return ref.messageId.split('.')[1] ?? '';
}

/** What a delivery's MessageRef keeps (an older or foreign ref: no subject, no users). */
function threadInfo(ref: MessageRef): ThreadInfo {
  try {
    const info = JSON.parse(ref.thread ?? '') as Partial<ThreadInfo>;
    return {
      s: typeof info.s === 'string' ? info.s : 'askgate',
      ...(typeof info.l === 'string' ? { l: info.l } : {}),
      ...(Array.isArray(info.u) ? { u: info.u.map(String) } : {}),
    };
  } catch {
    return { s: 'askgate' };
  }
}
