import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { EMAIL_CAPABILITIES } from '../../src/channels/email/capabilities.js';
import { renderPrompt, renderNote } from '../../src/channels/email/render.js';
import { mailId, questionId, readMailId, threadOf } from '../../src/channels/email/message-ids.js';
import { authenticated, readMail } from '../../src/channels/email/read-mail.js';
import { ReplyLimiter, REPLIES_PER_WINDOW, REPLY_WINDOW_MS } from '../../src/channels/email/reply-limit.js';
import { smtpError } from '../../src/channels/email/smtp.js';
import { parseImapUrl } from '../../src/channels/email/imap.js';
import { loadConfig } from '../../src/config.js';
import type { AskRecord } from '../../src/core/schemas.js';

const LINKS = { page: 'https://x.test/a/T', options: ['https://x.test/a/T?option=1', 'https://x.test/a/T?option=2'] };
const view = (record: Partial<AskRecord>, locale?: string) =>
  buildPromptView(
    { id: 'Ask1', version: 1, questions: [], ...record } as AskRecord,
    wordsFor(locale),
    EMAIL_CAPABILITIES,
  );
const choice = {
  id: 'env',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production', description: 'the <real> one' }],
};

describe('email rendering', () => {
  it('without links, the mail says it is answered by reply; the views have no buttons and no form', () => {
    const v = view({ questions: [choice] } as never);
    expect(v.buttons).toBeNull();
    expect(v.form).toBeUndefined();
    const mail = renderPrompt(v, null);
    expect(mail.text).toContain('Answer by replying to this email.');
    expect(mail.text).not.toContain('https://');
    expect(mail.html).toContain('Production — the &lt;real&gt; one');
  });

  it('the links follow the ask’s locale; a multi-select question gets the page link only', () => {
    const de = renderPrompt(view({ questions: [choice], locale: 'de' } as never, 'de'), LINKS);
    expect(de.text).toContain('Wählen Sie eine Option');
    expect(de.html).toContain('lang="de"');
    const multi = renderPrompt(view({ questions: [{ ...choice, multiSelect: true }] } as never), {
      ...LINKS,
      options: [],
    });
    expect(multi.text).not.toContain('?option=');
    expect(multi.text).toContain('Answer on the page: https://x.test/a/T');
  });

  it('several questions are numbered; a typed question says what it expects', () => {
    const v = view({
      questions: [choice, { id: 'n', question: 'How many?', kind: 'number', min: 1, max: 5 }],
    } as never);
    const mail = renderPrompt(v, null);
    expect(mail.text).toContain('Question 1');
    expect(mail.text).toContain('Question 2');
    expect(mail.text).toMatch(/number/i);
  });

  it('a note is escaped in HTML and keeps its subject as a reply', () => {
    const note = renderNote('Re: Deploy', 'a <b> & c', 'en');
    expect(note.subject).toBe('Re: Deploy');
    expect(note.html).toContain('a &lt;b&gt; &amp; c');
    expect(renderNote('Deploy', 'x', 'en').subject).toBe('Re: Deploy');
  });
});

describe('email Message-IDs', () => {
  it('carry the ask and the conversation, and are read back only at askgate’s domain', () => {
    const id = mailId({ askId: 'Abc123', chat: 'team@example.com', part: 'r1f', users: true }, 'askgate.test');
    expect(readMailId(`<${id}>`, 'ASKGATE.test')).toEqual({
      askId: 'Abc123',
      chat: 'team@example.com',
      part: 'r1f',
      users: true,
    });
    expect(readMailId(id, 'other.test')).toBeNull();
    expect(readMailId('<ask.Abc.d0.@askgate.test>', 'askgate.test')).toBeNull();
    expect(readMailId('<random@askgate.test>', 'askgate.test')).toBeNull();
    expect(questionId({ askId: 'Abc123', chat: 'a@b.c', users: false }, 'd.test')).toMatch(
      /^ask\.Abc123\.d0\.[\w-]+@d\.test$/,
    );
  });

  it('a reply’s thread: In-Reply-To first, then References from the newest', () => {
    const a = mailId({ askId: 'A1', chat: 'a@b.c', part: 'd0', users: false }, 'd.test');
    const b = mailId({ askId: 'B2', chat: 'a@b.c', part: 'd0', users: false }, 'd.test');
    expect(threadOf(`<x@elsewhere>`, [a, b, 'y@elsewhere'], 'd.test')?.askId).toBe('B2');
    expect(threadOf(a, [b], 'd.test')?.askId).toBe('A1');
    expect(threadOf(undefined, ['y@elsewhere'], 'd.test')).toBeNull();
  });
});

const composed = (headers: Record<string, string>, from = 'Alice <alice@example.com>') =>
  new MailComposer({ from, to: 'ask@askgate.test', subject: 'Re: x', text: '2', headers }).compile().build();

