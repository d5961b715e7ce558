import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComponentType } from 'discord.js';
import { RecordingSink } from '../contracts/channel.contract.js';
import { until, waitFor } from '../helpers/wait.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import { modalErrors, modalText, storeModal, submission } from '../fakes/discord-modals.js';
import { user } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { FORM_DOES_NOT_FIT, OPEN_TOO_SLOW } from '../../src/channels/discord/forms.js';
import { formModal, modalProblems, ownWordsModal } from '../../src/channels/discord/modal.js';
import { readModal, SHARED_OWN_UNCLEAR, splitShared } from '../../src/channels/discord/modal-read.js';
import { renderPrompt, visibleText } from '../../src/channels/discord/render.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import { DISCORD_CAPABILITIES } from '../../src/channels/discord/capabilities.js';
import type { FormOpening } from '../../src/core/ports.js';
import type { Question } from '../../src/core/schemas.js';

const quiet = { info() {}, warn() {}, error() {} };
const alice = user('411111111111111111', 'alice', 'Alice');

const q = (n: number, options: number, multiSelect: boolean, size: 'short' | 'long' | 'hostile'): Question => ({
  id: `q${n}`,
  ...(size === 'long' ? { header: 'H'.repeat(60) } : {}),
  question:
    size === 'long' ? 'Why '.repeat(250).slice(0, 1000) : size === 'hostile' ? '@everyone <@1> **x**\n\n# h' : `Q${n}?`,
  multiSelect,
  options: Array.from({ length: options }, (_, i) => ({
    label: size === 'long' ? `${i}${'👩‍👩‍👧'.repeat(12)}xyz` : size === 'hostile' ? `<@&${i}> \u202E${i}` : `O${i}`,
    ...(size === 'long' ? { description: 'd'.repeat(300) } : {}),
  })),
});
const view = (questions: Question[]): PromptView => buildPromptView({ id: 'FormsAsk00000001', version: 2, questions });

