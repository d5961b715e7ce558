import { afterAll, describe, expect, it } from 'vitest';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { client, eventually } from '../helpers/http.js';
import { startSmtp, type CapturedMail } from '../helpers/smtp-server.js';
import { mailboxClient, startDovecot } from '../helpers/dovecot.js';
import { composeReply, gmailQuote, idOf, INBOUND_TOKEN } from '../channels/email-world.js';
import { writeSummary, type RowSummary } from './harness/world.js';

// E1 (issue 38): askgate killed (-9) between an inbound mail and its commit. Two ways in: the raw
// route (`POST /email/inbound`: askgate dies with the request in flight, the mail provider sends
// the same message again until it gets its 202) and IMAP (askgate dies while its poller reads the
// mailbox; the message stays unseen until after a commit, so the next process reads it again).
// Each answer must be taken exactly once: one terminal transition per ask, by the addressed person,
// with what they wrote.
const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN = 'email-restart-token-0123456789';
const FROM = 'ask@askgate.test';
const QUESTION = {
  id: 'env',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};

afterAll(() => writeSummary('email-restart', rows));

describe('E1: kill -9 of askgate between an inbound mail and its commit (Redis AOF always)', () => {
  it('every reply is taken once: through the raw route re-sent by the provider, and through IMAP read again', async () => {
    const redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const smtp = await startSmtp();
    const dovecot = await startDovecot();
    const port = await freePort();
    const env = {
      REDIS_URL: redis.url,
      PORT: String(port),
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_KEY_PREFIX: `e1${Date.now()}`,
      SMTP_URL: smtp.url,
      ASKGATE_EMAIL_FROM: `askgate <${FROM}>`,
      ASKGATE_EMAIL_INBOUND_TOKEN: INBOUND_TOKEN,
      ASKGATE_EMAIL_IMAP_URL: dovecot.url,
      // A finalization a killed process left is taken over within seconds, not the default 30 s.
      ASKGATE_SWEEP_DELAY_MS: '2000',
      ASKGATE_RECONCILE_INTERVAL_MS: '500',
    };
    let askgate: AskgateProcess = await startAskgateProcess(env);
    const url = askgate.url;
    const api = client(url, TOKEN);
    const mailbox = mailboxClient(dovecot);
    await mailbox.connect();
    const kills: string[] = [];
    const restarts: number[] = [];
    const restart = async (point: string) => {
      await askgate.kill9();
      kills.push(point);
      const started = Date.now();
      askgate = await startAskgateProcess(env);
      restarts.push(Date.now() - started);
    };
    /** The provider's side of the raw route: the same message until a 202 (refused connections while askgate is down). */
    const deliverRaw = async (raw: Buffer): Promise<{ tries: number; statuses: string[] }> => {
      const statuses: string[] = [];
      for (let tries = 1; tries <= 60; tries++) {
        const status = await fetch(`${url}/email/inbound`, {
          method: 'POST',
          headers: { authorization: `Bearer ${INBOUND_TOKEN}`, 'content-type': 'message/rfc822' },
          body: new Uint8Array(raw),
        }).then(
          async (r) => `${r.status}${r.status === 202 ? `:${((await r.json()) as { status: string }).status}` : ''}`,
          () => 'down',
        );
        statuses.push(status);
        if (status.startsWith('202')) return { tries, statuses };
        await sleep(250);
      }
      throw new Error(`the raw route never took the message: ${statuses.join(', ')}`);
    };

    try {
      const asks: { id: string; to: string; question: CapturedMail; reply: string }[] = [];
      for (let i = 0; i < 16; i++) {
        const to = `person${i}@example.com`;
        const created = await api.post('/v1/asks', {
          runId: `e1-${i}`,
          questions: [QUESTION],
          to: { channel: 'email', chat: to },
          timeoutSeconds: 600,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const id = created.body.id as string;
        const question = await smtp.mailTo(to, (m) => idOf(m).startsWith(`<ask.${id}.d`));
        asks.push({ id, to, question, reply: i % 2 === 0 ? '2' : 'Staging' });
      }
      const compose = (a: (typeof asks)[number], n: number) =>
        composeReply(a.question, gmailQuote(a.reply, a.question), {
          from: `Person ${n} <${a.to}>`,
          messageId: `<e1-${n}-${a.id}@mail.example.com>`,
        });

      // The raw route: the request in flight when askgate dies (0–40 ms after it was sent, so
      // before, during and after the commit), then the provider's re-sends.
      const raw = asks.slice(0, 8);
      const rawTries: number[] = [];
      const rawStatuses: string[][] = [];
      for (const [n, a] of raw.entries()) {
        const message = await compose(a, n);
        const first = deliverRaw(message);
        await sleep([0, 2, 5, 10, 15, 20, 30, 40][n]!);
        await restart(`raw-in-flight-${n}`);
        const { tries, statuses } = await first;
        rawTries.push(tries);
        rawStatuses.push(statuses);
      }

      // IMAP: the reply lands in the mailbox and askgate dies 0–300 ms later (while IDLE wakes the
      // poller, it fetches, commits, or flags the message \Seen).
      const imap = asks.slice(8);
      for (const [k, a] of imap.entries()) {
        await mailbox.append('INBOX', await compose(a, 8 + k));
        await sleep([0, 20, 50, 80, 120, 160, 220, 300][k]!);
        await restart(`imap-${k}`);
      }

      const results = await Promise.all(
        asks.map((a) =>
          eventually(async () => {
            const r = await client(askgate.url, TOKEN).get(`/v1/asks/${a.id}`);
            return r.body.status === 'pending' ? undefined : r.body;
          }, 60_000),
        ),
      );
      // Every handled message ends \Seen (after its commit, by whichever process took it).
      const unseen = await eventually(async () => {
        const lock = await mailbox.getMailboxLock('INBOX');
        try {
          const left: string[] = [];
          for await (const m of mailbox.fetch('1:*', { envelope: true, flags: true }))
            if (!m.flags?.has('\\Seen')) left.push(m.envelope!.messageId!);
          return left.length === 0 ? left : undefined;
        } finally {
          lock.release();
        }
      }, 30_000);

      const violations: string[] = [];
      for (const [i, a] of asks.entries()) {
        const view = results[i]!;
        const expected = a.reply === '2' ? 'Production' : 'Staging';
        const events = (await client(askgate.url, TOKEN).get(`/v1/asks/${a.id}/events`)).body.events as {
          type: string;
        }[];
        const answered = events.filter((e) => e.type === 'answered').length;
        if (view.result?.status !== 'answered' || view.result.answers?.env?.[0] !== expected)
          violations.push(`${a.id}: ${JSON.stringify(view.result)} (expected ${expected})`);
        if (view.result?.answeredBy?.userId !== a.to)
          violations.push(`${a.id}: answered by ${JSON.stringify(view.result?.answeredBy)}`);
        if (answered !== 1) violations.push(`${a.id}: ${answered} answered entries`);
      }
      // The person's own words are never sent back; outcome mails per ask (a kill between an
      // outcome mail and its recording may send it twice: the non-editing channel's known window).
      // Sent after the commit by the outbox (a job a killed process left is taken over by the sweep).
      const outcomeMails = () =>
        asks.map((a) => smtp.to(a.to).filter((m) => /answered/i.test(m.mail.text ?? '')).length);
      await eventually(async () => (outcomeMails().every((n) => n >= 1) ? true : undefined), 60_000).catch(
        () => undefined,
      );
      const outcomes = outcomeMails();
      // A kill between an outcome mail and its recording sends it again, with the same Message-ID:
      // one message to every mail client.
      const outcomeIds = asks.map(
        (a) =>
          new Set(
            smtp
              .to(a.to)
              .filter((m) => /answered/i.test(m.mail.text ?? ''))
              .map(idOf),
          ).size,
      );
      for (const [i, a] of asks.entries())
        if (outcomeIds[i] !== 1) violations.push(`${a.id}: ${outcomeIds[i]} different outcome mails`);
      rows.push({
        row: 'E1',
        title: 'Email: kill -9 between an inbound mail and its commit',
        platform: 'email',
        injected: `${kills.length} × kill -9 of askgate: 8 with a raw-route POST in flight (0–40 ms after sending; the provider re-sends until a 202), 8 within 0–300 ms of a reply landing in the IMAP mailbox`,
        figures: {
          asks: asks.length,
          answered: results.filter((r) => r.result?.status === 'answered').length,
          kills: kills.length,
          rawDeliveriesPerMessage: rawTries.join(' '),
          rawRetriesAnsweredDuplicate: rawStatuses.filter((s) => s.at(-1) === '202:duplicate').length,
          outcomeMailsSentPerAsk: outcomes.join(' '),
          outcomeMessagesPerAsk: outcomeIds.join(' '),
          unseenAtEnd: unseen.length,
        },
        violations,
        extra: { restartMs: restarts },
      });
      expect(violations).toEqual([]);
    } finally {
      await mailbox.logout().catch(() => {});
      await askgate.stop().catch(() => {});
      await dovecot.dispose();
      await smtp.close();
      await redis.dispose();
    }
  });
});
