import { describe, expect, it } from 'vitest';
import {
  ElicitationRefusedError,
  elicitResultOf,
  mapElicitation,
  questionIdFor,
  type ElicitationRefusal,
} from '../../src/client/elicitation-form.js';
import { AskRequestSchema, type AskResult } from '../../src/core/schemas.js';
import { compilePattern } from '../../src/core/questions/parse/index.js';

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  message: 'Please choose',
  requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
  ...extra,
});
const titled = (...titles: string[]) => ({
  type: 'string',
  title: 'Env',
  oneOf: titles.map((title, i) => ({ const: `v${i}`, title })),
});
const answered = (answers: Record<string, string[]>): AskResult => ({
  status: 'answered',
  answers,
  answeredBy: { channel: 'test', userId: 'u1' },
  answeredAt: '2026-01-01T00:00:00.000Z',
});
const noAnswer = (reason: 'timeout' | 'skipped' | 'cancelled' | 'superseded' | 'undelivered'): AskResult => ({
  status: 'no_answer',
  reason,
  at: '2026-01-01T00:00:00.000Z',
});

function refusal(params: unknown): ElicitationRefusedError {
  try {
    mapElicitation(params);
  } catch (error) {
    expect(error).toBeInstanceOf(ElicitationRefusedError);
    return error as ElicitationRefusedError;
  }
  throw new Error('expected a refusal');
}

describe('mapElicitation: forms askgate can ask', () => {
  it('a titled single-select: header from the title, the message and description as the question, titles as labels', () => {
    const { questions, fields } = mapElicitation(
      form({ env: { ...titled('Staging', 'Production'), description: 'Where to deploy?' } }),
    );
    expect(questions).toEqual([
      {
        id: 'env',
        header: 'Env',
        question: 'Please choose\n\nWhere to deploy?',
        options: [{ label: 'Staging' }, { label: 'Production' }],
        multiSelect: false,
      },
    ]);
    expect(AskRequestSchema.safeParse({ runId: 'r', questions }).success).toBe(true);
    expect([...fields.values()]).toEqual([
      { kind: 'single', key: 'env', values: ['v0', 'v1'], labels: ['Staging', 'Production'] },
    ]);
  });

  it('legacy enum with enumNames, untitled enum, multi-select (anyOf and enum), boolean', () => {
    const { questions, fields } = mapElicitation(
      form({
        region: { type: 'string', enum: ['eu-1', 'us-2'], enumNames: ['Europe', 'America'] },
        checks: {
          type: 'array',
          title: 'Checks',
          items: {
            anyOf: [
              { const: 'l', title: 'Lint' },
              { const: 't', title: 'Tests' },
              { const: 'e', title: 'E2E' },
            ],
          },
        },
        notify: { type: 'boolean', title: 'Notify?', default: true },
      }),
    );
    expect(questions.map((q) => [q.id, q.options!.map((o) => o.label), q.multiSelect])).toEqual([
      ['region', ['Europe', 'America'], false],
      ['checks', ['Lint', 'Tests', 'E2E'], true],
      ['notify', ['Yes', 'No'], false],
    ]);
    // Only the first question carries the form's message; others fall back to their title.
    expect(questions.map((q) => q.question)).toEqual(['Please choose', 'Checks', 'Notify?']);
    expect(mapElicitation(form({ a: { type: 'string', enum: ['x', 'y'] } })).questions[0]!.options).toEqual([
      { label: 'x' },
      { label: 'y' },
    ]);
    expect(
      mapElicitation(form({ a: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } } })).questions[0]!
        .multiSelect,
    ).toBe(true);
    expect([...fields.keys()]).toEqual(['region', 'checks', 'notify']);
  });

  it('mode "form" is accepted; maxItems 1 makes a single-select; minItems 1 and maxItems >= choices are fine', () => {
    const many = { type: 'array', items: { enum: ['a', 'b', 'c'] } };
    expect(mapElicitation(form({ x: many }, { mode: 'form' })).questions[0]!.multiSelect).toBe(true);
    expect(mapElicitation(form({ x: { ...many, maxItems: 1 } })).questions[0]!.multiSelect).toBe(false);
    expect(mapElicitation(form({ x: { ...many, minItems: 1, maxItems: 3 } })).questions[0]!.multiSelect).toBe(true);
  });

  it('long titles are shortened to the header and label limits; long messages to the question limit', () => {
    const { questions } = mapElicitation({
      message: 'm'.repeat(1500),
      requestedSchema: { type: 'object', properties: { x: titled('A'.repeat(150), 'B') } },
    });
    const q = questions[0]!;
    expect(q.options![0]!.label.length).toBeLessThanOrEqual(100);
    expect(q.options![0]!.label.endsWith('…')).toBe(true);
    expect(q.question.length).toBeLessThanOrEqual(1000);
    const header = mapElicitation(form({ x: { ...titled('A', 'B'), title: '👍'.repeat(40) } })).questions[0]!.header!;
    expect(header.length).toBeLessThanOrEqual(60);
    expect(AskRequestSchema.safeParse({ runId: 'r', questions }).success).toBe(true);
  });

  it('hostile keys and markup titles: ids are snake_case, keys such as __proto__ map back as ordinary keys', () => {
    const properties = JSON.parse(
      '{"__proto__": {"type":"boolean","title":"<!channel> **bold** @everyone"}, "constructor": {"type":"boolean"}}',
    );
    const mapped = mapElicitation(form(properties));
    expect(mapped.questions.map((q) => q.id)).toEqual(['proto', 'constructor']);
    expect(mapped.questions[0]!.header).toBe('<!channel> **bold** @everyone');
    const result = elicitResultOf(mapped, answered({ proto: ['Yes'], constructor: ['No'] }));
    expect(result.action).toBe('accept');
    const content = (result as { content: Record<string, unknown> }).content;
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(Object.hasOwn(content, '__proto__')).toBe(true);
    expect(JSON.stringify(content)).toBe('{"__proto__":true,"constructor":false}');
  });
});

