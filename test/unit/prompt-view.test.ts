import { describe, it, expect } from 'vitest';
import { askRecord } from '../helpers/records.js';
import { BUTTON_INSTRUCTIONS, buildPromptView, partialPrompt, utcTime } from '../../src/core/prompt-view.js';
import { displayHeader } from '../../src/core/display-text.js';
import { noticeFor, outcomeView, type NoticeCode } from '../../src/core/outcome-view.js';
import { shorten } from '../../src/core/text.js';
import { decodeToken } from '../../src/core/token.js';
import type { AskRecord, AskResult, ChoiceQuestionRecord, Question, Responder } from '../../src/core/schemas.js';

const ASK_ID = 'AbCdEfGhIjKl';

function q(id: string, labels: string[], extra: Partial<ChoiceQuestionRecord> = {}): ChoiceQuestionRecord {
  return { id, question: `Which ${id}?`, options: labels.map((label) => ({ label })), multiSelect: false, ...extra };
}

const env = q('env', ['Staging (Recommended)', 'Prod', 'Dev'], { header: 'Environment' });
const region = q('region', ['eu', 'us'], { header: 'Region of deployment' });

const record = (questions: Question[], over: Partial<AskRecord> = {}) =>
  askRecord(questions, {
    id: ASK_ID,
    version: 3,
    createdAt: '2030-01-01T13:47:00.000Z',
    expiresAt: '2030-01-01T14:02:00.000Z',
    ...over,
  });

const alice: Responder = { channel: 'telegram', userId: '1001', username: 'alice', name: 'Alice A.' };
const bob: Responder = { channel: 'slack', userId: 'U0B', name: 'Bob' };
const carol: Responder = { channel: 'discord', userId: '777' };
const operator: Responder = { channel: 'api', userId: 'ops-bot' };

function answered(questions: Question[], answers: Record<string, string[]>, by: Responder = alice): AskRecord {
  const result: AskResult = { status: 'answered', answers, answeredBy: by, answeredAt: '2030-01-01T13:50:00.000Z' };
  return record(questions, { status: 'answered', result });
}

function ended(reason: Extract<AskResult, { status: 'no_answer' }>['reason'], by?: Responder): AskRecord {
  return record([env], {
    status: 'no_answer',
    result: { status: 'no_answer', reason, at: '2030-01-01T14:02:05.000Z', ...(by ? { by } : {}) },
  });
}

describe('buildPromptView', () => {
  it('numbers questions and options and keeps descriptions', () => {
    const withDescription = q('env', ['Staging', 'Prod'], { header: 'Env' });
    withDescription.options[1] = { label: 'Prod', description: 'Customer traffic' };
    const view = buildPromptView(record([withDescription]));
    expect(view.askId).toBe(ASK_ID);
    expect(view.version).toBe(3);
    expect(view.questions).toEqual([
      {
        number: 1,
        id: 'env',
        header: 'Env',
        question: 'Which env?',
        multiSelect: false,
        options: [
          { number: 1, label: 'Staging' },
          { number: 2, label: 'Prod', description: 'Customer traffic' },
        ],
      },
    ]);
  });

  it('gives a single single-choice question one button per option, then Other… and Skip', () => {
    const view = buildPromptView(record([env]));
    expect(view.buttons?.map((b) => [b.kind, b.label])).toEqual([
      ['option', 'Staging (Recommended)'],
      ['option', 'Prod'],
      ['option', 'Dev'],
      ['other', 'Other…'],
      ['skip', 'Skip'],
    ]);
    expect(view.buttons?.map((b) => decodeToken(b.token))).toEqual([
      { askId: ASK_ID, version: 3, choice: { kind: 'option', index: 0 } },
      { askId: ASK_ID, version: 3, choice: { kind: 'option', index: 1 } },
      { askId: ASK_ID, version: 3, choice: { kind: 'option', index: 2 } },
      { askId: ASK_ID, version: 3, choice: { kind: 'other' } },
      { askId: ASK_ID, version: 3, choice: { kind: 'skip' } },
    ]);
    for (const b of view.buttons ?? []) {
      expect(Buffer.byteLength(b.token)).toBeLessThanOrEqual(64);
      expect(b.token).not.toContain('run-1');
      expect(b.token).not.toContain('Prod');
    }
    expect(view.instructions).toBe(BUTTON_INSTRUCTIONS);
    expect(view.instructions).toBe('Tap an option, or reply to this message with your own words. Send "skip" to skip.');
  });

  it.each<[string, Question[], string]>([
    [
      'one multi-select question',
      [{ ...env, multiSelect: true }],
      'Reply with a number, an option name or your own words; send "skip" to skip. Pick several like "1,3".',
    ],
    [
      'two questions',
      [env, region],
      'Reply with a number, an option name or your own words; send "skip" to skip. Answer each question on its own line, in order, or as "2: your answer".',
    ],
    [
      'two questions, one multi-select',
      [env, { ...region, multiSelect: true }],
      'Reply with a number, an option name or your own words; send "skip" to skip. Pick several like "1,3". Answer each question on its own line, in order, or as "2: your answer".',
    ],
  ])('uses plain text for %s', (_name, questions, instructions) => {
    const view = buildPromptView(record(questions));
    expect(view.buttons).toBeNull();
    expect(view.instructions).toBe(instructions);
    expect(view.questions.map((x) => x.number)).toEqual(questions.map((_, i) => i + 1));
  });

  it.each<[string, string]>([
    ['Env', 'Env'],
    ['Deploy targe', 'Deploy targe'],
    ['Deploy target', 'Deploy targ…'],
    ['Region of deployment', 'Region of d…'],
    ['Release  train x', 'Release  tr…'],
    ['Ship it now ok', 'Ship it now…'],
    ['Ship it now, ok', 'Ship it now…'],
    ['👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻', '👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻…'],
  ])('shows header %j as %j', (header, shown) => {
    expect(displayHeader(header)).toBe(shown);
    expect(buildPromptView(record([{ ...env, header }])).questions[0]!.header).toBe(shown);
  });

  it('leaves the header out when the question has none', () => {
    const view = buildPromptView(record([q('env', ['a', 'b'])]));
    expect(view.questions[0]).not.toHaveProperty('header');
  });

  it.each<[string, number, string]>([
    ['short', 10, 'short'],
    ['exactly ten', 11, 'exactly ten'],
    ['exactly ten', 10, 'exactly t…'],
    ['a b c d e f', 5, 'a b…'],
  ])('shorten(%j, %i) is %j', (text, max, out) => {
    expect(shorten(text, max)).toBe(out);
  });
});

