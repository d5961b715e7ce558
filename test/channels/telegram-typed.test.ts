// Typed questions answered on Telegram's draft (issue 35), end to end through grammy against the
// fake Bot API on a real Redis: each kind's step asks with a force-reply prompt stating the expected
// form, a reply is read in the person's language, an invalid one is repaired, Back/Next/Skip work.
import { describe, expect, it } from 'vitest';
import { keyboardRows, showsButton, tapLabel, visible, withoutDeadline } from './telegram-world.js';
import {
  askTo,
  dayIn,
  finalized,
  getAsk,
  openStep,
  person,
  placeholderOf,
  promptAfter,
  replyTo,
  typedWorld,
} from './telegram-typed-world.js';
import { eventually } from '../helpers/http.js';

const world = typedWorld();

const ZONE = 'America/Sao_Paulo';
const env = { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] };

describe('each typed kind as a draft step: ✎ Answer, a force-reply prompt with the expected form, the reply recorded', () => {
  it.each([
    [
      'text',
      { maxLength: 40 },
      'ship it <b>now</b>',
      'ship it <b>now</b>',
      /^1\. text: their own words$/m,
      'Your answer',
    ],
    ['number', { min: 1, max: 10, unit: 'GB' }, '7 GB', 7, /^1\. number: 7 GB$/m, '2.5 GB'],
    [
      'date',
      { min: '2026-12-01', max: '2026-12-31' },
      '2026-12-08',
      '2026-12-08',
      /^1\. date: Dec 8, 2026$/m,
      '2026-12-01',
    ],
    ['time', {}, '2:30 pm', '14:30', /^1\. time: 2:30 PM, from “2:30 pm”$/m, '14:30'],
    [
      'datetime',
      {},
      '2026-12-08T14:30',
      '2026-12-08T14:30:00-03:00',
      /^1\. datetime: Dec 8, 2026, 2:30/m,
      'YYYY-MM-DD HH:MM',
    ],
    ['email', {}, 'Ops@Example.com', 'Ops@example.com', /^1\. email: their own words$/m, 'name@example.com'],
    [
      'url',
      {},
      'https://example.com/private',
      'https://example.com/private',
      /^1\. url: their own words$/m,
      'https://',
    ],
  ])('%s', async (kind, constraints, text, value, shown, placeholder) => {
    const w = world();
    const user = person(w.fake, 'Kind');
    const question = { id: 'x', header: kind, question: `Your ${kind}?`, kind, ...constraints };
    const { id, ref } = await askTo(w, user.id, [question, env], { timeZone: ZONE });
    expect(keyboardRows(w.fake, ref)).toEqual([[`Question 1 of 2 · ${kind}`], ['✎ Answer', 'Skip']]);
    expect(visible(w.fake, ref).text).toContain('Tap to answer, or reply to this message.');
    const prompt = await openStep(w.fake, ref, user);
    expect(prompt.reply_to).toBe(Number(ref.messageId));
    expect(prompt.text).toMatch(/^Question 1 · Please answer /);
    expect(placeholderOf(prompt)).toContain(placeholder);
    w.fake.say(ref.chat, text, user, prompt.message_id);
    await showsButton(w.fake, ref, 'Question 2 of 2 · Env');
    expect(await tapLabel(w.fake, ref, 'Staging', user)).toBe('Answer recorded');
    const done = await finalized(w, id);
    expect(done.result).toMatchObject({ status: 'answered', values: { x: value, env: ['Staging'] } });
    const final = visible(w.fake, ref);
    expect(final.message.reply_markup).toBeUndefined();
    expect(final.text).toMatch(shown);
    if (['text', 'email', 'url'].includes(kind)) {
      // Never echoed: not in the outcome, nor in any message the bot sent.
      for (const m of w.fake.chatMessages(ref.chat).filter((x) => x.from.is_bot))
        expect(m.text.toLowerCase()).not.toContain(String(value).toLowerCase());
    }
  });

  it('a lone typed question has no draft: the message asks for a reply, which answers it', async () => {
    const w = world();
    const user = person(w.fake, 'Lone');
    const { id, ref } = await askTo(w, user.id, [{ id: 'n', question: 'How many GB?', kind: 'number', unit: 'GB' }]);
    const shown = visible(w.fake, ref);
    expect(shown.message.reply_markup).toBeUndefined();
    expect(shown.text).toMatch(/\n\nOpen until .+ \(UTC\)\n\n/);
    expect(withoutDeadline(shown.message)).toBe(
      'How many GB?\n\nType your answer and reply to this message; send "skip" to skip. Please answer with a number in GB, for example 2.5 GB.',
    );
    w.fake.say(ref.chat, '12 gb', user, ref.messageId);
    expect((await finalized(w, id)).result).toMatchObject({ values: { n: 12 }, raw: { n: '12 gb' } });
  });
});