describe('Discord modals: what askgate builds, what the fake (as Discord) accepts', () => {
  it('every shape (1–3 questions × 2–4 options × single/multi × short/long/hostile) builds a modal Discord accepts', () => {
    for (const count of [1, 2, 3])
      for (const options of [2, 3, 4])
        for (const multi of [false, true])
          for (const size of ['short', 'long', 'hostile'] as const) {
            const v = view(Array.from({ length: count }, (_, i) => q(i + 1, options, multi, size)));
            const json = formModal(v, 'FormsAsk00000001.2.f')!.toJSON();
            expect(modalErrors(json)).toBeNull();
            expect(modalProblems(json)).toEqual([]);
            expect(json.components).toHaveLength(count === 3 ? 4 : count * 2);
            const own = ownWordsModal(v, 'FormsAsk00000001.2.o');
            if (count === 1) expect(modalErrors(own!.toJSON())).toBeNull();
            else expect(own).toBeNull();
            expect(renderPrompt(v).components).toHaveLength(v.buttons ? 2 : 1);
          }
  });

  it('a prompt whose modal cannot fit (5 questions: 6 components) keeps the text form, no Answer button', () => {
    const fiveQuestions = Array.from({ length: 5 }, (_, i) => q(i + 1, 2, false, 'short'));
    const five = view(fiveQuestions);
    expect(formModal(five, five.form!.open)).toBeNull();
    // The view as askgate builds it for Discord: core finds the modal does not fit its capabilities.
    const forDiscord = buildPromptView(
      { id: 'FormsAsk00000001', version: 2, questions: fiveQuestions },
      undefined,
      DISCORD_CAPABILITIES,
    );
    const message = renderPrompt(forDiscord);
    expect(message.components).toEqual([]);
    expect(visibleText(message.content)).toContain(five.instructions);
    expect(visibleText(message.content)).not.toContain('Tap Answer');
  });

  it('an ask that needs several matching answers gets Answer without Skip', () => {
    const v = buildPromptView({
      id: 'FormsAsk00000002',
      version: 1,
      questions: [q(1, 2, true, 'short')],
      policy: { agree: 2 } as never,
    });
    const labels = renderPrompt(v).components.flatMap((r) => r.components.map((b) => b.label));
    expect(labels).toEqual(['Answer']);
  });

  it("the controls and the own-words hints follow the ask's locale", () => {
    const de = buildPromptView({
      id: 'FormsAsk00000003',
      version: 1,
      questions: [q(1, 2, true, 'short')],
      locale: 'de',
    });
    expect(renderPrompt(de).components[0]!.components.map((b) => b.label)).toEqual(['Antworten', 'Überspringen']);
    const json = formModal(de, de.form!.open)!.toJSON() as any;
    expect(json.title).toBe('Deine Antwort');
    expect(json.components[1]).toMatchObject({ label: 'Eigene Worte', component: { type: 4 } });
    expect(json.components[1].description).toBe('Zusätzlich zu den Optionen oder statt ihrer');
    expect(modalErrors(json)).toBeNull();
  });

  it('the fake refuses what Discord refuses in a modal', () => {
    const ok = formModal(view([q(1, 3, true, 'short'), q(2, 2, false, 'short')]), 'x')!.toJSON() as any;
    const label = (component: object, extra: object = {}) => ({ type: 18, label: 'L', component, ...extra });
    const radio = (id: string, n = 2) => ({
      type: 21,
      custom_id: id,
      options: Array.from({ length: n }, (_, i) => ({ value: `${i}`, label: `o${i}` })),
    });
    const bad: [object, string][] = [
      [{ ...ok, components: Array.from({ length: 6 }, (_, i) => label(radio(`r${i}`))) }, 'data.components'],
      [{ ...ok, components: [] }, 'data.components'],
      [{ ...ok, title: 't'.repeat(46) }, 'data.title'],
      [{ ...ok, custom_id: 'c'.repeat(101) }, 'data.custom_id'],
      [{ ...ok, components: [label(radio('a'), { label: 'l'.repeat(46) })] }, 'data.components.0.label'],
      [{ ...ok, components: [label(radio('a'), { description: 'd'.repeat(101) })] }, 'data.components.0.description'],
      [{ ...ok, components: [label(radio('a', 1))] }, 'data.components.0.component.options'],
      [{ ...ok, components: [label(radio('a', 11))] }, 'data.components.0.component.options'],
      [{ ...ok, components: [label(radio('a')), label(radio('a'))] }, 'data.components.1.component.custom_id'],
      [
        { ...ok, components: [label({ ...radio('a'), type: 22, min_values: 0 })] },
        'data.components.0.component.min_values',
      ],
      [
        { ...ok, components: [label({ ...radio('a'), type: 22, max_values: 3 })] },
        'data.components.0.component.max_values',
      ],
      [{ ...ok, components: [label({ type: 4, custom_id: 't', style: 3 })] }, 'data.components.0.component.style'],
      [
        { ...ok, components: [label({ type: 4, custom_id: 't', style: 1, max_length: 4001 })] },
        'data.components.0.component.max_length',
      ],
      [{ ...ok, components: [{ type: 2, custom_id: 'b', style: 1, label: 'x' }] }, 'data.components.0'],
    ];
    for (const [modal, path] of bad) expect(Object.keys(modalErrors(modal) ?? {})).toContain(path);
  });

  it("the fake's submission has Discord's shape (types 18 → 21/22/4 with value/values) and the client's limits", () => {
    const stored = storeModal(formModal(view([q(1, 3, true, 'short'), q(2, 2, false, 'short')]), 'tok')!.toJSON());
    const sent = submission(stored, { q1: ['1', '3'], w1: 'more', q2: null });
    expect(sent).toEqual([
      { type: 18, id: 1, component: { type: 22, id: 2, custom_id: 'q1', values: ['1', '3'] } },
      { type: 18, id: 3, component: { type: 4, id: 4, custom_id: 'w1', value: 'more' } },
      { type: 18, id: 5, component: { type: 21, id: 6, custom_id: 'q2', value: null } },
      { type: 18, id: 7, component: { type: 4, id: 8, custom_id: 'w2', value: '' } },
    ]);
    expect(() => submission(stored, { q2: '9' })).toThrow(/only its options/);
    expect(() => submission(stored, { q1: ['1', '2', '3', '3'] })).toThrow(/only its options|count/);
    expect(() => submission(stored, { nope: 'x' })).toThrow(/no field nope/);
    expect(() => submission(stored, { w1: 'x'.repeat(4001) })).toThrow(/length/);
  });

  it('renders the modal as text for the docs (the mock-up in docs/forms-discord.md)', () => {
    const stored = storeModal(formModal(view([q(1, 3, false, 'short'), q(2, 3, true, 'short')]), 'tok')!.toJSON());
    const text = modalText(stored);
    expect(text.split('\n')[0]).toBe('╔ Your answer');
    expect(text).toContain('║   ◯ O1');
    expect(text).toContain('║   ☐ O2');
    expect(text).toContain('║   (tick 0 to 3)');
    expect(text.endsWith('╚ [Cancel]  [Submit]')).toBe(true);
  });
});

