import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ComponentType } from 'discord.js';
import { modalErrors, modalText, storeModal, submission } from '../fakes/discord-modals.js';
import { formModal, modalProblems } from '../../src/channels/discord/modal.js';
import { readModal } from '../../src/channels/discord/modal-read.js';
import { ModalMemory, prefilled } from '../../src/channels/discord/modal-memory.js';
import { plainLine, typedWords } from '../../src/channels/discord/modal-typed.js';
import { typedView, type PromptView } from '../../src/core/prompt-view.js';
import { ASK, checks, choice, KIND_QUESTIONS, KINDS, view } from './discord-typed-world.js';
import { LOCALES } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';

const TOKEN = `${ASK}.1.f`;

const modalOf = (v: PromptView, locale?: string) => formModal(v, TOKEN, locale)!.toJSON();
const input = (json: ReturnType<typeof modalOf>, i = 0) => (json.components[i] as any).component;

describe('a typed question in a Discord modal', () => {
  it.each(KINDS)('%s: a required text input Discord accepts, with the kind’s lengths, hint and example', (kind) => {
    const q = KIND_QUESTIONS[kind];
    const v = view([q]);
    expect(v.buttons).toBeNull();
    expect(v.form).toBeDefined();
    const json = modalOf(v);
    expect(modalErrors(json)).toBeNull();
    expect(modalProblems(json)).toEqual([]);
    expect(json.components).toHaveLength(1);
    const label = json.components[0] as any;
    const field = input(json);
    const typed = typedView(v.questions[0]!)!;
    expect(field).toMatchObject({ type: ComponentType.TextInput, custom_id: 't1', required: true });
    expect(field.style).toBe(kind === 'text' ? 2 : 1);
    expect(field.max_length).toBe({ text: 80, email: 254, url: 2000 }[kind as string] ?? 200);
    if (kind === 'text') expect(field.min_length).toBe(5);
    if (kind === 'date') {
      // A header takes the label; the question goes under it and the expected sentence into the box.
      expect([label.label, label.description, field.placeholder]).toEqual([
        'Report',
        'Which day should the report start?',
        typed.expected,
      ]);
    } else {
      expect(label.label).toBe(q.question);
      expect(label.description).toBe(plainLine(typed.expected, 100));
      expect(field.placeholder).toBe(typed.example === '' ? undefined : typed.example);
    }
  });

  it('a long question is cut in the label and shown under it; a long expected sentence is cut, never the example', () => {
    const long = { ...KIND_QUESTIONS.datetime, question: `When ${'exactly '.repeat(20)}?` };
    const json = modalOf(view([long]));
    const label = json.components[0] as any;
    expect(label.label).toHaveLength(45);
    expect(label.description).toBe(plainLine(long.question, 100));
    expect(label.description).toHaveLength(100);
    // The date-time sentence is over 100 characters here: the box shows the example instead.
    expect(input(json).placeholder).toBe('2026-12-01 00:00');
    const short = modalOf(view([KIND_QUESTIONS.datetime]));
    expect((short.components[0] as any).description).toHaveLength(100);
    expect((short.components[0] as any).description.endsWith('…')).toBe(true);
  });

  it('hostile question text stays plain text within the limits (modals render no markdown, ping no one)', () => {
    const hostile = { ...KIND_QUESTIONS.email, header: '<@&1> **x**', question: '@everyone <@1> **x**\n\n# h' };
    const json = modalOf(view([hostile, { ...KIND_QUESTIONS.text, id: 'x', question: '\u202Eevil'.repeat(30) }]));
    expect(modalErrors(json)).toBeNull();
    expect((json.components[0] as any).label).toBe('1. <@&1> **x**');
    expect((json.components[0] as any).description).toBe('@everyone <@1> **x** # h');
  });

  it('mixes with choices within five components: 1 choice + 3 typed, 2 choices + 1 typed (own words each)', () => {
    const three = modalOf(view([choice, KIND_QUESTIONS.number, KIND_QUESTIONS.date]));
    expect(three.components.map((c: any) => c.component.custom_id)).toEqual(['q1', 'w1', 't2', 't3']);
    const full = modalOf(view([choice, checks, KIND_QUESTIONS.email]));
    expect(full.components.map((c: any) => c.component.custom_id)).toEqual(['q1', 'w1', 'q2', 'w2', 't3']);
    expect(modalErrors(full)).toBeNull();
  });

  it('core decides a form fits Discord exactly when askgate can build its modal (every mix of 1–3 questions)', () => {
    const pool: Question[] = [choice, checks, ...KINDS.map((k) => KIND_QUESTIONS[k])];
    const mixes: Question[][] = [];
    for (const a of pool) {
      mixes.push([a]);
      for (const b of pool) {
        mixes.push([a, { ...b, id: `${b.id}2` }]);
        for (const c of [choice, KIND_QUESTIONS.url]) mixes.push([a, { ...b, id: `${b.id}2` }, { ...c, id: 'z3' }]);
      }
    }
    for (const qs of mixes) {
      const v = view(qs);
      const modal = formModal(v, TOKEN);
      if (v.buttons) continue;
      expect([qs.map((q) => q.kind ?? 'choice'), v.form !== undefined]).toEqual([
        qs.map((q) => q.kind ?? 'choice'),
        modal !== null,
      ]);
      if (modal) expect(modalErrors(modal.toJSON())).toBeNull();
    }
  });

  it('every shipped locale: the modal of every kind fits, in the person’s words (not the message’s)', () => {
    for (const locale of LOCALES.keys()) {
      for (const kinds of [KINDS.slice(0, 3), KINDS.slice(3, 6), KINDS.slice(6)]) {
        const json = modalOf(view(kinds.map((k) => KIND_QUESTIONS[k])), locale);
        expect(modalErrors(json)).toBeNull();
        expect(modalProblems(json)).toEqual([]);
      }
      // The message is English; the modal a person of `locale` opens says what is expected in theirs.
      const theirs = typedView(view([KIND_QUESTIONS.number], locale).questions[0]!)!;
      const shown = (modalOf(view([KIND_QUESTIONS.number]), locale).components[0] as any).description;
      expect(shown).toBe(plainLine(theirs.expected, 100));
    }
  });

  it('typedWords: the expected sentence goes under a label that shows the whole question, else into the box', () => {
    const q = typedView(view([KIND_QUESTIONS.number]).questions[0]!)!;
    expect(typedWords(q, false)).toEqual({
      label: 'How many replicas?',
      description: 'Please answer with a whole number between 1 and 10, for example 10.',
      placeholder: '10',
    });
    expect(typedWords({ ...q, header: 'Scale' }, true)).toEqual({
      label: '1. Scale',
      description: 'How many replicas?',
      placeholder: 'Please answer with a whole number between 1 and 10, for example 10.',
    });
    // A text question has no example: no placeholder.
    expect(typedWords(typedView(view([KIND_QUESTIONS.text]).questions[0]!)!, false).placeholder).toBeNull();
  });
});

