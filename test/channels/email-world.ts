// The email channel's test world: askgate started from its environment (SMTP_URL and the rest, so
// the descriptor is what builds the channel) against a real SMTP server and redis-server, and
// replies composed by nodemailer's MailComposer as mail clients send them.
import MailComposer from 'nodemailer/lib/mail-composer';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startAskgate, type RunningAskgate } from '../../src/main.js';
import { testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startSmtp, type CapturedMail, type TestSmtp } from '../helpers/smtp-server.js';

export const FROM = 'ask@askgate.test';
export const INBOUND_TOKEN = 'inbound-token-0123456789';
export const LINK_SECRET = 'link-secret-0123456789-0123456789-abcdef';
export const PUBLIC_URL = 'https://askgate.example';

/** A running askgate with the email channel, its SMTP server and redis-server. */
export interface EmailWorld {
  app: RunningAskgate;
  smtp: TestSmtp;
  redis: TestRedis;
  api: ReturnType<typeof client>;
  /** Stops askgate (as a crash would, between two looks at the mailbox); {@link start} starts it again on the same Redis. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the world; `env` adds or removes settings (undefined removes). */
export async function startEmailWorld(env: Record<string, string | undefined> = {}): Promise<EmailWorld> {
  const redis = await startRedis();
  const smtp = await startSmtp();
  const config = loadConfig(
    testEnv({
      REDIS_URL: redis.url,
      SMTP_URL: smtp.url,
      ASKGATE_EMAIL_FROM: `askgate <${FROM}>`,
      ASKGATE_EMAIL_INBOUND_TOKEN: INBOUND_TOKEN,
      ASKGATE_PUBLIC_URL: PUBLIC_URL,
      ASKGATE_LINK_SECRET: LINK_SECRET,
      ...env,
    }),
  );
  const app = await startAskgate(config);
  const world: EmailWorld = {
    app,
    smtp,
    redis,
    api: client(app.url),
    async stop() {
      await world.app.close();
    },
    async start() {
      world.app = await startAskgate(config);
      world.api = client(world.app.url);
    },
    async close() {
      await world.app.close();
      await smtp.close();
      await redis.dispose();
    },
  };
  return world;
}

/** The question mail's Message-ID with its brackets. */
export const idOf = (m: CapturedMail) => m.mail.messageId!;

/** A reply to `to` (a captured mail) as a mail client composes it. */
export async function composeReply(
  to: CapturedMail,
  text: string,
  options: {
    from?: string;
    messageId?: string;
    headers?: Record<string, string>;
    html?: string;
    references?: string[];
  } = {},
): Promise<Buffer> {
  const id = idOf(to);
  const references = options.references ?? [...(to.mail.references ? [to.mail.references].flat() : []), id];
  return new MailComposer({
    from: options.from ?? 'Alice Example <alice@example.com>',
    to: FROM,
    subject: `Re: ${to.mail.subject ?? ''}`,
    messageId: options.messageId ?? `<${Math.random().toString(36).slice(2)}@mail.example.com>`,
    inReplyTo: id,
    references,
    text,
    ...(options.html ? { html: options.html } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  })
    .compile()
    .build();
}

/** Gmail's quote of a mail under the reply `answer`. */
export function gmailQuote(answer: string, original: CapturedMail): string {
  const quoted = (original.mail.text ?? '')
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
  return `${answer}\n\nOn Mon, Dec 7, 2026 at 6:00 PM askgate <${FROM}> wrote:\n\n${quoted}\n`;
}

/** Outlook's quote of a mail under the reply `answer`. */
export function outlookQuote(answer: string, original: CapturedMail): string {
  return `${answer}\r\n\r\n________________________________\r\nFrom: askgate <${FROM}>\r\nSent: Monday, December 7, 2026 6:00 PM\r\nTo: Alice Example <alice@example.com>\r\nSubject: ${original.mail.subject}\r\n\r\n${original.mail.text}`;
}

/** Posts a raw message to `POST /email/inbound`. */
export async function postRaw(
  world: EmailWorld,
  raw: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${world.app.url}/email/inbound`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INBOUND_TOKEN}`, 'content-type': 'message/rfc822', ...headers },
    body: new Uint8Array(raw),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

/** Creates an ask for email and waits until it was sent; `to` adds to or replaces the target. */
export async function askByMail(
  world: EmailWorld,
  body: Record<string, unknown>,
  to: Record<string, unknown> = { chat: 'alice@example.com' },
): Promise<{ id: string; record: any }> {
  const res = await world.api.post('/v1/asks', {
    runId: `run-${Math.random().toString(36).slice(2)}`,
    ...body,
    to: { channel: 'email', ...to },
  });
  expect(res.status).toBe(201);
  const record = await eventually(async () => {
    const r = await world.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status !== 'pending' && r.body;
  });
  return { id: res.body.id, record };
}