describe('a draft of a choice and two typed steps', () => {
  it('reaching a typed step asks for it in the person’s language; an invalid reply keeps it open and says what was expected; the last reply submits', async () => {
    const w = world();
    const ana = person(w.fake, 'Ana', 'pt-br');
    const questions = [
      env,
      { id: 'n', header: 'Size', question: 'How much?', kind: 'number', min: 1, max: 10 },
      { id: 'day', header: 'Day', question: 'When?', kind: 'date' },
    ];
    const { id, ref } = await askTo(w, ana.id, questions, { timeZone: ZONE });
    const count = w.fake.chatMessages(ref.chat).length;
    expect(await tapLabel(w.fake, ref, 'Production', ana)).toBe('');
    // The pick moves on to the number step, which asks for its value at once.
    await showsButton(w.fake, ref, 'Question 2 of 3 · Size');
    const asked = await promptAfter(w.fake, ref.chat, count);
    expect(asked.text).toMatch(/^Pergunta 2 · Por favor, responda com um número entre 1 e 10, por exemplo /);
    expect(keyboardRows(w.fake, ref)).toEqual([['Question 2 of 3 · Size'], ['✎ Answer', 'Skip'], ['« Back']]);

    const repair = await replyTo(w.fake, asked, ana, 'muitos');
    expect(repair.text).toBe(
      'Não consegui ler essa resposta. Por favor, responda com um número entre 1 e 10, por exemplo 2,5. Nada foi feito ainda.',
    );
    expect(placeholderOf(repair)).toBeDefined();
    const outOfRange = await replyTo(w.fake, repair, ana, '11');
    expect(outOfRange.text).toMatch(/^Essa resposta está fora do intervalo permitido\./);
    expect((await getAsk(w, id)).status).toBe('pending');
    expect(keyboardRows(w.fake, ref)[1]).toEqual(['✎ Answer', 'Skip']);

    const dayPrompt = await replyTo(w.fake, outOfRange, ana, '3,5');
    expect(dayPrompt.text).toMatch(/^Pergunta 3 · Por favor, responda com uma data/);
    await showsButton(w.fake, ref, 'Question 3 of 3 · Day');
    const before = dayIn(ZONE, 1);
    w.fake.say(ref.chat, 'amanhã', ana, dayPrompt.message_id);
    const done = await finalized(w, id);
    expect([before, dayIn(ZONE, 1)]).toContain(done.result.values.day);
    expect(done.result).toMatchObject({
      status: 'answered',
      values: { env: ['Production'], n: 3.5 },
      raw: { n: '3,5', day: 'amanhã' },
    });
    expect(visible(w.fake, ref).text).toMatch(
      /\n2\. Size: 3\.5\n3\. Day: [A-Z][a-z]{2} \d{1,2}, \d{4}, from “amanhã”$/,
    );
    // A refused step reply submits nothing; the history notes it (question and reason, never the text).
    const history = (await w.app.store.get(id))!.history;
    expect(history.map((h) => h.type)).toEqual([
      'created',
      'delivered',
      'reply_rejected',
      'reply_rejected',
      'answered',
      'finalized',
    ]);
    expect(history.filter((h) => h.type === 'reply_rejected').map((h) => [h.questions, h.reason])).toEqual([
      [['n'], 'format'],
      [['n'], 'range'],
    ]);
    expect(JSON.stringify(history)).not.toContain('muitos');
  });

  it('Back and Next keep working: an answered typed step shows ✓, asks nothing again, and Submit sends the draft', async () => {
    const w = world();
    const bo = person(w.fake, 'Bo');
    const questions = [
      { id: 'n', question: 'How many?', kind: 'number', integer: true },
      { ...env, multiSelect: true },
    ];
    const { id, ref } = await askTo(w, bo.id, questions);
    const prompt = await openStep(w.fake, ref, bo);
    expect(prompt.text).toMatch(/^Question 1 · Please answer with a whole number, for example /);
    w.fake.say(ref.chat, '4', bo, prompt.message_id);
    await showsButton(w.fake, ref, '☐ Staging');
    await tapLabel(w.fake, ref, '☐ Staging', bo);
    await showsButton(w.fake, ref, '☑ Staging');
    const count = w.fake.chatMessages(ref.chat).length;
    expect(await tapLabel(w.fake, ref, '« Back', bo)).toBe('');
    await showsButton(w.fake, ref, '✎ Answer ✓');
    expect(keyboardRows(w.fake, ref)).toEqual([['Question 1 of 2'], ['✎ Answer ✓', 'Skip'], ['Next »']]);
    expect(await tapLabel(w.fake, ref, 'Next »', bo)).toBe('');
    await showsButton(w.fake, ref, '☑ Staging');
    // Coming back to an answered typed step sent no prompt.
    expect(w.fake.chatMessages(ref.chat).length).toBe(count);
    expect(await tapLabel(w.fake, ref, 'Submit', bo)).toBe('Answer recorded');
    expect((await finalized(w, id)).result).toMatchObject({ values: { n: 4, env: ['Staging'] } });
  });

  it('Skip on a typed step skips the ask; a reply to the question message still answers it whole', async () => {
    const w = world();
    const cy = person(w.fake, 'Cy');
    const first = await askTo(w, cy.id, [{ id: 'n', question: 'How many?', kind: 'number' }, env]);
    await openStep(w.fake, first.ref, cy);
    expect(await tapLabel(w.fake, first.ref, 'Skip', cy)).toBe('Skip recorded');
    expect((await finalized(w, first.id)).result).toMatchObject({ status: 'no_answer', reason: 'skipped' });

    const second = await askTo(w, cy.id, [env, { id: 'n', question: 'How many?', kind: 'number' }]);
    w.fake.say(second.ref.chat, 'Staging\n1,000.5', cy, second.ref.messageId);
    const done = await finalized(w, second.id);
    expect(done.result).toMatchObject({ values: { env: ['Staging'], n: 1000.5 } });
  });

  it('a prompt reply from someone else while the draft is held changes nothing', async () => {
    const w = world();
    const chat = -1_009_350;
    w.fake.addGroup(chat, 'Typed group');
    const [dee, eve] = [person(w.fake, 'Dee'), person(w.fake, 'Eve')];
    const { id, ref } = await askTo(w, chat, [{ id: 'n', question: 'How many?', kind: 'number' }, env]);
    const prompt = await openStep(w.fake, ref, dee);
    w.fake.say(chat, '5', eve, prompt.message_id);
    await eventually(async () =>
      w.fake
        .chatMessages(chat)
        .find((m) => m.from.is_bot && m.text.startsWith(`@dee_`) && m.text.includes('answering')),
    );
    expect((await getAsk(w, id)).status).toBe('pending');
    w.fake.say(chat, '6', dee, prompt.message_id);
    await showsButton(w.fake, ref, 'Production');
    expect(await tapLabel(w.fake, ref, 'Production', dee)).toBe('Answer recorded');
    expect((await finalized(w, id)).result).toMatchObject({
      values: { n: 6, env: ['Production'] },
      answeredBy: { userId: String(dee.id) },
    });
  });
});