describe('partialPrompt', () => {
  const size = q('size', ['S', 'M']);
  it.each<[string, string[], string]>([
    [
      'one open question',
      ['region'],
      'Got it. Still open: 2. Which region? Reply with one line per open question, or as "2: your answer".',
    ],
    [
      'several open questions',
      ['region', 'size'],
      'Got it. Still open:\n2. Which region?\n3. Which size?\nReply with one line per open question, or as "2: your answer".',
    ],
    [
      'numbers as shown',
      ['size'],
      'Got it. Still open: 3. Which size? Reply with one line per open question, or as "3: your answer".',
    ],
    ['unknown ids are ignored', ['nope'], 'Got it.'],
  ])('%s', (_name, missing, text) => {
    expect(partialPrompt([env, region, size], missing)).toBe(text);
  });

  it('shortens a long question', () => {
    const long = q('long', ['a', 'b'], { question: 'x'.repeat(500) });
    expect(partialPrompt([env, long], ['long']).length).toBeLessThan(200);
  });
});

describe('outcomeView', () => {
  it.each<[string, AskRecord, string]>([
    ['one label', answered([env], { env: ['Prod'] }), 'Answered: Prod — by @alice'],
    ['recommended suffix hidden', answered([env], { env: ['Staging (Recommended)'] }), 'Answered: Staging — by @alice'],
    [
      'several labels',
      answered([{ ...env, multiSelect: true }], { env: ['Staging (Recommended)', 'Dev'] }),
      'Answered: Staging, Dev — by @alice',
    ],
    [
      'free text is never echoed',
      answered([env], { env: ['password is hunter2 @here'] }),
      'Answered: their own words — by @alice',
    ],
    [
      'labels and own words',
      answered([{ ...env, multiSelect: true }], { env: ['Dev', 'secret', 'more secret'] }),
      'Answered: Dev, their own words — by @alice',
    ],
    ['a value in other case still shows the label', answered([env], { env: ['prod'] }), 'Answered: Prod — by @alice'],
    ['name without username', answered([env], { env: ['Prod'] }, bob), 'Answered: Prod — by Bob'],
    ['user id without name', answered([env], { env: ['Prod'] }, carol), 'Answered: Prod — by 777'],
    [
      'username with its @',
      answered([env], { env: ['Prod'] }, { ...alice, username: '@alice' }),
      'Answered: Prod — by @alice',
    ],
    ['through the API', answered([env], { env: ['Prod'] }, operator), 'Answered: Prod — via API'],
    [
      'several questions',
      answered([env, region, q('size', ['S', 'M'], { question: 'How large should the new cluster be, roughly?' })], {
        env: ['Prod'],
        region: ['eu'],
        size: ['tiny'],
      }),
      'Answered — by @alice\n1. Environment: Prod\n2. Region of d…: eu\n3. How large should the new cluster be, ro…: their own words',
    ],
  ])('answered: %s', (_name, rec, text) => {
    expect(outcomeView(rec)).toEqual({ status: 'answered', text });
  });

  it.each<[string, AskRecord, string]>([
    ['timeout', ended('timeout'), 'Expired — no answer'],
    ['skipped by a user', ended('skipped', alice), 'Skipped by @alice'],
    ['skipped without a responder', ended('skipped'), 'Skipped'],
    ['skipped through the API', ended('skipped', operator), 'Skipped via API'],
    ['cancelled', ended('cancelled'), 'Cancelled'],
    ['superseded', ended('superseded'), 'Replaced by a newer question'],
    ['undelivered', ended('undelivered'), 'Not delivered'],
  ])('no answer: %s', (_name, rec, text) => {
    expect(outcomeView(rec)).toEqual({ status: 'no_answer', text });
  });

  it('refuses a pending record', () => {
    expect(() => outcomeView(record([env]))).toThrow(/no outcome yet/);
  });
});

