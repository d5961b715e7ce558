import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { encodeMeta, errorsFor, readMeta, readSubmission } from '../../src/channels/slack/form-state.js';
import {
  CHOICE_ACTION,
  choiceBlock,
  fitPlain,
  formFits,
  formModal,
  modalProblem,
  OWN_ACTION,
  ownBlock,
  ownWordsModal,
} from '../../src/channels/slack/modal.js';
import { FORM_MESSAGES } from '../../src/core/forms.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { checkModal, renderModal } from '../fakes/slack-views.js';

const read = (values: unknown) =>
  readSubmission(values, choiceBlock, ownBlock, { choice: CHOICE_ACTION, own: OWN_ACTION });
const META = { token: 'AbCdEfGhIjKl01.3.f', channel: 'C0001' };

describe('private_metadata', () => {
  it('reads back what askgate writes, with and without a thread', () => {
    expect(readMeta(encodeMeta(META))).toEqual(META);
    expect(readMeta(encodeMeta({ ...META, thread: '1700000001.000100' }))).toEqual({
      ...META,
      thread: '1700000001.000100',
    });
  });

  it.each([
    ['not a string', 42],
    ['not JSON', '{t:'],
    ['an array', '["x"]'],
    ['null', 'null'],
    ['no token', '{"c":"C0001"}'],
    ['a token with markup', '{"t":"<@U1>","c":"C0001"}'],
    ['an inherited token', '{"__proto__":{"t":"abc"},"c":"C0001"}'],
    ['a channel name', '{"t":"abc","c":"#general"}'],
    ['a numeric thread', '{"t":"abc","c":"C0001","h":17}'],
    ['a thread that is not a ts', '{"t":"abc","c":"C0001","h":"yesterday"}'],
    ['an oversized string', `{"t":"abc","c":"C0001","x":"${'a'.repeat(600)}"}`],
  ])('refuses %s', (_name, raw) => {
    expect(readMeta(raw)).toBeNull();
  });
});

describe('view.state.values', () => {
  const radio = (value: string | null) => ({
    [CHOICE_ACTION]: { type: 'radio_buttons', selected_option: value === null ? null : { value } },
  });
  const boxes = (...values: string[]) => ({
    [CHOICE_ACTION]: { type: 'checkboxes', selected_options: values.map((value) => ({ value })) },
  });
  const text = (value: string | null) => ({ [OWN_ACTION]: { type: 'plain_text_input', value } });

  it.each([
    ['one radio choice', { askgate_q1: radio('2'), askgate_w1: text(null) }, [{ choices: [1] }]],
    ['own words only', { askgate_q1: radio(null), askgate_w1: text('mine') }, [{ choices: [], own: 'mine' }]],
    ['checkboxes', { askgate_q1: boxes('1', '3') }, [{ choices: [0, 2] }]],
    ['the one-field modal', { askgate_w1: text('x') }, [{ choices: [], own: 'x' }]],
    ['forged values become -1', { askgate_q1: boxes('0', '10', 'constructor', '1') }, [{ choices: [-1, -1, -1, 0] }]],
    [
      'three questions in order',
      { askgate_q3: radio('1'), askgate_q1: radio('4'), askgate_q2: boxes() },
      [{ choices: [3] }, { choices: [] }, { choices: [0] }],
    ],
    ['a gap ends the questions', { askgate_q1: radio('1'), askgate_q3: radio('1') }, [{ choices: [0] }]],
  ])('%s', (_name, values, answers) => {
    expect(read(values)?.answers).toEqual(answers);
  });

  it.each([
    ['not an object', 'x'],
    ['an array', []],
    ['no askgate block', { other: radio('1') }],
    ['an inherited block', JSON.parse('{"__proto__":{"askgate_q1":{}}}')],
    ['a block under another action', { askgate_q1: { elsewhere: { type: 'radio_buttons' } } }],
  ])('reads nothing from %s', (_name, values) => {
    expect(read(values)).toBeNull();
  });

  it('puts each problem beside its field, joined when two meet', () => {
    const fields = { choice: ['askgate_q1', 'askgate_q2'], own: ['askgate_w1', 'askgate_w2'] };
    expect(
      errorsFor(
        [
          { question: 0, message: FORM_MESSAGES.nothing },
          { question: 1, message: FORM_MESSAGES.tooLong },
        ],
        fields,
      ),
    ).toEqual({ askgate_q1: FORM_MESSAGES.nothing, askgate_w2: FORM_MESSAGES.tooLong });
    expect(errorsFor([{ question: 0, message: 'a' }], { choice: [undefined], own: ['askgate_w1'] })).toEqual({
      askgate_w1: 'a',
    });
    expect(
      errorsFor(
        [
          { question: 0, message: 'a' },
          { question: 0, message: 'b' },
        ],
        fields,
      ),
    ).toEqual({ askgate_q1: 'a b' });
  });
});

