// docs/forms-telegram.md's typed-question section is what the fake Bot API holds (issue 35): the
// draft of a choice and two typed steps, its force-reply prompts and repair, the answered message,
// and one table row per kind (its prompt, placeholder and outcome line). PRINT_MOCKUPS=1 prints them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mockup, showsButton, tapLabel } from './telegram-world.js';
import type { StoredMessage } from '../fakes/telegram-api.js';
import { askTo, finalized, openStep, placeholderOf, promptAfter, replyTo, typedWorld } from './telegram-typed-world.js';

const DOC = resolve(import.meta.dirname, '../../docs/forms-telegram.md');
const world = typedWorld();

/** The page's fenced text blocks, in order. */
const docBlocks = () => [...readFileSync(DOC, 'utf8').matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

/** A force-reply prompt as a mock-up: its text, then its input field with the placeholder. */
const promptMockup = (m: StoredMessage) => `${m.text}\n\n[ reply… ${placeholderOf(m) ?? ''} ]`;

describe('docs/forms-telegram.md shows typed steps as the fake renders them', () => {
  it('a choice, a number and a date: delivered, each step’s prompt, a repair, answered', async () => {
    const w = world();
    const alice = w.fake.addUser(95_001, 'Alice', { username: 'alice' });
    const questions = [
      {
        id: 'env',
        header: 'Env',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging' }, { label: 'Production' }],
      },
      { id: 'disk', header: 'Disk', question: 'How much disk?', kind: 'number', min: 1, max: 64, unit: 'GB' },
      { id: 'day', header: 'Day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' },
    ];
    const { id, ref } = await askTo(w, alice.id, questions, { timeZone: 'America/Sao_Paulo' });
    const shots = [mockup(w.fake, ref)];
    const count = w.fake.chatMessages(ref.chat).length;
    await tapLabel(w.fake, ref, 'Production', alice);
    const disk = await promptAfter(w.fake, ref.chat, count);
    await showsButton(w.fake, ref, '✎ Answer');
    shots.push(mockup(w.fake, ref), promptMockup(disk));
    const repair = await replyTo(w.fake, disk, alice, '100');
    shots.push(promptMockup(repair));
    const day = await replyTo(w.fake, repair, alice, '8 GB');
    shots.push(promptMockup(day));
    w.fake.say(ref.chat, 'Dec 8', alice, day.message_id);
    await finalized(w, id);
    shots.push(mockup(w.fake, ref));
    if (process.env.PRINT_MOCKUPS) console.log(shots.join('\n\n-----\n\n'));
    expect(docBlocks().slice(3, 3 + shots.length)).toEqual(shots);
  });

  it('a lone typed question: the text form, answered by a reply', async () => {
    const w = world();
    const carol = w.fake.addUser(95_002, 'Carol', { username: 'carol' });
    const question = { id: 'replicas', question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true };
    const { id, ref } = await askTo(w, carol.id, [question]);
    const shots = [mockup(w.fake, ref)];
    w.fake.say(ref.chat, '3', carol, ref.messageId);
    await finalized(w, id);
    shots.push(mockup(w.fake, ref));
    if (process.env.PRINT_MOCKUPS) console.log(shots.join('\n\n-----\n\n'));
    expect(docBlocks().slice(9, 9 + shots.length)).toEqual(shots);
  });

  it('one row per kind (as the first of two steps): the prompt, its placeholder, the outcome line', async () => {
    const w = world();
    const kinds: [string, Record<string, unknown>, string][] = [
      ['text', { maxLength: 200 }, 'Ship it on Monday'],
      ['number', { min: 1, max: 10, integer: true }, '3'],
      ['date', {}, 'December 8, 2026'],
      ['time', {}, '2:30 pm'],
      ['datetime', {}, 'Dec 8, 2026 at 14:30'],
      ['email', {}, 'ops@example.com'],
      ['url', {}, 'https://example.com/runbook'],
    ];
    const rows: string[] = [];
    for (const [kind, constraints, answer] of kinds) {
      const bob = w.fake.addUser(95_100 + rows.length, 'Bob', { username: 'bob' });
      const question = { id: 'x', header: kind, question: `A ${kind}?`, kind, ...constraints };
      const env = { id: 'env', header: 'Env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Prod' }] };
      const { id, ref } = await askTo(w, bob.id, [question, env], { timeZone: 'Europe/Berlin' });
      const prompt = await openStep(w.fake, ref, bob);
      w.fake.say(ref.chat, answer, bob, prompt.message_id);
      await showsButton(w.fake, ref, 'Staging');
      await tapLabel(w.fake, ref, 'Staging', bob);
      await finalized(w, id);
      const outcome = w.fake
        .message(ref.chat, ref.messageId)!
        .text.split('\n')
        .find((l) => l.startsWith('1. '))!;
      const cells = [kind, JSON.stringify(constraints), prompt.text, placeholderOf(prompt), answer, outcome];
      rows.push(`| ${cells.map((c) => `\`${c}\``).join(' | ')} |`);
    }
    if (process.env.PRINT_MOCKUPS) console.log(rows.join('\n'));
    const doc = readFileSync(DOC, 'utf8');
    for (const row of rows) expect(doc).toContain(row);
  });
});