describe('noticeFor', () => {
  const forUsers = record([env], { to: { channel: 'slack', chat: 'C1', users: ['U1', 'U2'] } });
  const manyUsers = record([env], { to: { channel: 'slack', chat: 'C1', users: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] } });

  it.each<[string, AskRecord | null, NoticeCode, string]>([
    ['answer recorded', answered([env], { env: ['Prod'] }), 'recorded', 'Answer recorded'],
    ['partial answer recorded', record([env, region], { partial: { env: ['Prod'] } }), 'recorded', 'Answer recorded'],
    ['skip recorded', ended('skipped', alice), 'recorded', 'Skip recorded'],
    [
      'already answered',
      answered([env], { env: ['secret'] }),
      'already_resolved',
      'This question was already answered by @alice',
    ],
    [
      'already answered by name',
      answered([env], { env: ['Prod'] }, bob),
      'already_resolved',
      'This question was already answered by Bob',
    ],
    [
      'already answered through the API',
      answered([env], { env: ['Prod'] }, operator),
      'already_resolved',
      'This question was already answered via API',
    ],
    ['already expired', ended('timeout'), 'already_resolved', 'This question expired at 14:02 UTC'],
    ['already skipped', ended('skipped', carol), 'already_resolved', 'This question was already skipped by 777'],
    ['already cancelled', ended('cancelled'), 'already_resolved', 'This question was cancelled'],
    ['already superseded', ended('superseded'), 'already_resolved', 'This question was replaced by a newer one'],
    ['already undelivered', ended('undelivered'), 'already_resolved', 'This question is no longer open'],
    ['expired uses the deadline', ended('timeout'), 'expired', 'This question expired at 14:02 UTC'],
    ['cancelled', ended('cancelled'), 'cancelled', 'This question was cancelled'],
    ['wrong user', forUsers, 'forbidden', 'This question is for U1, U2'],
    ['wrong user, long list', manyUsers, 'forbidden', 'This question is for a, b, c, d, e and 2 more'],
    ['wrong user without a users list', record([env]), 'forbidden', 'This question is not for you'],
    ['not found', record([env]), 'not_found', 'This question is no longer open'],
    ['record gone', null, 'already_resolved', 'This question is no longer open'],
    ['record gone, recorded', null, 'recorded', 'This question is no longer open'],
  ])('%s', (_name, rec, code, text) => {
    expect(noticeFor(rec, code)).toBe(text);
  });

  it('renders users with the channel mention format', () => {
    expect(noticeFor(forUsers, 'forbidden', { mention: (id) => `<@${id}>` })).toBe('This question is for <@U1>, <@U2>');
  });

  it.each<[string, string | null]>([
    ['2030-01-01T14:02:00.000Z', '14:02 UTC'],
    ['2030-01-01T23:59:59.999Z', '23:59 UTC'],
    ['2030-01-01T16:02:00+02:00', '14:02 UTC'],
    ['not a date', null],
  ])('utcTime(%j) is %j', (iso, out) => {
    expect(utcTime(iso)).toBe(out);
  });

  it('says "expired" without a time when the deadline does not parse', () => {
    expect(noticeFor(record([env], { expiresAt: 'garbage' }), 'expired')).toBe('This question expired');
  });
});
