// The typed kinds on the question seam (issue 35), as tables: replies read in the person's language,
// repairs, what a form part means, how an answer is shown, what the prompt says is expected.
import { describe, expect, it } from 'vitest';
import { parseReply } from '../../src/core/reply-parser.js';
import { readForm } from '../../src/core/forms.js';
import { buildPromptView, typedView } from '../../src/core/prompt-view.js';
import { answerSummary } from '../../src/core/display-text.js';
import { answerValues, normalizeAnswers } from '../../src/core/answers.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import type { ParseContext } from '../../src/core/questions/index.js';
import type { Question } from '../../src/core/schemas.js';

// 2026-12-07 14:00 UTC: "tomorrow" is 2026-12-08 in UTC and in São Paulo.
const NOW = Date.UTC(2026, 11, 7, 14);
const ctx = (locales: string[], timeZone = 'UTC'): ParseContext => ({ locales, timeZone, now: NOW });
const en = wordsFor('en');
const pt = wordsFor('pt-BR', 'America/Sao_Paulo');

const number: Question = { id: 'n', question: 'How many?', kind: 'number', min: 1, max: 10, unit: 'GB' };
const whole: Question = { id: 'w', question: 'Replicas?', kind: 'number', integer: true };
const date: Question = { id: 'd', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' };
const time: Question = { id: 't', question: 'When?', kind: 'time' };
const datetime: Question = { id: 'dt', question: 'When exactly?', kind: 'datetime' };
const text: Question = { id: 'x', question: 'Subject?', kind: 'text', minLength: 3, maxLength: 20, pattern: '[A-Z].*' };
const email: Question = { id: 'e', question: 'Address?', kind: 'email' };
const url: Question = { id: 'u', question: 'Link?', kind: 'url' };

const read = (q: Question, reply: string, locales = ['en'], timeZone = 'UTC') =>
  parseReply([q], reply, {}, wordsFor(locales[locales.length - 1]!, timeZone), locales, ctx(locales, timeZone));

describe('typed replies', () => {
  it.each([
    [number, '3,5', ['pt-BR'], { n: ['3.5'] }, { n: '3,5' }],
    [number, '3.5 GB', ['en'], { n: ['3.5'] }, { n: '3.5 GB' }],
    [number, '7', ['de'], { n: ['7'] }, undefined],
    [whole, '1.000', ['de'], { w: ['1000'] }, { w: '1.000' }],
    [whole, '1,000', ['en'], { w: ['1000'] }, { w: '1,000' }],
    [date, '12/08/2026', ['en-US'], { d: ['2026-12-08'] }, { d: '12/08/2026' }],
    [date, '2026-12-24', ['en-GB'], { d: ['2026-12-24'] }, undefined],
    [date, 'amanhã', ['pt-BR'], { d: ['2026-12-08'] }, { d: 'amanhã' }],
    [date, '8 de dezembro de 2026', ['pt-BR'], { d: ['2026-12-08'] }, { d: '8 de dezembro de 2026' }],
    [time, '2:30 pm', ['en'], { t: ['14:30'] }, { t: '2:30 pm' }],
    [time, '14h30', ['fr'], { t: ['14:30'] }, { t: '14h30' }],
    [datetime, '2026-12-08 14:30', ['en'], { dt: ['2026-12-08T14:30:00-03:00'] }, { dt: '2026-12-08 14:30' }],
    [text, 'Quarterly report', ['en'], { x: ['Quarterly report'] }, undefined],
    [email, 'Ops@Example.COM', ['en'], { e: ['Ops@example.com'] }, { e: 'Ops@Example.COM' }],
    [url, 'https://example.com/a b', ['en'], null, null],
    [url, 'https://Example.com/a', ['en'], { u: ['https://example.com/a'] }, { u: 'https://Example.com/a' }],
  ])('%o reads %s (%o)', (q, reply, locales, answers, raw) => {
    const zone = q.kind === 'datetime' ? 'America/Sao_Paulo' : 'UTC';
    const parsed = read(q, reply, locales, zone);
    if (answers === null) expect(parsed.kind).toBe('invalid');
    else expect(parsed).toEqual({ kind: 'answers', answers, ...(raw ? { raw } : {}) });
  });

  it.each([
    [number, '11', 'range', 'That answer is outside the allowed range.'],
    [number, 'lots', 'format', 'I could not read that answer.'],
    [whole, '2.5', 'integer', 'That is not a whole number.'],
    [date, '2027-01-01', 'range', 'That answer is outside the allowed range.'],
    [text, 'ab', 'length', 'That answer is too short or too long.'],
    [text, 'lowercase start', 'pattern', 'That answer is not in the form this question asks for.'],
    [email, 'not an address', 'format', 'I could not read that answer.'],
  ])('%o refuses %s (%s) and says what is expected; nothing was done', (q, reply, reason, problem) => {
    const parsed = read(q, reply);
    expect(parsed).toMatchObject({ kind: 'invalid', rejected: { question: q.id, reason } });
    if (parsed.kind !== 'invalid') return;
    expect(parsed.hint.startsWith(problem)).toBe(true);
    expect(parsed.hint.endsWith('Nothing has been done yet.')).toBe(true);
  });

  it("the repair is in the person's language", () => {
    const parsed = parseReply([date], '2027-01-01', {}, pt, ['pt-BR'], ctx(['pt-BR'], 'America/Sao_Paulo'));
    expect(parsed).toMatchObject({
      kind: 'invalid',
      hint: 'Essa resposta está fora do intervalo permitido. Por favor, responda com uma data entre 2026-12-01 e 2026-12-31, por exemplo 2026-12-01. Nada foi feito ainda.',
    });
  });

  it('several questions: keyed and unkeyed lines, a refused line names its question', () => {
    const qs = [number, date];
    expect(parseReply(qs, '2: 2026-12-24\n1: 4', {}, en, ['en'], ctx(['en']))).toEqual({
      kind: 'answers',
      answers: { n: ['4'], d: ['2026-12-24'] },
    });
    const bad = parseReply(qs, '4\nnot a date', {}, en, ['en'], ctx(['en']));
    expect(bad).toMatchObject({ kind: 'invalid', rejected: { question: 'd', reason: 'format' } });
    expect(bad.kind === 'invalid' && bad.hint).toMatch(/^Question 2: I could not read that answer\./);
  });

  it('skip words skip a typed question', () => {
    expect(read(number, 'skip')).toEqual({ kind: 'skip' });
    expect(read(number, 'pular', ['pt-BR'])).toEqual({ kind: 'skip' });
  });
});

describe('typed answers through the API (strict forms) and forms', () => {
  it('the API takes canonical forms only, and keeps what differs', () => {
    const strict = { locales: ['en'], timeZone: 'UTC', now: NOW, strict: true };
    expect(normalizeAnswers([number], { n: ['3.50'] }, true, strict)).toEqual({
      ok: true,
      answers: { n: ['3.5'] },
      raw: { n: '3.50' },
    });
    expect(normalizeAnswers([number], { n: ['3,5'] }, true, strict)).toMatchObject({ ok: false });
    expect(normalizeAnswers([date], { d: ['tomorrow'] }, true, strict)).toMatchObject({ ok: false });
  });

  it("a form part is read in the person's language; a refused part says what to fix", () => {
    expect(
      readForm(
        [number, date],
        [
          { choices: [], own: '3,5' },
          { choices: [], own: '2026-12-24' },
        ],
        pt,
        ctx(['pt-BR']),
      ),
    ).toEqual({
      kind: 'answers',
      answers: { n: ['3.5'], d: ['2026-12-24'] },
      raw: { n: '3,5' },
    });
    const bad = readForm([number], [{ choices: [], own: '99' }], en, ctx(['en']));
    expect(bad).toEqual({
      kind: 'invalid',
      problems: [
        {
          question: 0,
          message:
            'That answer is outside the allowed range. Please answer with a number in GB between 1 and 10, for example 2.5 GB.',
        },
      ],
    });
    expect(readForm([number], [{ choices: [0], own: '3' }], en, ctx(['en'])).kind).toBe('invalid');
  });

  it("values have the kinds' JSON types", () => {
    expect(answerValues([number, date, email], { n: ['3.5'], d: ['2026-12-08'], e: ['a@b.co'] })).toEqual({
      n: 3.5,
      d: '2026-12-08',
      e: 'a@b.co',
    });
  });
});

describe('how typed answers are shown', () => {
  it.each([
    [number, ['3.5'], undefined, en, '3.5 GB'],
    [number, ['3.5'], '3,5', pt, '3,5 GB'],
    [date, ['2026-12-08'], 'amanhã', pt, expect.stringMatching(/^8 de dez\.? de 2026, de “amanhã”$/)],
    [date, ['2026-12-08'], '2026-12-08', en, expect.not.stringContaining('from')],
    [text, ['Secret plan'], undefined, en, 'their own words'],
    [email, ['a@b.co'], 'A@B.CO', en, 'their own words'],
    [url, ['https://x.test/'], undefined, en, 'their own words'],
  ])('%o %o (raw %s) shows %s', (q, values, raw, words, shown) => {
    expect(answerSummary(q, values, words, raw)).toEqual(shown);
  });

  it('the prompt says what each typed question expects; a lone typed question has no option buttons', () => {
    const view = buildPromptView({ id: 'AskTyped0001', version: 1, questions: [number] }, en);
    expect(view.buttons).toBeNull();
    expect(view.instructions).toBe(
      'Type your answer and reply to this message; send "skip" to skip. Please answer with a number in GB between 1 and 10, for example 2.5 GB.',
    );
    expect(typedView(view.questions[0]!)).toMatchObject({
      kind: 'number',
      min: 1,
      max: 10,
      unit: 'GB',
      timeZone: 'UTC',
    });
    const several = buildPromptView({ id: 'AskTyped0002', version: 1, questions: [number, date] }, en);
    expect(several.instructions).toContain('Question 2: Please answer with a date between 2026-12-01 and 2026-12-31');
  });
});
