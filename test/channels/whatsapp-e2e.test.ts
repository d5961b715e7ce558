import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { buttonReply, inboundMessage, listReply, statusUpdate, textReply } from '../fakes/whatsapp-api.js';
import {
  ALICE,
  ALICE_WA,
  APP_SECRET,
  VERIFY_TOKEN,
  askOnWhatsApp,
  askWithPrompt,
  resultOf,
  repliesTo,
  startWhatsAppWorld,
  type WhatsAppWorld,
} from './whatsapp-world.js';
import { createHmac } from 'node:crypto';

const single = (labels: string[]) => ({
  questions: [
    { id: 'env', header: 'Deploy', question: 'Where should I deploy?', options: labels.map((label) => ({ label })) },
  ],
});

let w: WhatsAppWorld;
beforeAll(async () => {
  w = await startWhatsAppWorld();
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const result = (id: string) => resultOf(w, id);
const ask = (body: Record<string, unknown>) => askWithPrompt(w, body);
const tokens = (prompt: any): string[] =>
  prompt.body.interactive.type === 'button'
    ? prompt.body.interactive.action.buttons.map((b: any) => b.reply.id)
    : prompt.body.interactive.action.sections.flatMap((s: any) => s.rows.map((r: any) => r.id));

describe('WhatsApp webhook verification and signatures', () => {
  it('answers the verification challenge for the configured verify token only', async () => {
    const get = (token: string, mode = 'subscribe') =>
      fetch(`${w.webhook}?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`);
    const ok = await get(VERIFY_TOKEN);
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444']);
    expect((await get('wrong-token')).status).toBe(403);
    expect((await get(VERIFY_TOKEN, 'unsubscribe')).status).toBe(403);
  });

  it('a forged, unsigned or wrongly keyed delivery is refused and nothing in it is processed', async () => {
    const { id, prompt } = await ask(single(['Staging', 'Production']));
    const tap = inboundMessage(ALICE_WA, buttonReply(prompt.id, tokens(prompt)[0]!));
    const wrongKey = (raw: string) => `sha256=${createHmac('sha256', 'not-the-secret').update(raw).digest('hex')}`;
    expect((await w.wa.deliver(w.webhook, tap, null)).status).toBe(401);
    expect((await w.wa.deliver(w.webhook, tap, 'sha256=' + '0'.repeat(64))).status).toBe(403);
    expect((await w.wa.deliver(w.webhook, tap, wrongKey('{}'))).status).toBe(403);
    expect((await w.wa.deliver(w.webhook, tap, 'sha1=abc')).status).toBe(401);
    await sleep(200);
    const r = await w.api.get(`/v1/asks/${id}`);
    expect(r.body.status).toBe('pending');
    expect(APP_SECRET).not.toBe('not-the-secret');
  });
});

describe('WhatsApp end to end (the Cloud API fake, redis-server)', () => {
  it('two options are reply buttons (with Skip, Other typed); a tap answers; the outcome is a reply to the question', async () => {
    const { id, record, prompt } = await ask(single(['Staging', 'Production']));
    expect(record.deliveries[0].status).toBe('sent');
    expect(prompt.body).toMatchObject({ to: ALICE_WA, type: 'interactive', interactive: { type: 'button' } });
    const buttons = prompt.body.interactive.action.buttons;
    expect(buttons.map((b: any) => b.reply.title)).toEqual(['Staging', 'Production', 'Skip']);
    expect(prompt.body.interactive.body.text).toContain('Where should I deploy?');
    expect(prompt.body.interactive.body.text).toContain('your own words');
    const tap = await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, buttonReply(prompt.id, buttons[1].reply.id)));
    expect(tap.status).toBe(200);
    const r = await result(id);
    expect(r.status).toBe('answered');
    expect(r.answers).toEqual({ env: ['Production'] });
    expect(r.answeredBy).toMatchObject({ channel: 'whatsapp', userId: ALICE, name: 'Alice' });
    const outcome = await eventually(async () => repliesTo(w, prompt.id)[0]);
    expect(outcome.body).toMatchObject({ type: 'text', to: ALICE_WA, context: { message_id: prompt.id } });
    expect(outcome.body.text.body).toContain('Production');
  });

  it('four options are a list message (rows ≤ 24, Skip a row); a pick answers', async () => {
    const { id, prompt } = await ask(
      single(['Staging', 'Production', 'Canary', 'A region far, far away in the north']),
    );
    expect(prompt.body.interactive.type).toBe('list');
    const rows = prompt.body.interactive.action.sections[0].rows;
    expect(rows.map((r: any) => r.title)).toEqual(['Staging', 'Production', 'Canary', expect.any(String), 'Skip']);
    expect([...rows[3].title].length).toBeLessThanOrEqual(24);
    await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, listReply(prompt.id, rows[2].id)));
    expect((await result(id)).answers).toEqual({ env: ['Canary'] });
  });

  it('a typed question is text, answered by a reply to it (context)', async () => {
    const { id, prompt } = await ask({
      questions: [{ id: 'n', question: 'How many replicas?', kind: 'number', min: 1, max: 9 }],
    });
    expect(prompt.body.type).toBe('text');
    expect(prompt.body.text.body).toContain('How many replicas?');
    const sent = await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, textReply('3', prompt.id)));
    expect(sent.status).toBe(200);
    const r = await result(id);
    expect(r.status).toBe('answered');
    expect(r.answers).toEqual({ n: ['3'] });
  });

  it('a re-delivered webhook answers once and replies once', async () => {
    const { id, prompt } = await ask(single(['Staging', 'Production']));
    const event = inboundMessage(ALICE_WA, buttonReply(prompt.id, tokens(prompt)[0]!));
    expect((await w.wa.deliver(w.webhook, event)).status).toBe(200);
    expect((await w.wa.deliver(w.webhook, event)).status).toBe(200);
    expect((await result(id)).answers).toEqual({ env: ['Staging'] });
    await eventually(async () => repliesTo(w, prompt.id).length === 1);
    await sleep(300);
    expect(repliesTo(w, prompt.id)).toHaveLength(1); // the outcome only: the duplicate said nothing
  });

  it('a tap after the end gets the honest notice, as a reply to the tap', async () => {
    const { id, prompt } = await ask(single(['Staging', 'Production']));
    await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, buttonReply(prompt.id, tokens(prompt)[0]!)));
    await result(id);
    const late = inboundMessage(ALICE_WA, buttonReply(prompt.id, tokens(prompt)[1]!), 'Bob') as any;
    await w.wa.deliver(w.webhook, late);
    const notice = await eventually(async () => repliesTo(w, late.messages[0].id)[0]);
    expect(notice.body.text.body).toMatch(/already answered/i);
    expect((await result(id)).answers).toEqual({ env: ['Staging'] });
  });

  it('131047 (the 24-hour window is closed) fails the delivery with window_closed: the ask is undelivered', async () => {
    w.wa.failNext({ status: 400, code: 131047 });
    const { id, record } = await askOnWhatsApp(w, single(['Staging', 'Production']));
    expect(record.deliveries[0].status).toBe('failed');
    expect(record.deliveries[0].error).toMatch(/^window_closed/);
    const r = await result(id);
    expect([r.status, r.reason]).toEqual(['no_answer', 'undelivered']);
  });

  it('a 429 and the pair rate limit (131056) are retried after their wait', async () => {
    w.wa.failNext({ status: 429, code: 130429, retryAfter: 1 }, { status: 400, code: 131056, retryAfter: 1 });
    const before = w.wa.attempts.length;
    const { record } = await ask(single(['Staging', 'Production']));
    expect(record.deliveries[0].status).toBe('sent');
    const times = w.wa.attempts.slice(before);
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(900);
  });

  it('status webhooks are acknowledged (a failed one with 131047 included)', async () => {
    const { prompt } = await ask(single(['Staging', 'Production']));
    for (const s of ['sent', 'delivered', 'read'])
      expect((await w.wa.deliver(w.webhook, statusUpdate(prompt.id, ALICE_WA, s))).status).toBe(200);
    expect((await w.wa.deliver(w.webhook, statusUpdate(prompt.id, ALICE_WA, 'failed', 131047))).status).toBe(200);
  });
});
