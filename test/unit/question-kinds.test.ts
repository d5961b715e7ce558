import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AskRequestSchema } from '../../src/core/schemas.js';
import { KINDS, kindOf } from '../../src/core/questions/index.js';
import { AskUserInputShape, toAskInput } from '../../src/mcp/tool.js';

const question = { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] };
const ask = (q: object) => AskRequestSchema.safeParse({ runId: 'kinds-1', questions: [q] });

describe('question kinds', () => {
  it('a question without kind is a choice; the registry has every kind', () => {
    expect(Object.keys(KINDS)).toEqual(['choice', 'text', 'number', 'date', 'time', 'datetime', 'email', 'url']);
    expect(kindOf({}).name).toBe('choice');
    expect(kindOf({ kind: 'choice' })).toBe(kindOf({}));
  });

  it('POST /v1/asks (and A2A) take kind "choice" and store the question as if it were left out', () => {
    const given = ask({ ...question, kind: 'choice' });
    const plain = ask(question);
    expect(given.success && plain.success).toBe(true);
    expect(given.data!.questions).toEqual(plain.data!.questions);
    expect(given.data!.questions[0]).not.toHaveProperty('kind');
  });

  it('refuses an unknown kind, naming the field', () => {
    const refused = ask({ ...question, kind: 'colour' });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['questions.0.kind', 'must be one of: choice, text, number, date, time, datetime, email, url'],
    ]);
  });

  it('MCP ask_user takes kind "choice" and refuses an unknown kind (typed kinds: mcp-question-input.test.ts)', () => {
    const args = z.object(AskUserInputShape);
    const parsed = args.parse({ questions: [{ ...question, kind: 'choice' }] });
    expect(toAskInput(parsed, { runId: 'kinds-2' }).questions![0]).toMatchObject({ kind: 'choice' });
    expect(args.safeParse({ questions: [{ ...question, kind: 'colour' }] }).success).toBe(false);
  });
});
