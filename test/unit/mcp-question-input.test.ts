import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KINDS, KIND_NAMES } from '../../src/core/questions/index.js';
import { CONSTRAINT_FIELDS, QuestionInput } from '../../src/mcp/question-input.js';
import { AskUserInputShape, TOOL_DESCRIPTION, ToolInputError, toAskInput } from '../../src/mcp/tool.js';
import { ASK_USER_DESCRIPTION, AskUserParameters } from '../../src/adapters/openai-agents.js';

// The `ask_user` question is a hand-written flat object (what models read best); core's kinds are
// the truth. These tests hold the two together: a new constraint in a core kind, or a changed
// type, fails here until the tool's schema (and its description) follow.

/** The JSON types a schema admits (its `type`, or the types of its `anyOf` branches). */
function jsonTypes(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    type?: string | string[];
    anyOf?: { type?: string }[];
  };
  const types = json.anyOf ? json.anyOf.map((s) => s.type) : [json.type].flat();
  return types.map((t) => (t === 'integer' ? 'number' : String(t))).sort();
}

/** A field a kind refuses by name (`notApplicable`): optional never. */
const refused = (schema: z.ZodType) => schema instanceof z.ZodOptional && schema.unwrap() instanceof z.ZodNever;

/** Each kind's own constraint fields (not `kind`, not the ones it refuses). */
const ownFields = Object.fromEntries(
  KIND_NAMES.map((name) => [
    name,
    Object.entries(KINDS[name].fields as Record<string, z.ZodType>).filter(
      ([field, schema]) => field !== 'kind' && !refused(schema),
    ),
  ]),
);

describe('ask_user questions and core kinds', () => {
  it('kind offers exactly the registry’s kinds', () => {
    expect(QuestionInput.shape.kind.unwrap().options).toEqual(KIND_NAMES);
  });

  it.each(KIND_NAMES)('every field kind %s takes is a tool field whose JSON type admits core’s', (name) => {
    for (const [field, schema] of ownFields[name]!) {
      expect(CONSTRAINT_FIELDS, `${name}.${field}`).toContain(field);
      const tool = (QuestionInput.shape as Record<string, z.ZodType>)[field]!;
      for (const type of jsonTypes(schema)) expect(jsonTypes(tool), `${name}.${field}`).toContain(type);
    }
  });

  it('every constraint of the tool belongs to some kind, and the description names each kind and constraint', () => {
    const taken = new Set(Object.values(ownFields).flatMap((fields) => fields.map(([field]) => field)));
    expect(new Set(CONSTRAINT_FIELDS)).toEqual(taken);
    for (const kind of KIND_NAMES.filter((k) => k !== 'choice')) expect(TOOL_DESCRIPTION).toContain(`"${kind}"`);
    for (const field of CONSTRAINT_FIELDS.filter((f) => !['options', 'multiSelect'].includes(f)))
      expect(TOOL_DESCRIPTION).toContain(field);
  });
});

describe('the OpenAI Agents ask_user and core kinds', () => {
  const question = AskUserParameters.shape.questions.element;

  it('has the same question fields as MCP’s ask_user (all present, nullable: OpenAI’s strict schemas)', () => {
    expect(Object.keys(question.shape).sort()).toEqual(Object.keys(QuestionInput.shape).sort());
    expect(question.shape.kind.unwrap().options).toEqual(KIND_NAMES);
  });

  it('its description names each typed kind and constraint', () => {
    for (const kind of KIND_NAMES.filter((k) => k !== 'choice')) expect(ASK_USER_DESCRIPTION).toContain(`"${kind}"`);
    for (const field of CONSTRAINT_FIELDS.filter((f) => !['options', 'multiSelect'].includes(f)))
      expect(ASK_USER_DESCRIPTION).toContain(field);
  });
});

const args = z.object(AskUserInputShape);
const input = (questions: object[], extra: object = {}) =>
  toAskInput(args.parse({ questions, ...extra }), { runId: 'typed-1' });

describe('toAskInput with typed questions', () => {
  const typed = [
    { id: 'summary', question: 'Subject line?', kind: 'text', minLength: 5, maxLength: 80, pattern: '[^\\n]+' },
    { id: 'replicas', question: 'How many?', kind: 'number', min: 1, max: 10, integer: true, unit: 'pods' },
    { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01', max: '2026-12-31' },
    { id: 'at', question: 'What time?', kind: 'time', min: '09:00', max: '17:30' },
    { id: 'when', question: 'When?', kind: 'datetime', min: '2026-12-01T00:00:00+01:00' },
    { id: 'mail', question: 'Send it to?', kind: 'email' },
    { id: 'link', question: 'Which PR?', kind: 'url' },
  ];

  it.each(typed)('$kind: passed on as given, without multiSelect', (question) => {
    expect(input([question]).questions).toEqual([question]);
  });

  it('a choice keeps multiSelect false when left out, and kind when given', () => {
    const options = [{ label: 'A' }, { label: 'B' }];
    expect(input([{ question: 'Q?', options }]).questions).toEqual([
      { id: 'q1', question: 'Q?', options, multiSelect: false },
    ]);
    expect(input([{ question: 'Q?', options, kind: 'choice' }]).questions![0]).toMatchObject({
      kind: 'choice',
      multiSelect: false,
    });
  });

  it('onTimeout.default takes a typed value: a number or a string, checked like an answer', () => {
    const ask = input([typed[1]!, typed[2]!], { onTimeout: { default: { replicas: 3, day: '2026-12-08' } } });
    expect(ask.onTimeout).toEqual({ default: { replicas: 3, day: '2026-12-08' } });
    expect(() => input([typed[1]!], { onTimeout: { default: { replicas: 30 } } })).toThrow(
      /onTimeout\.default\.replicas.*between 1 and 10/,
    );
  });

  it.each([
    [
      { question: 'N?', kind: 'number', options: [{ label: 'A' }, { label: 'B' }] },
      'questions.0.options: does not apply to a number question',
    ],
    [
      { question: 'N?', kind: 'number', multiSelect: true },
      'questions.0.multiSelect: does not apply to a number question',
    ],
    [{ question: 'D?', kind: 'date', min: 3 }, 'questions.0.min: must be a date YYYY-MM-DD'],
    [{ question: 'N?', kind: 'number', min: '1' }, 'questions.0.min: must be a number'],
    [{ question: 'N?', kind: 'number', min: 5, max: 1 }, 'questions.0.min: must not be above max'],
    [{ question: 'T?', kind: 'text', pattern: '(a)\\1' }, 'questions.0.pattern'],
    [{ question: 'E?', kind: 'email', maxLength: 50 }, 'questions.0.maxLength: does not apply to an email question'],
    [{ question: 'C?' }, 'questions.0.options'],
  ])('a bad typed question is a tool error naming the field (%#)', (question, message) => {
    expect(() => input([question])).toThrow(ToolInputError);
    expect(() => input([question])).toThrow(message);
  });

  it('an unknown kind is refused by the tool schema', () => {
    expect(args.safeParse({ questions: [{ question: 'Q?', kind: 'colour' }] }).success).toBe(false);
  });
});
