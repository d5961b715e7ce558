import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswerToken } from '../../src/links/answer-token.js';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import {
  FROM,
  INBOUND_TOKEN,
  LINK_SECRET,
  PUBLIC_URL,
  askByMail,
  composeReply,
  gmailQuote,
  idOf,
  outlookQuote,
  postRaw,
  startEmailWorld,
  type EmailWorld,
} from './email-world.js';

const ALICE = 'alice@example.com';
const single = (labels = ['Staging', 'Production']) => ({
  questions: [
    { id: 'env', header: 'Deploy', question: 'Where should I deploy?', options: labels.map((label) => ({ label })) },
  ],
});

let w: EmailWorld;
beforeAll(async () => {
  w = await startEmailWorld();
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const result = async (id: string) => (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
const questionMail = (id: string, to = ALICE) => w.smtp.mailTo(to, (m) => idOf(m).startsWith(`<ask.${id}.d`));
const followUps = (id: string, to = ALICE) =>
  w.smtp.to(to).filter((m) => idOf(m).startsWith(`<ask.${id}.`) && !idOf(m).startsWith(`<ask.${id}.d`));

describe('email end to end (real SMTP server, redis-server, the raw route)', () => {
  it('sends one mail with a text and an HTML part, a link per option and the page link, threaded by its Message-ID', async () => {
    const { id, record } = await askByMail(w, single(['Staging', 'Prod <b>&"x"']));
    expect(record.deliveries[0].status).toBe('sent');
    const q = await questionMail(id);
    expect(q.from).toBe(FROM);
    expect(q.mail.subject).toBe('Deploy: Where should I deploy?');
    expect(idOf(q)).toMatch(new RegExp(`^<ask\\.${id}\\.d0\\.[A-Za-z0-9_-]+@askgate\\.test>$`));
    expect(q.mail.headers.get('auto-submitted')).toBe('auto-generated');
    const text = q.mail.text!;
    expect(text).toContain('Where should I deploy?');
    expect(text).toContain('1. Staging');
    expect(text).toContain('2. Prod <b>&"x"');
    const links = [...text.matchAll(/https:\/\/askgate\.example\/a\/[A-Za-z0-9_.-]+(\?option=\d)?/g)].map((m) => m[0]);
    const token = links[0]!.slice(`${PUBLIC_URL}/a/`.length).replace(/\?.*$/, '');
    expect(links).toEqual([
      `${PUBLIC_URL}/a/${token}?option=1`,
      `${PUBLIC_URL}/a/${token}?option=2`,
      `${PUBLIC_URL}/a/${token}`,
    ]);
    const link = readAnswerToken(token, LINK_SECRET, new Date())!;
    expect(link.askId).toBe(id);
    expect(link.recipient).toEqual({ channel: 'email', userId: ALICE });
    expect(link.expiresAt.getTime()).toBe(Math.floor(Date.parse(record.expiresAt) / 1000) * 1000);
    // The HTML part: the same content, every string escaped, the links as anchors.
    const html = q.mail.html as string;
    expect(html).toContain('Prod &lt;b&gt;&amp;&quot;x&quot;');
    expect(html).not.toContain('<b>&');
    expect(html).toContain(`<a href="${PUBLIC_URL}/a/${token}?option=2">`);
    expect(text).toContain('Reply with a number, an option name or your own words');
  });

  it('a Gmail-quoted reply answers; the outcome is a short mail in the same thread', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    const sent = await postRaw(w, await composeReply(q, gmailQuote('2', q)));
    expect(sent).toEqual({ status: 202, body: { status: 'accepted' } });
    const r = await result(id);
    expect(r.status).toBe('answered');
    expect(r.answers).toEqual({ env: ['Production'] });
    expect(r.answeredBy).toMatchObject({ channel: 'email', userId: ALICE, name: 'Alice Example' });
    const outcome = await eventually(async () => followUps(id)[0]);
    expect(outcome.mail.inReplyTo).toBe(idOf(q));
    expect([outcome.mail.references].flat()).toEqual([idOf(q)]);
    expect(outcome.mail.subject).toBe('Re: Deploy: Where should I deploy?');
    expect(outcome.mail.text).toContain('Production');
    expect(outcome.mail.html).toContain('Production');
    // One Message-ID per outcome: a re-sent outcome (a process killed before recording it) is the same message.
    expect(idOf(outcome)).toBe(`<ask.${id}.o.${Buffer.from(ALICE).toString('base64url')}@askgate.test>`);
  });

  it('an Outlook-quoted reply in the person’s own words is recorded without echoing them in the outcome', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    expect((await postRaw(w, await composeReply(q, outlookQuote('after the freeze, not today', q)))).status).toBe(202);
    const r = await result(id);
    expect(r.status).toBe('answered');
    expect(r.answers.env).toEqual(['after the freeze, not today']);
    const outcome = await eventually(async () => followUps(id)[0]);
    expect(outcome.mail.text).not.toContain('after the freeze');
  });

  it('the same message delivered twice answers once and tells once', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    const raw = await composeReply(q, gmailQuote('1', q), { messageId: `<dup-${id}@mail.example.com>` });
    const [a, b] = [await postRaw(w, raw), await postRaw(w, raw)];
    expect(a).toEqual({ status: 202, body: { status: 'accepted' } });
    expect(b).toEqual({ status: 202, body: { status: 'duplicate' } });
    expect((await result(id)).answers).toEqual({ env: ['Staging'] });
    // Wait for the outcome (mailed after the commit), then long enough for a second mail to show.
    await w.smtp.mailTo(ALICE, (m) => idOf(m).startsWith(`<ask.${id}.o.`));
    await sleep(500);
    expect(followUps(id)).toHaveLength(1); // the outcome only: no "already answered" for the copy
  });

  it('a reply from an address the question was not sent to is refused, and nothing is mailed to it', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    const raw = await composeReply(q, gmailQuote('2', q), { from: 'Mallory <mallory@example.net>' });
    expect((await postRaw(w, raw)).status).toBe(202);
    await sleep(300);
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expect(w.smtp.to('mallory@example.net')).toEqual([]);
  });

  it('auto-replies (Auto-Submitted) answer nothing', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    const raw = await composeReply(q, 'I am out of office until Monday. 2', {
      headers: { 'Auto-Submitted': 'auto-replied' },
    });
    expect((await postRaw(w, raw)).status).toBe(202);
    await sleep(300);
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    expect(followUps(id)).toEqual([]);
  });

  it('a reply that fits no question gets a repair hint in the thread; a reply to the hint answers', async () => {
    const { id } = await askByMail(w, {
      questions: [{ id: 'n', question: 'How many replicas?', kind: 'number', min: 1, max: 9 }],
    });
    const q = await questionMail(id);
    expect((await postRaw(w, await composeReply(q, gmailQuote('lots', q)))).status).toBe(202);
    const hint = await eventually(async () => followUps(id)[0]);
    expect(hint.mail.text).toMatch(/number/i);
    expect([hint.mail.references].flat()).toContain(idOf(q));
    expect((await w.api.get(`/v1/asks/${id}`)).body.status).toBe('pending');
    // The person answers the hint mail (its thread), as a client quotes it.
    expect((await postRaw(w, await composeReply(hint, gmailQuote('3', hint)))).status).toBe(202);
    expect((await result(id)).values).toEqual({ n: 3 });
  });

  it('"skip" skips; several questions are answered one per line, as in chat', async () => {
    const skipped = await askByMail(w, single());
    await postRaw(
      w,
      await composeReply(await questionMail(skipped.id), gmailQuote('skip', await questionMail(skipped.id))),
    );
    expect(await result(skipped.id)).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    const { id } = await askByMail(w, {
      questions: [
        { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        { id: 'when', question: 'When?', kind: 'date' },
      ],
    });
    const q = await questionMail(id);
    expect(q.mail.text).toContain('Question 2');
    expect(q.mail.text).not.toContain('?option=');
    await postRaw(w, await composeReply(q, outlookQuote('2\n2031-05-04', q)));
    expect((await result(id)).values).toEqual({ env: ['Production'], when: '2031-05-04' });
  });

  it('a late answer gets the honest notice, threaded', async () => {
    const { id } = await askByMail(w, single());
    const q = await questionMail(id);
    await postRaw(w, await composeReply(q, '1'));
    expect((await result(id)).status).toBe('answered');
    await postRaw(w, await composeReply(q, '2'));
    const notice = await eventually(async () => followUps(id).find((m) => /already answered/i.test(m.mail.text ?? '')));
    expect(notice.mail.inReplyTo).toBeTruthy();
    expect((await result(id)).answers).toEqual({ env: ['Staging'] });
  });

  it('a reply to a target with `users` is accepted from a listed address, each of whom got their own mail', async () => {
    const users = ['dave@example.com', 'erin@example.com'];
    const { id } = await askByMail(w, single(), { chat: 'team@example.com', users });
    const forDave = await questionMail(id, users[0]);
    const forErin = await questionMail(id, users[1]);
    expect(idOf(forDave)).not.toBe(idOf(forErin));
    const tokenOf = (text: string) => /\/a\/([A-Za-z0-9_.-]+)/.exec(text)![1]!;
    expect(readAnswerToken(tokenOf(forErin.mail.text!), LINK_SECRET, new Date())!.recipient).toEqual({
      channel: 'email',
      userId: 'erin@example.com',
    });
    await postRaw(w, await composeReply(forErin, '2', { from: 'Erin <Erin@Example.com>' }));
    const r = await result(id);
    expect(r.answeredBy.userId).toBe('erin@example.com');
    // The outcome goes to everyone the question went to.
    await eventually(async () => followUps(id, users[0]).length === 1 && followUps(id, users[1]).length === 1);
  });

  it('reminders are mails in the thread with References to the question', async () => {
    const { id } = await askByMail(w, { ...single(), timeoutSeconds: 30, remindAfterSeconds: [1] });
    const q = await questionMail(id);
    const reminder = await eventually(async () => followUps(id).find((m) => /Reminder/.test(m.mail.text ?? '')), 8000);
    expect(reminder.mail.inReplyTo).toBe(idOf(q));
    expect([reminder.mail.references].flat()).toEqual([idOf(q)]);
    expect(reminder.mail.subject).toBe('Re: Deploy: Where should I deploy?');
    await postRaw(w, await composeReply(reminder, gmailQuote('2', reminder)));
    expect((await result(id)).answers).toEqual({ env: ['Production'] });
  });

  it('an approval is mailed whole (action, arguments, hash) and decided by a reply', async () => {
    const approval = {
      action: 'deploy',
      summary: 'Deploy v2 to production',
      arguments: { service: 'api', version: 'v2' },
    };
    const { id } = await askByMail(w, { approval });
    const q = await questionMail(id);
    expect(q.mail.subject).toBe('Deploy v2 to production');
    expect(q.mail.text).toContain('Action: deploy');
    expect(q.mail.text).toContain('service: api');
    expect(q.mail.text).toMatch(/Hash #[0-9a-f]{8}/);
    expect(q.mail.html).toContain('<pre>');
    expect((await postRaw(w, await composeReply(q, gmailQuote('approve', q)))).status).toBe(202);
    expect(await result(id)).toMatchObject({ status: 'answered', decision: 'approve' });
  });

  it('escalation mails the next target in its own thread', async () => {
    const { id } = await askByMail(w, {
      ...single(),
      timeoutSeconds: 30,
      escalate: [{ afterSeconds: 1, to: { channel: 'email', chat: 'boss@example.com' } }],
    });
    const boss = await questionMail(id, 'boss@example.com');
    expect(idOf(boss)).not.toBe(idOf(await questionMail(id)));
    await postRaw(w, await composeReply(boss, '2', { from: 'boss@example.com' }));
    expect((await result(id)).answeredBy.userId).toBe('boss@example.com');
  });

  it('a permanent SMTP refusal (550) marks the delivery failed and the ask undelivered', async () => {
    w.smtp.refuse('nobody@example.com', 550);
    const { id, record } = await askByMail(w, single(), { chat: 'nobody@example.com' });
    expect(record.deliveries[0].status).toBe('failed');
    expect(record.deliveries[0].error).toMatch(/550/);
    expect(await result(id)).toMatchObject({ status: 'no_answer', reason: 'undelivered' });
  });

  it('a target whose chat is not an address (and names no users) fails at once', async () => {
    const { record } = await askByMail(w, single(), { chat: 'not-an-address' });
    expect(record.deliveries[0]).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/not an email address/),
    });
  });

  it('a transient SMTP refusal (451) is retried and then delivered', async () => {
    w.smtp.refuse('later@example.com', 451, 1);
    const { id, record } = await askByMail(w, single(), { chat: 'later@example.com' });
    expect(record.deliveries[0].status).toBe('sent');
    await questionMail(id, 'later@example.com');
  });

  it('the raw route wants the bearer token and message/rfc822', async () => {
    const raw = Buffer.from('From: a@b.c\r\n\r\nhi\r\n');
    expect((await postRaw(w, raw, { authorization: 'Bearer wrong-token-0000000' })).status).toBe(401);
    expect((await postRaw(w, raw, { authorization: '' })).status).toBe(401);
    expect((await postRaw(w, raw, { 'content-type': 'text/plain' })).status).toBe(415);
    expect(INBOUND_TOKEN.length).toBeGreaterThan(16);
    const huge = Buffer.concat([raw, Buffer.alloc(1_100_000, 'a')]);
    expect((await postRaw(w, huge)).status).toBe(413);
    // A mail that answers nothing of askgate's is acknowledged (so the provider stops sending it).
    expect((await postRaw(w, raw)).status).toBe(202);
  });
});
