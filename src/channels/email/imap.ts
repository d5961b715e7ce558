// Reading replies from a mailbox with imapflow: every unseen message is handed to the channel, and
// marked \Seen only after it was handled (committed), so a crash reads it again (its Message-ID is
// de-duplicated). New mail wakes the loop through IDLE where the server has it; else it polls.
import { ImapFlow } from 'imapflow';
import type { Logger } from '../../core/ports.js';
import { describeError } from '../shared/errors.js';
import type { InboundResult } from './inbound.js';

/** Default time between looks at the mailbox when no IDLE notice arrives. */
export const DEFAULT_POLL_MS = 60_000;
/** Wait before reconnecting after the connection failed, doubling up to {@link RECONNECT_MAX_MS} while it keeps failing. */
const RECONNECT_MS = 5_000;
const RECONNECT_MAX_MS = 5 * 60_000;
/** Most messages handled per look (the rest on the next). */
const BATCH_MAX = 100;

/** Where ASKGATE_EMAIL_IMAP_URL points: `imaps://user:password@host[:port]/Mailbox` (or `imap://`, plain then STARTTLS if offered). */
export interface ImapTarget {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  pass: string;
  mailbox: string;
}

/** Parses an IMAP URL; throws a message naming what is wrong (never the password). */
export function parseImapUrl(value: string): ImapTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('must be an imap:// or imaps:// URL');
  }
  if (url.protocol !== 'imap:' && url.protocol !== 'imaps:') throw new Error('must be an imap:// or imaps:// URL');
  if (!url.username || !url.password)
    throw new Error('must hold the user and password (imaps://user:password@host/INBOX)');
  const secure = url.protocol === 'imaps:';
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 993 : 143,
    secure,
    user: decodeURIComponent(url.username),
    pass: decodeURIComponent(url.password),
    mailbox: decodeURIComponent(url.pathname.replace(/^\/+/, '')) || 'INBOX',
  };
}

/** Polls one mailbox until stopped. */
export class ImapPoller {
  private stopped = false;
  private client: ImapFlow | null = null;
  private wake: (() => void) | null = null;
  /** Set by a notice that came while the loop was busy: the next pause ends at once. */
  private noticed = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly target: ImapTarget,
    private readonly handle: (raw: Buffer) => Promise<InboundResult>,
    private readonly logger: Logger,
    private readonly pollMs = DEFAULT_POLL_MS,
  ) {}

  /** Starts the loop in the background. */
  start(): void {
    this.running ??= this.loop();
  }

  /** Stops the loop and logs out. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.client?.logout().catch(() => {});
    await this.running;
  }

  private async loop(): Promise<void> {
    let backoff = RECONNECT_MS;
    while (!this.stopped) {
      const client = new ImapFlow({
        host: this.target.host,
        port: this.target.port,
        secure: this.target.secure,
        auth: { user: this.target.user, pass: this.target.pass },
        logger: false,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 5 * 60_000,
        // IDLE a second after the last command: new mail wakes the loop at once (imapflow's default waits 15 s).
        autoIdleDelay: 1_000,
      });
      client.on('error', (error: unknown) =>
        this.logger.warn({ channel: 'email', err: describeError(error) }, 'imap connection error'),
      );
      client.on('exists', () => this.notice());
      // A message marked unseen again (by a person, or a client undoing a read) is read again at once.
      client.on('flags', () => this.notice());
      this.client = client;
      try {
        await client.connect();
        await client.mailboxOpen(this.target.mailbox);
        this.logger.info({ channel: 'email', mailbox: this.target.mailbox }, 'imap mailbox opened');
        backoff = RECONNECT_MS;
        while (!this.stopped && client.usable) {
          await this.drain(client);
          await this.pause(this.pollMs);
        }
      } catch (error) {
        if (!this.stopped)
          this.logger.warn({ channel: 'email', err: describeError(error) }, 'imap polling failed; reconnecting');
      } finally {
        await client.logout().catch(() => {});
        this.client = null;
      }
      if (!this.stopped) await this.pause(backoff);
      backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
    }
  }

  /** Handles every unseen message, marking each \Seen once handled; a failure leaves it unseen for the next look. */
  private async drain(client: ImapFlow): Promise<void> {
    const uids = (await client.search({ seen: false }, { uid: true })) || [];
    for (const uid of uids.slice(0, BATCH_MAX)) {
      if (this.stopped) return;
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
      if (!message || !message.source) continue;
      let result: InboundResult;
      try {
        result = await this.handle(message.source);
      } catch (error) {
        this.logger.warn({ channel: 'email', uid, err: describeError(error) }, 'mail not handled; read again later');
        continue;
      }
      if (result !== 'busy') await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
  }

  /** New mail or changed flags: look again (now, or as soon as the current look ends). */
  private notice(): void {
    this.noticed = true;
    this.wake?.();
  }

  /** Waits `ms`, or until new mail arrives or the poller stops. */
  private pause(ms: number): Promise<void> {
    if (this.noticed || this.stopped) {
      this.noticed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        this.noticed = false;
        resolve();
      };
      timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