describe('modal limits', () => {
  const q = (options: number, label = 'L') => ({
    id: 'q',
    question: 'Q?',
    multiSelect: true,
    options: Array.from({ length: options }, (_, i) => ({ label: `${label}${i}` })),
  });
  const view = (questions: object[]) => buildPromptView({ id: 'LimitsAsk0000001', version: 1, questions } as never);

  it('builds modals Slack accepts (the fake applies the same limits independently)', () => {
    const built = formModal(view([q(4, '&'.repeat(99)), q(2)]), META)!;
    expect(modalProblem(built)).toBeNull();
    expect(checkModal(built)).toBeNull();
  });

  it.each([
    ['11 options', [q(11)]],
    ['51 questions', Array.from({ length: 51 }, () => q(2))],
  ])('a prompt with %s does not fit: it keeps the text form', (_name, questions) => {
    expect(formFits(view(questions))).toBe(false);
    expect(formModal(view(questions), META)).toBeNull();
    expect(formFits(view([q(4)]))).toBe(true);
  });

  it.each([
    ['a 25-character title', (m: any) => (m.title.text = 'x'.repeat(25)), 'title'],
    ['a 25-character submit', (m: any) => (m.submit.text = 'x'.repeat(25)), 'submit or close'],
    ['101 blocks', (m: any) => (m.blocks = Array.from({ length: 101 }, () => m.blocks[0])), 'blocks'],
    ['metadata over 3000', (m: any) => (m.private_metadata = 'x'.repeat(3001)), 'private_metadata'],
    ['a 256-character block_id', (m: any) => (m.blocks[0].block_id = 'b'.repeat(256)), 'block_id'],
    ['a 2001-character label', (m: any) => (m.blocks[0].label.text = 'l'.repeat(2001)), 'label'],
    [
      '11 options',
      (m: any) => m.blocks[0].element.options.push(...Array(9).fill(m.blocks[0].element.options[0])),
      'options',
    ],
    ['a 76-character option', (m: any) => (m.blocks[0].element.options[0].text.text = 'o'.repeat(76)), 'option text'],
    ['a 76-character value', (m: any) => (m.blocks[0].element.options[0].value = 'v'.repeat(76)), 'option value'],
  ])('names the limit a modal breaks: %s', (_name, breakIt, problem) => {
    const modal = structuredClone(formModal(view([q(2)]), META)!);
    expect(modalProblem(modal)).toBeNull();
    breakIt(modal);
    expect(modalProblem(modal)).toBe(problem);
    expect(checkModal(modal)).not.toBeNull();
  });

  it('cuts plain text after escaping, on a grapheme boundary', () => {
    expect(fitPlain('&'.repeat(100), 75).length).toBeLessThanOrEqual(75);
    expect(fitPlain('&'.repeat(100), 75)).not.toMatch(/&[a-z]*…$/);
    expect(fitPlain('👩‍👩‍👧‍👦'.repeat(30), 24).length).toBeLessThanOrEqual(24);
    expect(fitPlain('short', 24)).toBe('short');
  });
});

describe('docs/forms-slack.md', () => {
  it('shows the modals exactly as the fake renders them', async () => {
    const doc = await readFile(new URL('../../docs/forms-slack.md', import.meta.url), 'utf8');
    const env = {
      id: 'env',
      header: 'Env',
      question: 'Where should I deploy?',
      multiSelect: false,
      options: [{ label: 'Staging', description: 'safe place to try' }, { label: 'Production' }],
    };
    const checks = {
      id: 'checks',
      header: 'Checks',
      question: 'Which checks should run first?',
      multiSelect: true,
      options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
    };
    const view = (questions: object[]) => buildPromptView({ id: 'DocsAsk00000001', version: 1, questions } as never);
    const meta = { token: 'DocsAsk00000001.1.f', channel: 'C0001' };
    expect(doc).toContain(renderModal(formModal(view([env, checks]), meta)!));
    expect(doc).toContain(renderModal(ownWordsModal(view([env]), { ...meta, token: 'DocsAsk00000001.1.o' })!));
  });
});