describe('docs/forms-discord.md', () => {
  it('shows the modals exactly as the fake renders them', async () => {
    const doc = await readFile(new URL('../../docs/forms-discord.md', import.meta.url), 'utf8');
    const env: Question = {
      id: 'env',
      header: 'Deploy',
      question: 'Where should I deploy?',
      multiSelect: false,
      options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
    };
    const checks: Question = {
      id: 'checks',
      header: 'Checks',
      question: 'Which checks should run first?',
      multiSelect: true,
      options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
    };
    const when: Question = {
      id: 'when',
      question: 'When?',
      multiSelect: false,
      options: [{ label: 'Now' }, { label: 'Tonight' }],
    };
    const shown = (v: PromptView, other = false) =>
      modalText(storeModal((other ? ownWordsModal(v, 'o') : formModal(v, 'f'))!.toJSON()));
    expect(doc).toContain(shown(view([env, checks])));
    expect(doc).toContain(shown(view([env, checks, when])));
    expect(doc).toContain(shown(view([env]), true));
    const message = renderPrompt(view([env, checks]));
    expect(doc).toContain(visibleText(message.content));
  });
});

describe('reading a submitted modal', () => {
  const radio = (value: string | null) => ({ type: ComponentType.RadioGroup, value });
  const boxes = (...values: string[]) => ({ type: ComponentType.CheckboxGroup, values });
  const text = (value: string) => ({ type: ComponentType.TextInput, value });
  it.each([
    ['one radio', { q1: radio('2') }, [{ choices: [1] }]],
    ['nothing chosen', { q1: radio(null), w1: text('') }, [{ choices: [] }]],
    ['own words only (Other… modal)', { w1: text('mine') }, [{ choices: [], own: 'mine' }]],
    ['checkboxes + own', { q1: boxes('1', '3'), w1: text('x') }, [{ choices: [0, 2], own: 'x' }]],
    ['a value not offered', { q1: radio('0') }, [{ choices: [-1] }]],
    ['a key-like value', { q1: boxes('__proto__', 'constructor') }, [{ choices: [-1, -1] }]],
    ['a mistyped field', { q1: text('1') }, [{ choices: [] }]],
    ['questions by their highest field', { q3: radio('1') }, [{ choices: [] }, { choices: [] }, { choices: [0] }]],
    [
      'shared words to the one empty question',
      { q1: radio('1'), q2: radio(null), q3: radio('2'), w: text('loose') },
      [{ choices: [0] }, { choices: [], own: 'loose' }, { choices: [1] }],
    ],
  ])('%s', (_what, fields, answers) => {
    expect(readModal(new Map(Object.entries(fields)))).toEqual({ kind: 'answers', answers });
  });

  it('shared own words that name no question, with several left empty, are a problem', () => {
    const fields = { q1: radio(null), q2: radio(null), q3: radio('1'), w: text('which?') };
    expect(readModal(new Map(Object.entries(fields)))).toEqual({ kind: 'problem', message: SHARED_OWN_UNCLEAR });
  });

  it.each([
    ['3: x', [false, false, false], [undefined, undefined, 'x']],
    ['1: a\nmore\n2: b', [true, true, true], ['a\nmore', 'b', undefined]],
    ['2:30pm works', [false, true, false], [undefined, '2:30pm works', undefined]],
    ['loose\n3: c', [true, false, false], ['loose', undefined, 'c']],
    ['7: not a question', [true, false, false], ['7: not a question', undefined, undefined]],
    ['loose', [true, true, false], null],
    ['loose', [false, false, false], null],
    ['1: one\nloose before?', [true, true, false], ['one\nloose before?', undefined, undefined]],
  ])('splitShared(%j)', (input, empty, expected) => {
    expect(splitShared(input, empty)).toEqual(expected);
  });
});