describe('reading a typed field', () => {
  const text = (value: string) => ({ type: ComponentType.TextInput, value });
  it('its text is the question’s own answer, as typed; the shared own-words field never answers it', () => {
    expect(readModal(new Map([['t1', text(' 12/08/2026 ')]]))).toEqual({
      kind: 'answers',
      answers: [{ choices: [], own: ' 12/08/2026 ' }],
    });
    const mixed = new Map<string, any>([
      ['q1', { type: ComponentType.RadioGroup, value: null }],
      ['t2', text('')],
      ['w', text('loose words')],
    ]);
    // Loose words go to the one empty choice question, never to the empty typed one.
    expect(readModal(mixed)).toEqual({
      kind: 'answers',
      answers: [{ choices: [], own: 'loose words' }, { choices: [] }],
    });
  });
});

describe('re-opening a refused form with what was typed', () => {
  const stored = () => modalOf(view([choice, checks, KIND_QUESTIONS.date]));
  const typed = (values: Record<string, string | string[] | null>) =>
    new Map(
      Object.entries(values).map(([id, v]) => [
        id,
        Array.isArray(v)
          ? { type: ComponentType.CheckboxGroup, values: v }
          : id.startsWith('q')
            ? { type: ComponentType.RadioGroup, value: v }
            : { type: ComponentType.TextInput, value: v },
      ]),
    );

  it('prefilled: text as value, picked options as default; the client submits them untouched', () => {
    const memory = new ModalMemory();
    memory.remember(TOKEN, 'u1', typed({ q1: '2', w1: '', q2: ['1', '2'], t3: 'tomorrow-ish', x9: 'forged' }));
    const entered = memory.recall(TOKEN, 'u1')!;
    expect([...entered.keys()]).toEqual(['q1', 'q2', 't3']);
    const json = prefilled(stored(), entered);
    expect(modalErrors(json)).toBeNull();
    expect(modalProblems(json)).toEqual([]);
    expect(modalText(storeModal(json))).toContain('║   ◉ Production');
    expect(modalText(storeModal(json))).toContain('║   ☑ lint');
    expect(modalText(storeModal(json))).toContain(': tomorrow-ish ]');
    const sent = submission(storeModal(json), { t3: '2026-12-08' });
    expect(readModal(new Map(sent.map((c: any) => [c.component.custom_id, c.component])))).toEqual({
      kind: 'answers',
      answers: [{ choices: [1] }, { choices: [0, 1] }, { choices: [], own: '2026-12-08' }],
    });
  });

  it('values the modal does not offer, or text past the field’s length, are not put back', () => {
    const memory = new ModalMemory();
    memory.remember(TOKEN, 'u1', typed({ q1: '9', q2: ['1', '7'], t3: 'x'.repeat(201) }));
    const json = prefilled(stored(), memory.recall(TOKEN, 'u1')!);
    // Only lint (offered) is ticked again; the radio value not offered and the over-long text are dropped.
    expect(json.components.map((c: any) => c.component.options?.filter((o: any) => o.default).length ?? 0)).toEqual([
      0, 0, 1, 0, 0,
    ]);
    expect(input(json, 4).value).toBeUndefined();
    expect(modalErrors(json)).toBeNull();
  });

  it('ModalMemory: per modal and person, forgotten on demand, past its age and past its bound', () => {
    let now = 0;
    const memory = new ModalMemory(2, 1000, () => now);
    memory.remember('a', 'u1', typed({ t1: 'one' }));
    memory.remember('a', 'u2', typed({ t1: 'two' }));
    expect(memory.recall('a', 'u1')?.get('t1')).toBe('one');
    expect(memory.recall('b', 'u1')).toBeUndefined();
    memory.forget('a', 'u1');
    expect(memory.recall('a', 'u1')).toBeUndefined();
    memory.remember('b', 'u1', typed({ t1: 'three' }));
    memory.remember('c', 'u1', typed({ t1: 'four' }));
    expect(memory.recall('a', 'u2')).toBeUndefined();
    now = 1001;
    expect(memory.recall('c', 'u1')).toBeUndefined();
    // An empty submission forgets what was kept.
    now = 0;
    memory.remember('d', 'u1', typed({ t1: 'five' }));
    memory.remember('d', 'u1', typed({ t1: '' }));
    expect(memory.recall('d', 'u1')).toBeUndefined();
  });
});

describe('docs/forms-discord.md', () => {
  it('shows each typed kind’s modal exactly as the fake renders it', async () => {
    const doc = await readFile(new URL('../../docs/forms-discord.md', import.meta.url), 'utf8');
    for (const kind of KINDS) expect(doc).toContain(modalText(storeModal(modalOf(view([KIND_QUESTIONS[kind]])))));
    expect(doc).toContain(modalText(storeModal(modalOf(view([choice, KIND_QUESTIONS.number, KIND_QUESTIONS.date])))));
  });
});
