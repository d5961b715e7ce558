// Sending through any SMTP server with nodemailer: one pooled transport from SMTP_URL, bounded
// timeouts, and the SMTP reply codes mapped to askgate's retry rules (4xx: try again later; 5xx:
// the delivery failed).
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { ChannelError } from '../../core/ports.js';
import { describeError } from '../shared/errors.js';

/** One mail as askgate sends it. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Without angle brackets. */
  messageId: string;
  inReplyTo?: string;
  references?: readonly string[];
  /** Headers of mails that are askgate's own notices (no auto-replies to them). */
  auto?: boolean;
}

/** How long the server may take to accept the connection, greet, and answer each command. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** SMTP error fields nodemailer sets. */
type SmtpError = Error & { responseCode?: number; code?: string; response?: string };

/** A nodemailer error as a {@link ChannelError}: 5xx and malformed messages permanent, everything else retried. */
export function smtpError(error: unknown, method: string): ChannelError {
  const e = error as SmtpError;
  const code = typeof e?.responseCode === 'number' ? e.responseCode : undefined;
  const message = `SMTP ${method} failed: ${describeError(error)}`;
  const context = { channel: 'email', method, cause: error };
  if (code !== undefined && code >= 500) return new ChannelError(message, true, undefined, context);
  // 4xx (and no reply code): retried on the outbox's backoff (SMTP gives no retry-after hint).
  // No reply code: a message nodemailer could not build or address is permanent; the network is not.
  const permanent = e?.code === 'EMESSAGE' || (e?.code === 'EENVELOPE' && code === undefined);
  return new ChannelError(message, permanent, undefined, context);
}

/** The SMTP side of the email channel. */
export class SmtpSender {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: 5, ...SMTP_TIMEOUTS });
  }

  /** Sends one mail; throws {@link ChannelError}. */
  async send(mail: OutgoingMail): Promise<void> {
    const angle = (id: string) => `<${id}>`;
    try {
      await this.transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: angle(mail.messageId),
        ...(mail.inReplyTo ? { inReplyTo: angle(mail.inReplyTo) } : {}),
        ...(mail.references && mail.references.length > 0 ? { references: mail.references.map(angle) } : {}),
        headers: { 'Auto-Submitted': 'auto-generated', ...(mail.auto ? { 'X-Auto-Response-Suppress': 'All' } : {}) },
      });
    } catch (error) {
      throw smtpError(error, 'sendMail');
    }
  }

  /** Checks the server answers and takes the credentials; throws {@link ChannelError}. */
  async verify(): Promise<void> {
    try {
      await this.transport.verify();
    } catch (error) {
      throw smtpError(error, 'verify');
    }
  }

  /** Closes the pool. */
  close(): void {
    this.transport.close();
  }
}