describe('reading inbound mail', () => {
  it('trusts only the topmost Authentication-Results of the configured server, for the From domain', async () => {
    const check = async (results: string[], from?: string) =>
      authenticated(
        await readMail(await composed({ 'Authentication-Results': results as never }, from)),
        'mx.example.com',
      );
    expect(await check(['mx.example.com; dmarc=pass header.from=example.com'])).toBe(true);
    expect(await check(['mx.example.com; dkim=pass header.d=example.com; spf=fail'])).toBe(true);
    expect(await check(['mx.example.com; spf=pass smtp.mailfrom=alice@example.com'])).toBe(true);
    expect(await check(['mx.example.com; dkim=pass header.d=evil.test'])).toBe(false);
    expect(await check(['mx.example.com; dmarc=fail header.from=example.com'])).toBe(false);
    expect(await check(['evil.test; dmarc=pass header.from=example.com'])).toBe(false);
    expect(await check([])).toBe(false);
    // A forged header below the server's own (the server prepends its header on top).
    expect(
      await check([
        'mx.example.com; dmarc=fail header.from=example.com',
        'mx.example.com; dmarc=pass header.from=example.com',
      ]),
    ).toBe(false);
  });

  it('knows machines: auto-replies, lists, bounces', async () => {
    expect((await readMail(await composed({}))).automatic).toBe(false);
    expect((await readMail(await composed({ 'Auto-Submitted': 'no' }))).automatic).toBe(false);
    expect((await readMail(await composed({ 'Auto-Submitted': 'auto-replied' }))).automatic).toBe(true);
    expect((await readMail(await composed({ Precedence: 'bulk' }))).automatic).toBe(true);
    expect((await readMail(await composed({ 'X-Autoreply': 'yes' }))).automatic).toBe(true);
    expect((await readMail(await composed({}, 'MAILER-DAEMON@mx.example.com'))).automatic).toBe(true);
  });

  it('an HTML-only reply is read as text, the sender lower-cased', async () => {
    const raw = await new MailComposer({
      from: 'Bob <Bob@Example.COM>',
      to: 'ask@askgate.test',
      subject: 'Re: x',
      html: '<div>Production</div><blockquote>On Mon askgate wrote:<br>&gt; Where?</blockquote>',
    })
      .compile()
      .build();
    const mail = await readMail(raw);
    expect(mail.from).toBe('bob@example.com');
    expect(mail.text).toBe('Production');
    expect(mail.id).toMatch(/@/);
  });
});

describe('email settings and errors', () => {
  it('is off without SMTP_URL and refuses what cannot work', () => {
    expect(loadConfig({}).channels.email).toBeUndefined();
    expect(() => loadConfig({ SMTP_URL: 'smtp://localhost:25' })).toThrow(/ASKGATE_EMAIL_FROM/);
    expect(() => loadConfig({ SMTP_URL: 'http://x', ASKGATE_EMAIL_FROM: 'a@b.c' })).toThrow(/smtp:\/\//);
    expect(() =>
      loadConfig({ SMTP_URL: 'smtp://x', ASKGATE_EMAIL_FROM: 'a@b.c', ASKGATE_EMAIL_IMAP_URL: 'pop3://x' }),
    ).toThrow(/imap/);
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@x', ASKGATE_EMAIL_FROM: 'a@b.c' }).channels.email).toMatchObject({
      smtpUrl: 'smtps://u:p@x',
      from: 'a@b.c',
    });
  });

  it('reads an IMAP URL; the password never shows in an error', () => {
    expect(parseImapUrl('imaps://me%40x.test:p%2Fw@imap.x.test/Replies')).toEqual({
      host: 'imap.x.test',
      port: 993,
      secure: true,
      user: 'me@x.test',
      pass: 'p/w',
      mailbox: 'Replies',
    });
    expect(parseImapUrl('imap://u:p@h').mailbox).toBe('INBOX');
    expect(() => parseImapUrl('imaps://imap.x.test/INBOX')).toThrow(/user and password/);
  });

  it('maps SMTP replies: 5xx permanent, 4xx and network errors retried', () => {
    const err = (fields: object) => Object.assign(new Error('x'), fields);
    expect(smtpError(err({ responseCode: 550 }), 'sendMail').permanent).toBe(true);
    expect(smtpError(err({ responseCode: 451 }), 'sendMail').permanent).toBe(false);
    expect(smtpError(err({ code: 'ECONNECTION' }), 'sendMail').permanent).toBe(false);
    expect(smtpError(err({ code: 'EENVELOPE' }), 'sendMail').permanent).toBe(true);
  });

  it('limits replies to one address per window', () => {
    let now = 0;
    const limiter = new ReplyLimiter(() => now);
    for (let i = 0; i < REPLIES_PER_WINDOW; i++) expect(limiter.take('a@b.c')).toBe(true);
    expect(limiter.take('a@b.c')).toBe(false);
    expect(limiter.take('d@b.c')).toBe(true);
    now += REPLY_WINDOW_MS;
    expect(limiter.take('a@b.c')).toBe(true);
  });
});
