import { describe, expect, it } from 'vitest';
import { askRecord } from '../helpers/records.js';
import {
  ALL_CAPABILITIES,
  buttonsFit,
  formFits,
  type ButtonCapability,
  type ChannelCapabilities,
} from '../../src/core/capabilities.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { ENGLISH } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';
import { TELEGRAM_CAPABILITIES } from '../../src/channels/telegram/capabilities.js';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { DISCORD_CAPABILITIES } from '../../src/channels/discord/capabilities.js';
import { CHANNELS } from '../../src/channels/registry.js';

const ASK_ID = 'CapsAsk0000001';

function q(n: number, options: number, extra: Partial<Question> = {}): Question {
  const labels = Array.from({ length: options }, (_, i) => ({ label: `Option ${n}.${i + 1}` }));
  return { id: `q${n}`, question: `Question ${n}?`, options: labels, multiSelect: false, ...extra };
}
const several = (count: number, options = 4, extra: Partial<Question> = {}) =>
  Array.from({ length: count }, (_, i) => q(i + 1, options, extra));
const stem = 'x'.repeat(90);
const alike = [q(1, 2, { multiSelect: true, options: [{ label: `${stem} one` }, { label: `${stem} two` }] })];

/** A channel that answers by reply only (e.g. plain email): no buttons, no forms, no edits. */
const TEXT_ONLY: ChannelCapabilities = {
  kinds: ['choice'],
  buttons: null,
  forms: null,
  edits: false,
  codeBlocks: false,
  links: true,
};

/** What the form rule reads of an ask built from `questions` (the views buildPromptView makes). */
function shape(questions: Question[], skip: string | null = 'skip-token') {
  const view = buildPromptView(askRecord(questions, { id: ASK_ID, version: 1 }));
  return { askId: ASK_ID, version: 1, questions: view.questions, skip, words: ENGLISH };
}

describe('buttonsFit: does a keyboard fit a channel’s button limits', () => {
  const limits: ButtonCapability = { max: 4, perRow: 2, labelMax: 5, tokenMaxBytes: 8 };
  const b = (label: string, token = 't') => ({ label, token });
  it.each([
    ['within every limit', [[b('a'), b('b')], [b('c')]], true],
    ['too many buttons', [[b('a'), b('b')], [b('c'), b('d')], [b('e')]], false],
    ['a row too wide', [[b('a'), b('b'), b('c')]], false],
    ['an empty row', [[b('a')], []], false],
    ['labels alike once cut', [[b('abcdef1'), b('abcdef2')]], false],
    ['a blank label', [[b(' ')]], false],
    ['an empty token', [[b('a', '')]], false],
    ['a token over its bytes (UTF-8 counted)', [[b('a', 'ééééé')]], false],
    ['a token at its bytes', [[b('a', 'éééé')]], true],
  ])('%s → %s', (_name, rows, fits) => {
    expect(buttonsFit(rows, limits)).toBe(fits);
  });
});

describe('formFits: does a prompt’s form fit a channel (core decides; renderers only draw)', () => {
  it.each([
    ['Telegram: three questions of four options on the keyboard', TELEGRAM_CAPABILITIES, several(3), true],
    ['Telegram: labels alike once cut to a button', TELEGRAM_CAPABILITIES, alike, false],
    ['Slack: three questions in a modal', SLACK_CAPABILITIES, several(3), true],
    ['Slack: 51 questions (102 blocks > 100)', SLACK_CAPABILITIES, several(51, 2), false],
    ['Slack: 11 options', SLACK_CAPABILITIES, several(1, 11, { multiSelect: true }), false],
    ['Discord: two questions, own words a field each', DISCORD_CAPABILITIES, several(2), true],
    ['Discord: four questions, one shared own-words field', DISCORD_CAPABILITIES, several(4), true],
    ['Discord: five questions (no room for own words)', DISCORD_CAPABILITIES, several(5), false],
    ['Discord: 11 options', DISCORD_CAPABILITIES, several(1, 11, { multiSelect: true }), false],
    ['a channel that answers by reply only', TEXT_ONLY, several(2), false],
    ['every control (test channels)', ALL_CAPABILITIES, several(51, 11), true],
  ])('%s → %s', (_name, capabilities, questions, fits) => {
    expect(formFits(shape(questions), capabilities)).toBe(fits);
  });

  it('a question of a kind the channel has no case for keeps the text form, on every channel', () => {
    const view = shape(several(2));
    const other = { ...view, questions: [view.questions[0]!, { ...view.questions[1]!, kind: 'someday' }] };
    for (const capabilities of [TELEGRAM_CAPABILITIES, SLACK_CAPABILITIES, DISCORD_CAPABILITIES, ALL_CAPABILITIES])
      expect(formFits(other, capabilities)).toBe(false);
  });
});

