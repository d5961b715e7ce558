import { describe, expect, it } from 'vitest';
import {
  ElicitationRefusedError,
  elicitResultOf,
  mapElicitation,
  questionIdFor,
  type ElicitationRefusal,
} from '../../src/client/elicitation-form.js';
import { AskRequestSchema, type AskResult } from '../../src/core/schemas.js';

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
    ['a free text field', form({ name: { type: 'string', title: 'Name' } }), 'free_text', /"name" asks for free text/],
    ['an email field', form({ mail: { type: 'string', format: 'email' } }), 'free_text', /free text/],
    ['a number field', form({ n: { type: 'number' } }), 'number', /number/],
    ['an integer field', form({ n: { type: 'integer', minimum: 1 } }), 'number', /number/],
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
    const error = refusal(form({ [key]: { type: 'number' } }));
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
