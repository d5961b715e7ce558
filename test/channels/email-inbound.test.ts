import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import MailComposer from 'nodemailer/lib/mail-composer';
import { EmailInbound } from '../../src/channels/email/inbound.js';
import { SmtpSender } from '../../src/channels/email/smtp.js';
import { mailId } from '../../src/channels/email/message-ids.js';
import { createLogger } from '../../src/logger.js';
import { systemClock } from '../../src/system-clock.js';
import { RecordingSink } from '../contracts/channel.contract.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp-server.js';
import { sleep } from '../helpers/wait.js';

const DOMAIN = 'askgate.test';
let smtp: TestSmtp;
let sender: SmtpSender;
beforeAll(async () => {
  smtp = await startSmtp();
  sender = new SmtpSender(smtp.url, `askgate <ask@${DOMAIN}>`);
});
afterAll(async () => {
  sender?.close();
  await smtp?.close();
});

const question = (chat: string, users = false) => `<${mailId({ askId: 'Ask1', chat, part: 'd0', users }, DOMAIN)}>`;
const reply = (from: string, inReplyTo: string, headers: Record<string, string> = {}) =>
  new MailComposer({
    from,
    to: `ask@${DOMAIN}`,
    subject: 'Re: Where?',
    inReplyTo,
    references: [inReplyTo],
    text: '2',
    headers,
  })
    .compile()
    .build();
const inbound = (sink: RecordingSink, trustedAuthserv?: string) =>
  new EmailInbound({
    sink,
    domain: DOMAIN,
    send: (mail) => sender.send(mail),
    logger: createLogger('silent'),
    clock: systemClock,
    ...(trustedAuthserv ? { trustedAuthserv } : {}),
  });

describe('the email channel’s inbound side (a recording sink, a real SMTP server for its replies)', () => {
  it('hands a reply to the sink as the addressed person, bound to the question’s Message-ID', async () => {
    const sink = new RecordingSink();
    expect(await inbound(sink).handle(await reply('Alice <ALICE@example.com>', question('alice@example.com')))).toBe(
      'handled',
    );
    expect(sink.texts).toEqual([
      {
        channel: 'email',
        chat: 'alice@example.com',
        replyTo: question('alice@example.com').slice(1, -1),
        privateChat: false,
        user: { channel: 'email', userId: 'alice@example.com', name: 'Alice' },
        text: '2',
      },
    ]);
  });

  it('with `users`, the list decides (core checks it): the reply goes to the sink from a listed address', async () => {
    const sink = new RecordingSink();
    await inbound(sink).handle(await reply('dave@example.com', question('team@example.com', true)));
    expect(sink.texts.map((t) => [t.chat, t.user.userId])).toEqual([['team@example.com', 'dave@example.com']]);
  });

  it('a forbidden outcome (not on the list) is not answered by mail: no backscatter to strangers', async () => {
    const sink = new RecordingSink();
    sink.textOutcome = { kind: 'forbidden', summary: 'This question is for dave' };
    await inbound(sink).handle(await reply('mallory@example.net', question('team@example.com', true)));
    await sleep(200);
    expect(smtp.to('mallory@example.net')).toEqual([]);
  });

  it('with ASKGATE_EMAIL_TRUSTED_AUTHSERV, only a reply that server authenticated counts', async () => {
    const sink = new RecordingSink();
    const gate = inbound(sink, 'mx.example.com');
    const q = question('alice@example.com');
    await gate.handle(await reply('alice@example.com', q));
    await gate.handle(await reply('alice@example.com', q, { 'Authentication-Results': 'mx.example.com; dmarc=fail' }));
    expect(sink.texts).toEqual([]);
    await gate.handle(
      await reply('alice@example.com', q, {
        'Authentication-Results': 'mx.example.com; dkim=pass header.d=example.com',
      }),
    );
    expect(sink.texts).toHaveLength(1);
  });

  it('mail that replies to nothing of askgate’s, or to another domain’s ids, reaches no one', async () => {
    const sink = new RecordingSink();
    await inbound(sink).handle(await reply('alice@example.com', '<ask.Ask1.d0.YUBiLmM@elsewhere.test>'));
    await inbound(sink).handle(await reply('alice@example.com', '<hello@example.com>'));
    expect(sink.texts).toEqual([]);
  });

  it('tells the person a refusal in the thread; at most a few mails per address per window', async () => {
    const sink = new RecordingSink();
    sink.textOutcome = { kind: 'invalid', hint: 'This answer does not fit the question.', askId: 'Ask1' };
    const gate = inbound(sink);
    for (let i = 0; i < 7; i++) await gate.handle(await reply('frank@example.com', question('frank@example.com')));
    const told = await smtp.mailTo('frank@example.com');
    expect(told.mail.text).toContain('does not fit');
    expect(told.mail.subject).toBe('Re: Where?');
    expect(told.mail.messageId).toMatch(/^<ask\.Ask1\.f[0-9a-f]+\./);
    await sleep(300);
    expect(smtp.to('frank@example.com')).toHaveLength(5);
  });
});