describe('Discord forms against a recording sink', () => {
  let fake: FakeDiscord;
  let channel: DiscordChannel;
  let chat: string;
  let dm: string;
  const sink = new RecordingSink();
  const v = view([q(1, 3, true, 'short'), q(2, 2, false, 'short')]);

  beforeAll(async () => {
    fake = await FakeDiscord.start();
    chat = fake.addTextChannel();
    dm = fake.addDm(alice);
    channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet, modalOpenBudgetMs: 150 });
    await channel.start(sink);
  });
  afterAll(async () => {
    await channel?.stop();
    await fake?.close();
  });

  const deliver = async (where: string) => {
    const ref = await channel.deliver({
      askId: v.askId,
      version: 2,
      target: { channel: 'discord', chat: where },
      view: v,
    });
    return fake.messages.get(ref.messageId)!;
  };
  const acked = async (i: FakeInteraction) => {
    await waitFor(() => i.ackType !== undefined && (i.ackType === 9 || i.followUps.length > 0));
    return i;
  };

  it('Answer opens the modal; its submission reaches the sink with the token, person, chat and answers', async () => {
    sink.opening = { kind: 'form', view: v, choice: { kind: 'form' } };
    const msg = await deliver(dm);
    const opened = await acked(fake.tap(msg.id, v.form!.open, alice));
    expect(opened.ackType).toBe(9);
    expect(sink.opened.at(-1)).toMatchObject({
      channel: 'discord',
      token: v.form!.open,
      chat: dm,
      user: { userId: alice.id },
    });
    const sent = fake.submitModal(opened, { q1: ['2'], w2: 'mine' });
    await until(() => sink.forms.find((f) => f.answers.length === 2));
    expect(sink.forms.at(-1)).toEqual({
      channel: 'discord',
      token: v.form!.open,
      user: expect.objectContaining({ channel: 'discord', userId: alice.id, username: 'alice' }),
      chat: dm,
      answers: [{ choices: [1] }, { choices: [], own: 'mine' }],
      // The person's client language, as Discord sends it with every interaction.
      locale: 'en-US',
    });
    await waitFor(() => sent.followUps.length > 0);
    expect(sent.followUps[0]).toMatchObject({ content: 'Answer recorded', flags: 64 });
  });

  it('a check slower than the budget answers "try again" ephemerally, never a late modal', async () => {
    let release!: (o: FormOpening) => void;
    const slow = new Promise<FormOpening>((r) => (release = r));
    const original = sink.openForm.bind(sink);
    sink.openForm = () => slow;
    try {
      const msg = await deliver(chat);
      const tap = await acked(fake.tap(msg.id, v.form!.open, alice));
      expect(tap.ackType).toBe(4);
      expect(tap.followUps[0]).toMatchObject({ content: OPEN_TOO_SLOW, flags: 64 });
      release({ kind: 'form', view: v, choice: { kind: 'form' } });
      await new Promise((r) => setTimeout(r, 100));
      expect(fake.calls.filter((c) => c.path.startsWith(`/interactions/${tap.id}/`))).toHaveLength(1);
      expect(tap.modal).toBeUndefined();
    } finally {
      sink.openForm = original;
    }
  });

  it('a check that fails, or a form that does not fit, is told ephemerally', async () => {
    const msg = await deliver(chat);
    const original = sink.openForm.bind(sink);
    sink.openForm = async () => {
      throw new Error('store down');
    };
    const failed = await acked(fake.tap(msg.id, v.form!.open, alice));
    sink.openForm = original;
    expect(failed.followUps[0]).toMatchObject({ content: expect.stringMatching(/went wrong/), flags: 64 });
    const five = view(Array.from({ length: 5 }, (_, i) => q(i + 1, 2, false, 'short')));
    sink.opening = { kind: 'form', view: five, choice: { kind: 'form' } };
    const tooBig = await acked(fake.tap(msg.id, v.form!.open, alice));
    expect(tooBig.followUps[0]).toMatchObject({ content: FORM_DOES_NOT_FIT, flags: 64 });
    sink.opening = { kind: 'expired', summary: 'This question expired' };
    const expired = await acked(fake.tap(msg.id, v.form!.open, alice));
    expect(expired.followUps[0]).toMatchObject({ content: 'This question expired', flags: 64 });
    expect([failed, tooBig, expired].map((i) => i.ackType)).toEqual([4, 4, 4]);
  });

  it('a modal answering a modal submission, and a second initial response, are refused by the fake', async () => {
    sink.opening = { kind: 'form', view: v, choice: { kind: 'form' } };
    const msg = await deliver(chat);
    const opened = await acked(fake.tap(msg.id, v.form!.open, alice));
    const callback = (i: FakeInteraction, body: object) =>
      fetch(`${fake.apiUrl}/v10/interactions/${i.id}/${i.token}/callback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, ...((await r.json()) as { code: number }) }));
    expect(await callback(opened, { type: 6 })).toMatchObject({ status: 400, code: 40060 });
    const modal = formModal(v, 'x')!.toJSON();
    const submitted = fake.rawModalSubmit(msg.id, 'unknown-to-askgate', [], alice);
    expect(await callback(submitted, { type: 9, data: modal })).toMatchObject({ status: 400, code: 50035 });
    await waitFor(() => submitted.ackType !== undefined);
    expect(submitted.ackType).toBe(6); // askgate's own deferred update went first
    expect(await callback(submitted, { type: 4, data: { content: 'again' } })).toMatchObject({ code: 40060 });
  });
});