describe('buildPromptView picks the controls from the channel’s capabilities', () => {
  const record = (questions: Question[]) => askRecord(questions, { id: ASK_ID, version: 2 });

  it('without capabilities, the view is the one every control gets (unchanged for channels that declare none)', () => {
    for (const questions of [several(1, 3), several(3), alike]) {
      const r = record(questions);
      expect(buildPromptView(r)).toEqual(buildPromptView(r, ENGLISH, ALL_CAPABILITIES));
    }
  });

  it('a prompt whose form does not fit the channel keeps the text form (no `form`), the same instructions', () => {
    const fits = buildPromptView(record(several(2)), ENGLISH, TELEGRAM_CAPABILITIES);
    expect(fits.form).toBeDefined();
    const wide = buildPromptView(record(alike), ENGLISH, TELEGRAM_CAPABILITIES);
    expect(wide.form).toBeUndefined();
    expect(wide.buttons).toBeNull();
    expect(wide.instructions).toBe(buildPromptView(record(alike)).instructions);
    expect(buildPromptView(record(several(5)), ENGLISH, DISCORD_CAPABILITIES).form).toBeUndefined();
    expect(buildPromptView(record(several(5)), ENGLISH, SLACK_CAPABILITIES).form).toBeDefined();
  });

  it('a single choice question whose buttons would read the same once cut gets the form instead (labels fit-checked)', () => {
    const single = [q(1, 2, { options: [{ label: `${stem} one` }, { label: `${stem} two` }] })];
    const telegram = buildPromptView(record(single), ENGLISH, TELEGRAM_CAPABILITIES);
    expect(telegram.buttons).toBeNull();
    expect(telegram.form).toBeUndefined(); // its keyboard form would cut them the same way: the text form
    expect(telegram.instructions).toBe(buildPromptView(record(single), ENGLISH, TEXT_ONLY).instructions);
    const slack = buildPromptView(record(single), ENGLISH, SLACK_CAPABILITIES);
    expect(slack.buttons).toBeNull();
    expect(slack.form).toBeDefined(); // a radio group shows whole labels
    expect(buildPromptView(record(several(1, 4)), ENGLISH, TELEGRAM_CAPABILITIES).buttons).toHaveLength(6);
  });

  it('a channel without buttons gets a single choice question as text, answered by reply', () => {
    const view = buildPromptView(record(several(1, 3)), ENGLISH, TEXT_ONLY);
    expect(view.buttons).toBeNull();
    expect(view.form).toBeUndefined();
    expect(view.instructions).toMatch(/^Reply /);
    // A channel that has buttons but no case for the question's kind shows it the same way.
    const noKind = buildPromptView(record(several(1, 3)), ENGLISH, { ...ALL_CAPABILITIES, kinds: [] });
    expect([noKind.buttons, noKind.form, noKind.instructions]).toEqual([null, undefined, view.instructions]);
  });

  it('each registered channel declares its capabilities on its descriptor (edits: every chat channel but WhatsApp; email and WhatsApp post their outcome)', () => {
    expect(CHANNELS.map((c) => [c.name, c.capabilities.edits, c.capabilities.kinds])).toEqual([
      ['telegram', true, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
      ['slack', true, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
      ['discord', true, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
      ['email', false, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
      ['whatsapp', false, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
      ['teams', true, ['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']],
    ]);
  });
});
