// WhatsApp prompts answered by typed replies: approvals, several questions (with a partial answer
// and the prompt for the rest), Skip, and a message without a reply context in the private chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { buttonReply, inboundMessage, textReply } from '../fakes/whatsapp-api.js';
import {
  ALICE_WA,
  askWithPrompt,
  repliesTo,
  resultOf,
  startWhatsAppWorld,
  type WhatsAppWorld,
} from './whatsapp-world.js';

let w: WhatsAppWorld;
beforeAll(async () => {
  w = await startWhatsAppWorld();
}, 30_000);
afterAll(async () => {
  await w?.close();
});

const result = (id: string) => resultOf(w, id);
const ask = (body: Record<string, unknown>) => askWithPrompt(w, body);
const say = (text: string, context?: string) =>
  w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, textReply(text, context)));

describe('WhatsApp typed replies', () => {
  it('an approval is decided by a typed reply to it', async () => {
    const { id, prompt } = await ask({
      approval: { action: 'deploy', summary: 'Deploy v2 to production', arguments: { service: 'api' } },
    });
    const text = prompt.body.type === 'text' ? prompt.body.text.body : prompt.body.interactive.body.text;
    expect(text).toContain('deploy');
    expect((await say('approve', prompt.id)).status).toBe(200);
    expect(await result(id)).toMatchObject({ status: 'answered', decision: 'approve' });
  });

  it("an approval's Reject… row says how to give the reason; a reply to that hint decides", async () => {
    const { id, prompt } = await ask({ approval: { action: 'deploy', arguments: { service: 'api' } } });
    const rows = prompt.body.interactive.action.sections[0].rows;
    const reject = rows.find((r: any) => r.title.startsWith('Reject'));
    const tap = inboundMessage(ALICE_WA, buttonReply(prompt.id, reject.id)) as any;
    await w.wa.deliver(w.webhook, tap);
    const why = await eventually(async () => repliesTo(w, tap.messages[0].id)[0]);
    expect(why.body.text.body).toMatch(/reject:/);
    await say('reject: too risky today', why.id);
    expect(await result(id)).toMatchObject({ status: 'answered', decision: 'reject' });
  });

  it('Skip is a button that skips', async () => {
    const { id, prompt } = await ask({
      questions: [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }],
    });
    const skip = prompt.body.interactive.action.buttons.find((b: any) => b.reply.title === 'Skip');
    await w.wa.deliver(w.webhook, inboundMessage(ALICE_WA, buttonReply(prompt.id, skip.reply.id)));
    expect(await result(id)).toMatchObject({ status: 'no_answer', reason: 'skipped' });
  });

  it('several questions: a partial reply gets the prompt for the rest, and a reply to that prompt completes it', async () => {
    const { id, prompt } = await ask({
      questions: [
        { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
        { id: 'when', question: 'When?', kind: 'date' },
      ],
    });
    expect(prompt.body.type).toBe('text');
    expect(prompt.body.text.body).toContain('Question 2');
    const partial = inboundMessage(ALICE_WA, textReply('2', prompt.id)) as any;
    await w.wa.deliver(w.webhook, partial);
    const rest = await eventually(async () => repliesTo(w, partial.messages[0].id)[0]);
    expect(rest.body.text.body).toContain('When?');
    await say('2031-05-04', rest.id);
    expect((await result(id)).values).toEqual({ env: ['Production'], when: '2031-05-04' });
  });

  it('a message without a reply context answers the open ask of that private chat', async () => {
    const { id } = await ask({
      questions: [{ id: 'name', question: 'Release name?', kind: 'text' }],
    });
    await say('Aurora');
    expect(await result(id)).toMatchObject({ status: 'answered', answers: { name: ['Aurora'] } });
  });
});