describe('mapElicitation: typed fields (MCP 2026-07-28 primitives)', () => {
  it('strings, formats, numbers and integers become typed questions with their constraints', () => {
    const { questions, fields } = mapElicitation(
      form({
        name: { type: 'string', title: 'Name', minLength: 2, maxLength: 10_000, pattern: '^[A-Z]' },
        mail: { type: 'string', format: 'email', maxLength: 320, default: 'ops@example.com' },
        n: { type: 'integer', description: 'How many replicas?', minimum: 1, maximum: 10, default: 3 },
      }),
    );
    expect(questions).toEqual([
      {
        id: 'name',
        header: 'Name',
        question: 'Please choose\n\nName',
        kind: 'text',
        minLength: 2,
        maxLength: 4000,
        pattern: '(?s:.*)(?:^[A-Z])(?s:.*)',
      },
      { id: 'mail', question: 'mail', kind: 'email' },
      { id: 'n', question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true },
    ]);
    expect(AskRequestSchema.safeParse({ runId: 'r', questions }).success).toBe(true);
    expect([...fields.values()]).toEqual([
      { kind: 'typed', key: 'name', type: 'string' },
      { kind: 'typed', key: 'mail', type: 'string' },
      { kind: 'typed', key: 'n', type: 'integer' },
    ]);
  });

  it.each<[string, object, object]>([
    ['a plain string', { type: 'string' }, { kind: 'text' }],
    ['format uri', { type: 'string', format: 'uri' }, { kind: 'url' }],
    ['format date', { type: 'string', format: 'date', minLength: 10, maxLength: 10 }, { kind: 'date' }],
    ['format date-time', { type: 'string', format: 'date-time' }, { kind: 'datetime' }],
    ['a number', { type: 'number', minimum: -2.5 }, { kind: 'number', min: -2.5 }],
    ['minLength 0', { type: 'string', minLength: 0, maxLength: 80 }, { kind: 'text', maxLength: 80 }],
  ])('%s', (_name, field, part) => {
    const { questions } = mapElicitation(form({ x: field }));
    expect(questions[0]).toEqual({ id: 'x', question: 'Please choose', ...part });
    expect(AskRequestSchema.safeParse({ runId: 'r', questions }).success).toBe(true);
  });

  it('a JSON Schema pattern matches anywhere, as the server’s validator reads it; RE2 matches the wrapped one whole', () => {
    const pattern = (source: string) =>
      (mapElicitation(form({ t: { type: 'string', pattern: source } })).questions[0] as { pattern: string }).pattern;
    const matches = (source: string, text: string) => {
      const compiled = compilePattern(pattern(source));
      return compiled.ok && compiled.test(text);
    };
    expect(matches('corp', 'my corp\nteam')).toBe(true);
    expect(matches('^[A-Z]', 'Abc')).toBe(true);
    expect(matches('^[A-Z]', 'xAbc')).toBe(false);
    expect(matches('\\d{3}$', 'code 123')).toBe(true);
    expect(matches('\\d{3}$', '123 code')).toBe(false);
  });
});

