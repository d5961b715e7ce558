import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { mailboxClient, startDovecot, type TestDovecot } from '../helpers/dovecot.js';
import {
  askByMail,
  composeReply,
  gmailQuote,
  idOf,
  outlookQuote,
  startEmailWorld,
  type EmailWorld,
} from './email-world.js';

const ALICE = 'alice@example.com';
const single = {
  questions: [
    { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  ],
};

let dovecot: TestDovecot;
let w: EmailWorld;
let mailbox: ImapFlow;

beforeAll(async () => {
  dovecot = await startDovecot();
  // Only IMAP brings replies here: no inbound token, so no raw route.
  w = await startEmailWorld({ ASKGATE_EMAIL_IMAP_URL: dovecot.url, ASKGATE_EMAIL_INBOUND_TOKEN: undefined });
  // A second IMAP client: the mail provider delivering replies into the mailbox askgate reads.
  mailbox = mailboxClient(dovecot);
  await mailbox.connect();
}, 30_000);

afterAll(async () => {
  await mailbox?.logout().catch(() => {});
  await w?.close();
  await dovecot?.dispose();
});

const result = async (id: string) => (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
/** The flags of every message in INBOX, by Message-ID. */
async function flags(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const lock = await mailbox.getMailboxLock('INBOX');
  try {
    for await (const m of mailbox.fetch('1:*', { envelope: true, flags: true }))
      out.set(m.envelope!.messageId!, [...(m.flags ?? [])]);
  } finally {
    lock.release();
  }
  return out;
}

describe('email: replies read from a real IMAP mailbox (a private Dovecot)', () => {
  it('has no raw route when no inbound token is set', async () => {
    expect((await fetch(`${w.app.url}/email/inbound`, { method: 'POST' })).status).toBe(404);
  });

  it('a reply appended to the mailbox answers (IDLE wakes the poller) and is marked \\Seen after the commit', async () => {
    const { id } = await askByMail(w, single);
    const q = await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.d`));
    const replyId = `<imap-${id}@mail.example.com>`;
    await mailbox.append('INBOX', await composeReply(q, gmailQuote('2', q), { messageId: replyId }));
    const r = await result(id);
    expect(r.status).toBe('answered');
    expect(r.answers).toEqual({ env: ['Production'] });
    await eventually(async () => (await flags()).get(replyId)?.includes('\\Seen'));
    // The outcome is mailed after the commit (through the outbox): count from once it is out.
    await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.o.`));
    // As after a crash between the commit and the flag: the message is unseen again and read again,
    // found a duplicate by its Message-ID (no second answer, no mail), and marked \Seen.
    const sentBefore = w.smtp.mails.length;
    const lock = await mailbox.getMailboxLock('INBOX');
    try {
      await mailbox.messageFlagsRemove({ header: { 'message-id': replyId } }, ['\\Seen']);
    } finally {
      lock.release();
    }
    await eventually(async () => (await flags()).get(replyId)?.includes('\\Seen'));
    await sleep(300);
    expect(w.smtp.mails.length).toBe(sentBefore);
    expect((await result(id)).answers).toEqual({ env: ['Production'] });
  });

  it('the same message read twice (a re-delivery, a re-read after a crash) answers once and tells once', async () => {
    const { id } = await askByMail(w, single);
    const q = await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.d`));
    const replyId = `<imap-dup-${id}@mail.example.com>`;
    const raw = await composeReply(q, '1', { messageId: replyId });
    await mailbox.append('INBOX', raw);
    await mailbox.append('INBOX', raw);
    expect((await result(id)).answers).toEqual({ env: ['Staging'] });
    await eventually(async () => {
      const lock = await mailbox.getMailboxLock('INBOX');
      try {
        const unseen = await mailbox.search({ seen: false });
        return Array.isArray(unseen) && unseen.length === 0;
      } finally {
        lock.release();
      }
    });
    await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.o.`));
    await sleep(300);
    const followUps = w.smtp
      .to(ALICE)
      .filter((m) => idOf(m).startsWith(`<ask.${id}.`) && !idOf(m).startsWith(`<ask.${id}.d`));
    expect(followUps).toHaveLength(1); // the outcome; no "already answered" for the second copy
  });

  it('a reply that arrived while askgate was down is read when it starts again', async () => {
    const { id } = await askByMail(w, single);
    const q = await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.d`));
    await w.stop();
    await mailbox.append('INBOX', await composeReply(q, outlookQuote('2', q)));
    await w.start();
    expect((await result(id)).answers).toEqual({ env: ['Production'] });
  });

  it('mail that answers nothing of askgate’s is marked \\Seen and ignored', async () => {
    const other = `<newsletter-${Date.now()}@example.org>`;
    await mailbox.append(
      'INBOX',
      Buffer.from(
        `From: news@example.org\r\nTo: ask@askgate.test\r\nMessage-ID: ${other}\r\nSubject: hi\r\n\r\nhello\r\n`,
      ),
    );
    await eventually(async () => (await flags()).get(other)?.includes('\\Seen'));
  });
});
