// A real SMTP server in the test process (the smtp-server package): captures every message askgate
// sends, and refuses recipients with a chosen SMTP reply (550: permanent, 451: transient).
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { until } from './wait.js';

/** One captured message: its envelope, raw bytes and parsed form. */
export interface CapturedMail {
  from: string;
  to: string[];
  raw: Buffer;
  mail: ParsedMail;
}

/** A running SMTP server on a free loopback port. */
export interface TestSmtp {
  url: string;
  readonly mails: CapturedMail[];
  /** Refuses RCPT TO `address` with `code` the next `times` times (default: always). */
  refuse(address: string, code: number, times?: number): void;
  /** The first captured mail to `to` matching `match` (waits for it). */
  mailTo(to: string, match?: (m: CapturedMail) => boolean): Promise<CapturedMail>;
  /** The mails captured to `to`. */
  to(to: string): CapturedMail[];
  close(): Promise<void>;
}

/** Starts an SMTP server on 127.0.0.1 (no TLS, no auth) that captures what it receives. */
export async function startSmtp(): Promise<TestSmtp> {
  const mails: CapturedMail[] = [];
  const refusals = new Map<string, { code: number; times: number }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = refusals.get(address.address.toLowerCase());
      if (refusal && refusal.times > 0) {
        refusal.times -= 1;
        const error = Object.assign(new Error(`${refusal.code === 550 ? 'No such user' : 'Try again later'}`), {
          responseCode: refusal.code,
        });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            mails.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              raw,
              mail,
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  const to = (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    refuse: (address, code, times = Infinity) => void refusals.set(address.toLowerCase(), { code, times }),
    to,
    mailTo: (address, match = () => true) => until(() => to(address).find(match), 10_000),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