describe('questionIdFor', () => {
  it.each([
    ['env', 'env'],
    ['Deploy Target', 'deploy_target'],
    ['2fa', 'f_2fa'],
    ['', 'f'],
    ['__proto__', 'proto'],
    ['x'.repeat(60), 'x'.repeat(40)],
    ['Größe', 'gro_e'],
  ])('%j → %j', (key, id) => {
    expect(questionIdFor(key, new Set())).toBe(id);
  });

  it('keeps ids unique and within 40 characters', () => {
    expect(questionIdFor('env', new Set(['env']))).toBe('env_2');
    expect(questionIdFor('Env', new Set(['env', 'env_2']))).toBe('env_3');
    const long = questionIdFor('y'.repeat(60), new Set(['y'.repeat(40)]));
    expect(long).toMatch(/^[a-z][a-z0-9_]{0,39}$/);
    expect(long.endsWith('_2')).toBe(true);
  });
});

describe('mapElicitation: refusals with a reason', () => {
  it.each<[string, unknown, ElicitationRefusal, RegExp]>([
    [
      'URL mode',
      { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://x.test' },
      'url_mode',
      /URL-mode/,
    ],
    ['not params at all', 'hello', 'invalid_params', /not form-mode/],
    ['no requestedSchema', { message: 'x' }, 'invalid_params', /requestedSchema/],
    ['an unknown mode', form({ a: titled('A', 'B') }, { mode: 'voice' }), 'invalid_params', /mode/],
    ['no fields', form({}), 'no_fields', /no fields/],
    [
      '4 fields',
      form({ a: titled('A', 'B'), b: titled('A', 'B'), c: titled('A', 'B'), d: titled('A', 'B') }),
      'too_many_fields',
      /4 fields.*at most 3/,
    ],
    [
      'a format the spec does not list',
      form({ h: { type: 'string', format: 'hostname' } }),
      'unsupported_constraint',
      /"h" has format "hostname"; askgate reads email, uri, date and date-time/,
    ],
    [
      'a pattern on a formatted string',
      form({ m: { type: 'string', format: 'email', pattern: '@corp\\.example$' } }),
      'unsupported_constraint',
      /holds an email address to a pattern/,
    ],
    [
      'lengths an email address could break',
      form({ m: { type: 'string', format: 'email', maxLength: 40 } }),
      'unsupported_constraint',
      /limits the length of an email address \(0 to 40\)/,
    ],
    [
      'a date longer than a date',
      form({ d: { type: 'string', format: 'date', minLength: 11 } }),
      'unsupported_constraint',
      /limits the length of a date/,
    ],
    [
      'a pattern that backtracks (a backreference)',
      form({ t: { type: 'string', pattern: '(a)\\1' } }),
      'unsupported_constraint',
      /pattern askgate cannot match safely: Backreferences/,
    ],
    [
      'a lookahead pattern',
      form({ t: { type: 'string', pattern: '^(?=.*\\d)' } }),
      'unsupported_constraint',
      /Lookahead/,
    ],
    [
      'more characters than askgate takes',
      form({ t: { type: 'string', minLength: 5000 } }),
      'unsupported_constraint',
      /at least 5000 characters; askgate takes answers of at most 4000/,
    ],
    ['no characters at all', form({ t: { type: 'string', maxLength: 0 } }), 'unsupported_constraint', /no characters/],
    [
      'minLength above maxLength',
      form({ t: { type: 'string', minLength: 9, maxLength: 3 } }),
      'invalid_field',
      /minLength above maxLength/,
    ],
    [
      'a fractional length',
      form({ t: { type: 'string', maxLength: 2.5 } }),
      'invalid_field',
      /maxLength: must be a whole number/,
    ],
    [
      'a minimum above the maximum',
      form({ n: { type: 'number', minimum: 9, maximum: 1 } }),
      'invalid_field',
      /"n" cannot be shown \(min: must not be above max/,
    ],
    [
      'an integer field with no whole number in range',
      form({ n: { type: 'integer', minimum: 1.2, maximum: 1.8 } }),
      'invalid_field',
      /no whole number lies between min and max/,
    ],
    [
      'a bound askgate cannot keep exactly',
      form({ n: { type: 'number', maximum: 1e20 } }),
      'invalid_field',
      /max: must be smaller than/,
    ],
    ['a string minimum', form({ n: { type: 'number', minimum: '1' } }), 'invalid_field', /minimum/],
    ['an object field', form({ o: { type: 'object' } }), 'unsupported_field', /type "object"/],
    ['1 choice', form({ a: titled('Only') }), 'choice_count', /1 choices.*2 to 4/],
    ['5 choices', form({ a: titled('A', 'B', 'C', 'D', 'E') }), 'choice_count', /5 choices/],
    ['an empty multi-select', form({ a: { type: 'array', items: { enum: [] } } }), 'choice_count', /0 choices/],
    [
      'minItems 2',
      form({ a: { type: 'array', minItems: 2, items: { enum: ['a', 'b', 'c'] } } }),
      'unsupported_constraint',
      /minItems 2/,
    ],
    [
      'maxItems 2 of 3',
      form({ a: { type: 'array', maxItems: 2, items: { enum: ['a', 'b', 'c'] } } }),
      'unsupported_constraint',
      /maxItems 2/,
    ],
    ['repeated values', form({ a: { type: 'string', enum: ['a', 'a'] } }), 'invalid_field', /repeats a value/],
    [
      'enumNames of another length',
      form({ a: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }),
      'invalid_field',
      /enumNames/,
    ],
    ['a malformed oneOf', form({ a: { type: 'string', oneOf: [{ const: 1 }] } }), 'invalid_field', /not a valid field/],
    ['labels equal ignoring case', form({ a: titled('Yes', 'YES') }), 'invalid_field', /duplicates option 1/],
    ['a reserved "Skip" label', form({ a: titled('Go', 'Skip') }), 'invalid_field', /reserved/],
    ['a control character in a title', form({ a: titled('Go\u0007', 'Stop') }), 'invalid_field', /control character/],
    [
      'a bidi override in the message',
      { ...form({ a: titled('A', 'B') }), message: 'pay \u202eevil' },
      'invalid_field',
      /invisible/,
    ],
  ])('%s', (_name, params, reason, message) => {
    const error = refusal(params);
    expect(error.reason).toBe(reason);
    expect(error.code).toBe(-32602);
    expect(error.data.reason).toBe(reason);
    expect(error.message).toMatch(message);
  });

  it('names the field in data and never echoes a huge hostile key whole', () => {
    const key = `<script>${'k'.repeat(500)}`;
    const error = refusal(form({ [key]: { type: 'object' } }));
    expect(error.data.field).toBe(key);
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('elicitResultOf', () => {
  const mapped = mapElicitation(
    form({
      env: titled('Staging', 'Production'),
      checks: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'l', title: 'Lint' },
            { const: 't', title: 'Tests' },
            { const: 'e', title: 'E2E' },
          ],
        },
      },
      ok: { type: 'boolean' },
    }),
  );

  it('accept carries the const values (not the titles), multi-select values in form order, booleans', () => {
    expect(elicitResultOf(mapped, answered({ env: ['Production'], checks: ['E2E', 'Lint'], ok: ['No'] }))).toEqual({
      action: 'accept',
      content: { env: 'v1', checks: ['l', 'e'], ok: false },
    });
    // Labels match the way askgate matches them: case and width do not matter.
    expect(elicitResultOf(mapped, answered({ env: ['staging'], checks: ['ｌｉｎｔ'], ok: ['yes'] }))).toEqual({
      action: 'accept',
      content: { env: 'v0', checks: ['l'], ok: true },
    });
  });

  it('typed fields: accept carries the result’s values with their JSON types (a number as a number)', () => {
    const typed = mapElicitation(
      form({ n: { type: 'integer' }, when: { type: 'string', format: 'date' }, note: { type: 'string' } }),
    );
    const result: AskResult = {
      status: 'answered',
      answers: { n: ['3'], when: ['2026-12-08'], note: ['Ship it'] },
      answeredBy: { channel: 'test', userId: 'u1' },
      answeredAt: '2026-01-01T00:00:00.000Z',
      values: { n: 3, when: '2026-12-08', note: 'Ship it' },
      raw: { when: 'tomorrow' },
    };
    expect(elicitResultOf(typed, result)).toEqual({
      action: 'accept',
      content: { n: 3, when: '2026-12-08', note: 'Ship it' },
    });
    // A result without values (an askgate before typed answers) is read from answers.
    expect(elicitResultOf(typed, answered({ n: ['3'], when: ['2026-12-08'], note: ['Ship it'] }))).toEqual({
      action: 'accept',
      content: { n: 3, when: '2026-12-08', note: 'Ship it' },
    });
    // A value of the wrong type, or none, cannot be put in the field: cancel, nothing passed on.
    expect(elicitResultOf(typed, { ...result, values: { ...result.values, n: 'three' } })).toEqual({
      action: 'cancel',
    });
    expect(elicitResultOf(typed, answered({ n: ['x'], when: ['2026-12-08'], note: ['a'] }))).toEqual({
      action: 'cancel',
    });
    expect(elicitResultOf(typed, answered({ when: ['2026-12-08'], note: ['a'] }))).toEqual({ action: 'cancel' });
  });

  it('skip declines; timeout, cancelled, superseded and undelivered cancel', () => {
    expect(elicitResultOf(mapped, noAnswer('skipped'))).toEqual({ action: 'decline' });
    for (const reason of ['timeout', 'cancelled', 'superseded', 'undelivered'] as const)
      expect(elicitResultOf(mapped, noAnswer(reason))).toEqual({ action: 'cancel' });
  });

  it('an answer in the human’s own words, or a missing one, cancels (and carries no text)', () => {
    expect(elicitResultOf(mapped, answered({ env: ['Canary please'], checks: ['Lint'], ok: ['Yes'] }))).toEqual({
      action: 'cancel',
    });
    expect(elicitResultOf(mapped, answered({ env: ['Staging'], checks: ['Lint', 'maybe'], ok: ['Yes'] }))).toEqual({
      action: 'cancel',
    });
    expect(elicitResultOf(mapped, answered({ env: ['Staging'], checks: ['Lint'] }))).toEqual({ action: 'cancel' });
    expect(elicitResultOf(mapped, answered({ env: ['Staging', 'Production'], checks: ['Lint'], ok: ['Yes'] }))).toEqual(
      {
        action: 'cancel',
      },
    );
  });
});
