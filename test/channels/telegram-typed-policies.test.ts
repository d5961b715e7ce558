// Typed questions on Telegram's draft with the ask's policies (issue 35): a timeout takes the typed
// default (a reply to a step's prompt after it is told the ask ended), and an ask that needs two
// matching answers compares the numbers each person typed in their own language.
import { describe, expect, it } from 'vitest';
import { botReply, keyboardRows, showsButton, tapLabel, visible } from './telegram-world.js';
import { askTo, finalized, getAsk, openStep, person, typedWorld } from './telegram-typed-world.js';
import { eventually } from '../helpers/http.js';

const world = typedWorld();

describe('policies with typed draft steps', () => {
  it('a timeout takes the typed default; a reply to the step’s prompt afterwards changes nothing', async () => {
    const w = world();
    const cy = person(w.fake, 'Cy');
    const questions = [
      { id: 'n', question: 'How many replicas?', kind: 'number', min: 1, integer: true },
      { id: 'why', question: 'Why?', kind: 'text' },
    ];
    const onTimeout = { default: { n: 2, why: 'default' } };
    const { id, ref } = await askTo(w, cy.id, questions, { timeoutSeconds: 1, onTimeout });
    const prompt = await openStep(w.fake, ref, cy);
    const done = await finalized(w, id);
    expect(done.result).toMatchObject({ status: 'no_answer', reason: 'timeout', values: { n: 2, why: 'default' } });
    const final = visible(w.fake, ref);
    expect(final.message.reply_markup).toBeUndefined();
    expect(final.text).toMatch(
      /\n\nNo answer in time: the defaults were taken\n1\. How many replicas\?: 2\n2\. Why\?: their own words$/,
    );
    const late = w.fake.say(ref.chat, '5', cy, prompt.message_id);
    const told = await botReply(w.fake, ref.chat, late.message_id);
    expect(told.reply_markup).toBeUndefined();
    expect(told.text).toMatch(/^This question expired at .*; the defaults were taken$/);
    expect((await getAsk(w, id)).result).toMatchObject({ status: 'no_answer', values: { n: 2 } });
  });

  it('agree 2 with a number: each person answers their own draft (no Skip); “3,5” in pt-BR and “3.50” agree', async () => {
    const w = world();
    const chat = -1_009_351;
    w.fake.addGroup(chat, 'Agree typed');
    const [ann, ben] = [person(w.fake, 'Ann', 'pt-br'), person(w.fake, 'Ben')];
    const questions = [
      { id: 'n', header: 'Memory', question: 'How much memory?', kind: 'number', unit: 'GB' },
      { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] },
    ];
    const { id, ref } = await askTo(w, chat, questions, { agree: 2 });
    expect(keyboardRows(w.fake, ref)).toEqual([['Question 1 of 2 · Memory'], ['✎ Answer']]);
    const annPrompt = await openStep(w.fake, ref, ann);
    expect(annPrompt.text).toMatch(/^Pergunta 1 · Por favor, responda com um número em GB, por exemplo /);
    w.fake.say(chat, '3,5', ann, annPrompt.message_id);
    await showsButton(w.fake, ref, 'Staging');
    expect(await tapLabel(w.fake, ref, 'Staging', ann)).toBe(
      'Sua resposta foi registrada: 1 de 2 respostas iguais até agora.',
    );
    await eventually(async () => ((await getAsk(w, id)).responses?.length === 1 ? true : undefined));
    expect((await getAsk(w, id)).status).toBe('pending');
    // The draft starts afresh for the next person, with no hold.
    await showsButton(w.fake, ref, '✎ Answer');
    const benPrompt = await openStep(w.fake, ref, ben);
    w.fake.say(chat, '3.50 GB', ben, benPrompt.message_id);
    await showsButton(w.fake, ref, 'Staging');
    await tapLabel(w.fake, ref, 'Staging', ben);
    const done = await finalized(w, id);
    expect(done.result).toMatchObject({ status: 'answered', values: { n: 3.5, env: ['Staging'] } });
    expect(done.result.responses).toHaveLength(2);
    expect(visible(w.fake, ref).text).toMatch(/3\.5 GB/);
  });
});
