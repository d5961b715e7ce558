// Typed replies on Telegram (issue 35): a reply to the question message is read by core parseReply
// in the person's language (the draft keyboard beside it changes nothing), a refused reply gets the
// repair hint and `reply_rejected` in the ask's history, and hostile strings go through as data.
import { describe, expect, it } from 'vitest';
import { botReply, visible } from './telegram-world.js';
import { askTo, dayIn, finalized, getAsk, openStep, person, replyTo, typedWorld } from './telegram-typed-world.js';
import { eventually } from '../helpers/http.js';

const world = typedWorld();
const ZONE = 'America/Sao_Paulo';

describe('typed replies to the question message', () => {
  it('a pt-BR person’s “amanhã” answers a date question on the ask’s São Paulo clocks; the outcome says what was understood', async () => {
    const w = world();
    const ana = person(w.fake, 'Ana', 'pt-br');
    const { id, ref } = await askTo(w, ana.id, [{ id: 'day', question: 'Which day?', kind: 'date' }], {
      timeZone: ZONE,
    });
    const before = dayIn(ZONE, 1);
    w.fake.say(ref.chat, 'amanhã', ana, ref.messageId);
    const done = await finalized(w, id);
    expect([before, dayIn(ZONE, 1)]).toContain(done.result.values.day);
    expect(done.result).toMatchObject({ status: 'answered', answers: { day: [done.result.values.day] } });
    expect(done.result.raw).toEqual({ day: 'amanhã' });
    const final = visible(w.fake, ref);
    expect(final.text).toMatch(/Answered: [A-Z][a-z]{2} \d{1,2}, \d{4}, from “amanhã” — by @ana_/);
    expect(final.message.reply_markup).toBeUndefined();
  });

  it('“3,5” from a pt-BR person is 3.5; the outcome shows the number', async () => {
    const w = world();
    const ana = person(w.fake, 'Ana', 'pt-br');
    const { id, ref } = await askTo(w, ana.id, [{ id: 'n', question: 'How much?', kind: 'number', unit: 'GB' }]);
    w.fake.say(ref.chat, '3,5', ana, ref.messageId);
    const done = await finalized(w, id);
    expect(done.result).toMatchObject({ values: { n: 3.5 }, answers: { n: ['3.5'] }, raw: { n: '3,5' } });
    expect(visible(w.fake, ref).text).toMatch(/Answered: 3\.5 GB — by @ana_/);
  });

  it('a refused reply gets the repair hint, `reply_rejected` in the history (never the text), and the ask stays open', async () => {
    const w = world();
    const bo = person(w.fake, 'Bo');
    const day = { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' };
    const { id, ref } = await askTo(w, bo.id, [day]);
    const guess = w.fake.say(ref.chat, 'the 5th of never', bo, ref.messageId);
    const hint = await botReply(w.fake, ref.chat, guess.message_id);
    expect(hint.text).toBe(
      'I could not read that answer. Please answer with a date between 2026-12-01 and 2026-12-31, for example 2026-12-01. Nothing has been done yet.',
    );
    const late = w.fake.say(ref.chat, '2027-01-05', bo, hint.message_id);
    const range = await botReply(w.fake, ref.chat, late.message_id);
    expect(range.text).toMatch(/^That answer is outside the allowed range\. Please answer with a date between/);
    expect((await getAsk(w, id)).status).toBe('pending');
    const history = (await w.app.store.get(id))!.history;
    expect(history.filter((h) => h.type === 'reply_rejected').map((h) => [h.questions, h.reason])).toEqual([
      [['day'], 'format'],
      [['day'], 'range'],
    ]);
    expect(JSON.stringify(history)).not.toContain('never');
    // A reply to the hint answers (it is bound to the ask).
    w.fake.say(ref.chat, 'December 24, 2026', bo, range.message_id);
    await eventually(async () => ((await getAsk(w, id)).status === 'answered' ? true : undefined));
    expect((await finalized(w, id)).result).toMatchObject({ values: { day: '2026-12-24' } });
  });
});

describe('hostile strings', () => {
  const hostile = '<b>@everyone</b> *_[x](http://e.vil)_* `c` שלום <@U1> &amp;';

  it('a hostile question and a hostile text answer: plain text, recorded literally, never echoed', async () => {
    const w = world();
    const eve = person(w.fake, 'Eve');
    const question = { id: 'note', header: '<i>H</i>', question: `Say ${hostile}?`, kind: 'text', maxLength: 200 };
    const { id, ref } = await askTo(w, eve.id, [question]);
    const shown = visible(w.fake, ref);
    expect(shown.message.parse_mode).toBeUndefined();
    expect(shown.text).toContain(`Say ${hostile}?`);
    w.fake.say(ref.chat, `secret ${hostile}`, eve, ref.messageId);
    const done = await finalized(w, id);
    expect(done.result.values).toEqual({ note: `secret ${hostile}` });
    for (const m of w.fake.chatMessages(ref.chat).filter((x) => x.from.is_bot)) expect(m.text).not.toContain('secret');
    for (const line of w.logger.lines) expect(line).not.toContain('secret');
  });

  it('a hostile reply to a number step of a draft is refused without being repeated', async () => {
    const w = world();
    const eve = person(w.fake, 'Eve');
    const questions = [
      { id: 'n', question: 'How many?', kind: 'number' },
      { id: 'note', question: 'Why?', kind: 'text' },
    ];
    const { id, ref } = await askTo(w, eve.id, questions);
    const prompt = await openStep(w.fake, ref, eve);
    const sent = w.fake.say(ref.chat, hostile, eve, prompt.message_id);
    const repair = await botReply(w.fake, ref.chat, sent.message_id);
    expect(repair.text).toBe(
      'I could not read that answer. Please answer with a number, for example 2.5. Nothing has been done yet.',
    );
    expect(repair.reply_markup).toMatchObject({ force_reply: true });
    expect((await getAsk(w, id)).status).toBe('pending');
    const why = await replyTo(w.fake, repair, eve, '-0');
    expect(why.text).toBe('Question 2 · Please answer in your own words, at most 1000 characters.');
    w.fake.say(ref.chat, `secret ${hostile}`, eve, why.message_id);
    expect((await finalized(w, id)).result).toMatchObject({ values: { n: 0, note: `secret ${hostile}` } });
    for (const m of w.fake.chatMessages(ref.chat).filter((x) => x.from.is_bot)) expect(m.text).not.toContain('secret');
  });
});
