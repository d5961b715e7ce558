// WhatsApp status webhooks as delivery events: a `failed` one (131047 after an accepted send) fails
// the delivery and ends a single-target ask `undelivered` at once; with fan-out the ask stays
// pending; `delivered` and `read` show once each in the ask's events, however often Meta re-sends
// them; a status of a message askgate does not know changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { buttonReply, inboundMessage, statusUpdate } from '../fakes/whatsapp-api.js';
import { ALICE, ALICE_WA, repliesTo, sentWithId, startWhatsAppWorld, type WhatsAppWorld } from './whatsapp-world.js';

const single = {
  questions: [
    { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
  ],
};

let w: WhatsAppWorld;
const other = new RecordingChannel('test');
beforeAll(async () => {
  w = await startWhatsAppWorld({}, [other]);
}, 30_000);
afterAll(async () => {
  await w?.close();
});

/** Asks on `to` and waits until every delivery settled; returns the id and the WhatsApp prompt's wamid. */
async function ask(to: object | object[]): Promise<{ id: string; runId: string; prompt: string }> {
  const before = w.wa.sent.length;
  const runId = `run-${Math.random().toString(36).slice(2)}`;
  const res = await w.api.post('/v1/asks', { runId, ...single, to });
  expect(res.status).toBe(201);
  await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries.every((d: any) => d.status !== 'pending');
  });
  const prompt = w.wa.sent.slice(before).find((m) => m.body.context === undefined)!;
  return { id: res.body.id, runId, prompt: prompt.id };
}
const sentPrompt = (id: string) => sentWithId(w, id);
const get = async (id: string) => (await w.api.get(`/v1/asks/${id}`)).body;
const events = async (id: string): Promise<any[]> => {
  const res = await w.api.get(`/v1/asks/${id}/events`);
  expect(res.status).toBe(200);
  return res.body.events;
};
const status = async (id: string, s: string, code?: number, title?: string) =>
  (await w.wa.deliver(w.webhook, statusUpdate(id, ALICE_WA, s, code, title))).status;

describe('WhatsApp statuses become delivery events', () => {
  it('failed with 131047 after an accepted send ends a single-target ask undelivered (window_closed) at once', async () => {
    const { id, runId, prompt } = await ask({ channel: 'whatsapp', chat: ALICE });
    expect((await get(id)).deliveries[0].status).toBe('sent');
    const started = Date.now();
    expect(await status(prompt, 'failed', 131047)).toBe(200);
    const r = (await w.api.get(`/v1/asks/${id}?wait=10`)).body;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.status).toBe('no_answer');
    expect(r.result.reason).toBe('undelivered');
    expect(r.deliveries[0]).toMatchObject({ status: 'failed', error: 'window_closed' });
    const types = (await events(id)).map((e) => [e.type, e.detail ?? e.reason]);
    expect(types.slice(-2)).toEqual([
      ['delivery_failed', 'window_closed'],
      ['no_answer', 'undelivered'],
    ]);
    // The run's events show it too.
    const run = (await w.api.get(`/v1/runs/${runId}/events`)).body;
    expect(JSON.stringify(run.events)).toContain('window_closed');
    // Nothing is replied to a message that never arrived, and a re-sent failure changes nothing.
    await sleep(300);
    expect(repliesTo(w, prompt)).toHaveLength(0);
    const before = (await events(id)).length;
    expect(await status(prompt, 'failed', 131047)).toBe(200);
    expect(await events(id)).toHaveLength(before);
  });

  it('another failure keeps the Graph code and title, shortened; with fan-out the ask stays pending', async () => {
    const { id, prompt } = await ask([
      { channel: 'whatsapp', chat: ALICE },
      { channel: 'test', chat: 'ops' },
    ]);
    const title = 'Message undeliverable because the recipient phone number is not a WhatsApp number at all';
    expect(await status(prompt, 'failed', 131026, title)).toBe(200);
    const r = await eventually(async () => {
      const a = await get(id);
      return a.deliveries[0].status === 'failed' && a;
    });
    expect(r.status).toBe('pending');
    expect(r.deliveries[0].error).toMatch(/^error 131026: Message undeliverable/);
    expect(r.deliveries[0].error.length).toBeLessThanOrEqual(80);
    expect(r.deliveries[1].status).toBe('sent');
    // The other channel still answers it.
    const answered = await w.api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Staging'] } });
    expect(answered.status).toBeLessThan(300);
    expect((await get(id)).status).toBe('answered');
  });

  it('delivered and read appear once each, however often the webhook is re-sent; sent adds nothing', async () => {
    const { id, prompt } = await ask({ channel: 'whatsapp', chat: ALICE });
    const before = (await events(id)).length;
    for (let round = 0; round < 3; round++)
      for (const s of ['sent', 'delivered', 'read']) expect(await status(prompt, s)).toBe(200);
    expect(await status(prompt, 'delivered')).toBe(200); // late and out of order
    const added = (await events(id)).slice(before);
    expect(added.map((e) => [e.type, e.channel, e.detail])).toEqual([
      ['delivery_status', 'whatsapp', 'delivered'],
      ['delivery_status', 'whatsapp', 'read'],
    ]);
    const a = await get(id);
    expect(a.status).toBe('pending');
    expect(a.deliveries[0]).toMatchObject({ status: 'sent', reached: 'read' });
    // A tap still answers it, and the outcome still goes out as a reply.
    const button = sentPrompt(prompt).body.interactive.action.buttons[1].reply.id;
    expect((await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, buttonReply(prompt, button)))).status).toBe(200);
    expect((await w.api.get(`/v1/asks/${id}?wait=10`)).body.result.answers).toEqual({ env: ['Production'] });
    await eventually(async () => repliesTo(w, prompt).length === 1);
  });

  it('a status of a message askgate does not know (or of its own outcome reply) changes nothing', async () => {
    const { id, prompt } = await ask({ channel: 'whatsapp', chat: ALICE });
    await w.api.post(`/v1/asks/${id}/answer`, { answers: { env: ['Production'] } });
    const reply = await eventually(async () => repliesTo(w, prompt)[0]);
    const before = await get(id);
    const history = await events(id);
    for (const unknown of ['wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA', reply.id])
      for (const s of ['delivered', 'read', 'failed'])
        expect(await status(unknown, s, s === 'failed' ? 131047 : undefined)).toBe(200);
    // A status without a recipient or of an unknown kind is acknowledged and skipped.
    const odd = {
      statuses: [
        { id: prompt, status: 'deleted', timestamp: '1' },
        { id: prompt, status: 'read' },
      ],
    };
    expect((await w.wa.deliver(w.webhook, odd)).status).toBe(200);
    await sleep(200);
    expect(await get(id)).toEqual(before);
    expect(await events(id)).toEqual(history);
  });
});
