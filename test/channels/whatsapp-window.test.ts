// The 24-hour customer-service window: outside it, the operator's template (WHATSAPP_TEMPLATE), or
// without one the delivery fails `window_closed`; a reply to the template answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessage, textReply } from '../fakes/whatsapp-api.js';
import { askOnWhatsApp, startWhatsAppWorld, TEMPLATE, type WhatsAppWorld } from './whatsapp-world.js';

const BOB = '+15559876543';
const BOB_WA = BOB.slice(1);
const single = {
  questions: [
    { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  ],
};

describe('WhatsApp outside the 24-hour window', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld({ WHATSAPP_TEMPLATE: TEMPLATE });
  }, 30_000);
  afterAll(async () => {
    await w?.close();
  });

  it('sends the approved template with the prompt as its one-line parameter; a reply to it answers', async () => {
    w.wa.closed.add(BOB_WA);
    const before = w.wa.sent.length;
    const { id, record } = await askOnWhatsApp(w, single, BOB);
    expect(record.deliveries[0].status).toBe('sent');
    expect(w.wa.refused.at(-1)).toMatchObject({ status: 400, code: 131047 });
    const sent = w.wa.sent.slice(before);
    expect(sent).toHaveLength(1);
    const template = sent[0]!.body;
    expect(template).toMatchObject({
      type: 'template',
      template: { name: 'askgate_question', language: { code: 'en_US' } },
    });
    const text: string = template.template.components[0].parameters[0].text;
    expect(text).toContain('Where should I deploy?');
    expect(text).toContain('2. Production');
    expect(text).not.toMatch(/\n/);
    await w.wa.deliver(w.webhook, inboundMessage(BOB_WA, textReply('2', sent[0]!.id), 'Bob'));
    const r = (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
    expect(r).toMatchObject({ status: 'answered', answers: { env: ['Production'] } });
    // Bob wrote: his window is open again, so the outcome reply went out as text.
    expect(w.wa.closed.has(BOB_WA)).toBe(false);
  });
});

describe('WhatsApp outside the window without a template', () => {
  let w: WhatsAppWorld;
  beforeAll(async () => {
    w = await startWhatsAppWorld();
  }, 30_000);
  afterAll(async () => {
    await w?.close();
  });

  it('marks the delivery failed with window_closed and sends nothing', async () => {
    w.wa.closed.add(BOB_WA);
    const before = w.wa.sent.length;
    const { id, record } = await askOnWhatsApp(w, single, BOB);
    expect(record.deliveries[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^window_closed/) });
    expect(w.wa.sent.length).toBe(before);
    const r = (await w.api.get(`/v1/asks/${id}?wait=10`)).body.result;
    expect([r.status, r.reason]).toEqual(['no_answer', 'undelivered']);
  });
});
