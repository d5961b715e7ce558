import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import type { FakeMessage } from '../fakes/slack-api.js';
import { finalMessage, openModal, record, result, startWorld, type FormsWorld } from './slack-forms-world.js';
import { askWith, historyOf } from './slack-typed-world.js';

// Issue 35 on Slack: typed questions answered by a thread reply go through core's parseReply, read in
// the ask's language (Slack tells askgate nothing of the person's); a refused reply is repaired in
// the thread, the ask stays pending and its history says which question and why (never the text).

const ALICE = 'U0001';
let w: FormsWorld;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

/** Replies `text` in the ask's thread as `user`. */
async function reply(message: FakeMessage, text: string, user = ALICE): Promise<void> {
  const res = await w.slack.postEvent(
    w.slack.messageEvent({ channel: message.channel, user, text, threadTs: message.ts }),
  );
  expect(res.status).toBe(200);
}

/** askgate's thread replies under `message` beyond the first `before`, waiting for one more. */
async function nextThreadReply(message: FakeMessage, before: number): Promise<string> {
  const inThread = () =>
    w.fake.callsOf('chat.postMessage').filter((c) => c.params.thread_ts === message.ts && !c.params.blocks);
  return String((await until(() => inThread()[before])).params.text);
}
const threadReplies = (message: FakeMessage) =>
  w.fake.callsOf('chat.postMessage').filter((c) => c.params.thread_ts === message.ts && !c.params.blocks).length;

describe('Slack typed questions answered by a thread reply', () => {
  it('a pt-BR number reply "3,5" is 3.5, kept with what was written; the outcome shows it the pt-BR way', async () => {
    const { id, message } = await askWith(w, 'reply-number', {
      locale: 'pt-BR',
      questions: [{ id: 'n', header: 'Disco', question: 'Quantos GB?', kind: 'number', unit: 'GB' }],
    });
    await reply(message, '3,5');
    expect(await result(w, id)).toMatchObject({
      status: 'answered',
      answers: { n: ['3.5'] },
      values: { n: 3.5 },
      raw: { n: '3,5' },
    });
    expect((await finalMessage(w, id, message)).text).toContain('3,5 GB');
  });

  it('a dot before three digits is a group in pt-BR when typed, a decimal in the number input', async () => {
    const questions = [{ id: 'n', question: 'Quanto?', kind: 'number' }];
    const typed = await askWith(w, 'reply-group', { locale: 'pt-BR', questions });
    await reply(typed.message, '1.234');
    expect(await result(w, typed.id)).toMatchObject({ values: { n: 1234 }, raw: { n: '1.234' } });
    // Slack's number_input writes numbers its own way ("0.25", "5.5"): askgate reads its value strictly.
    const picked = await askWith(w, 'modal-decimal', { locale: 'pt-BR', questions });
    const view = await openModal(w, picked.message, ALICE, 'Responder');
    await w.slack.submitView(view, { askgate_v1: '1.234' });
    const r = await result(w, picked.id);
    expect(r.values).toEqual({ n: 1.234 });
    expect(r.raw).toBeUndefined();
  });

  it('a date reply: in the locale numeric order, or with a month name (then the outcome says what was understood)', async () => {
    const questions = [{ id: 'd', header: 'Dia', question: 'Que dia?', kind: 'date' }];
    const numeric = await askWith(w, 'reply-date', { locale: 'pt-BR', questions });
    await reply(numeric.message, '08/12/2026');
    expect(await result(w, numeric.id)).toMatchObject({
      values: { d: '2026-12-08' },
      raw: { d: '08/12/2026' },
    });
    const named = await askWith(w, 'reply-date-named', {
      questions: [{ id: 'd', header: 'Day', question: 'Which day?', kind: 'date' }],
    });
    await reply(named.message, 'December 8, 2026');
    expect(await result(w, named.id)).toMatchObject({ values: { d: '2026-12-08' }, raw: { d: 'December 8, 2026' } });
    expect((await finalMessage(w, named.id, named.message)).text).toMatch(/2026, from “December 8, 2026”/);
  });

  it('a refused reply gets the repair hint in the thread; the ask stays pending; the history names the question and why', async () => {
    const { id, message } = await askWith(w, 'reply-refused', {
      questions: [
        { id: 'n', header: 'Replicas', question: 'How many replicas?', kind: 'number', integer: true, max: 10 },
      ],
    });
    let before = threadReplies(message);
    await reply(message, 'a dozen please');
    const hint = await nextThreadReply(message, before);
    expect(hint).toBe(
      'I could not read that answer. Please answer with a whole number up to 10, for example 10. Nothing has been done yet.',
    );
    before = threadReplies(message);
    await reply(message, '12');
    expect(await nextThreadReply(message, before)).toMatch(/^That answer is outside the allowed range\. Please answer/);
    expect((await record(w, id)).status).toBe('pending');
    const rejected = (await historyOf(w, id)).filter((h) => h.type === 'reply_rejected');
    expect(rejected.map((h) => [h.questions, h.reason, h.userId])).toEqual([
      [['n'], 'format', ALICE],
      [['n'], 'range', ALICE],
    ]);
    // Who and why, never what was written.
    for (const h of rejected)
      expect(Object.keys(h).sort()).toEqual(['at', 'channel', 'questions', 'reason', 'type', 'userId']);
    await reply(message, '7');
    expect(await result(w, id)).toMatchObject({ status: 'answered', values: { n: 7 } });
  });

  it('a partial reply keeps its typed answer; a refused line for the other names that question', async () => {
    const { id, message } = await askWith(w, 'reply-partial', {
      questions: [
        { id: 'n', question: 'How many?', kind: 'number' },
        { id: 'd', question: 'Which day?', kind: 'date' },
      ],
    });
    let before = threadReplies(message);
    await reply(message, '3.5');
    expect(await nextThreadReply(message, before)).toContain('2. Which day?');
    before = threadReplies(message);
    await reply(message, 'someday');
    expect(await nextThreadReply(message, before)).toContain('I could not read that answer. Please answer with a date');
    const rejected = (await historyOf(w, id)).filter((h) => h.type === 'reply_rejected');
    expect(rejected.map((h) => h.questions)).toEqual([['d']]);
    expect((await record(w, id)).status).toBe('pending');
    await reply(message, '2026-12-08');
    expect(await result(w, id)).toMatchObject({ values: { n: 3.5, d: '2026-12-08' } });
  });
});
