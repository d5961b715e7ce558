import { describe, expect, it } from 'vitest';
import { askRecord, T0 } from '../helpers/records.js';
import { transition } from '../../src/core/lifecycle.js';
import { missingQuestions, normalizeAnswers } from '../../src/core/answers.js';
import { parseReply } from '../../src/core/reply-parser.js';
import { outcomeView } from '../../src/core/outcome-view.js';
import { renderResult } from '../../src/mcp/tool.js';
import {
  AskRecordSchema,
  AskRequestSchema,
  type AskRecord,
  type Question,
  type Responder,
} from '../../src/core/schemas.js';

// Question ids are user-chosen keys: the ones Object.prototype also has must behave like any other.
// Ids the schema refuses ("toString", "__proto__", ...) are in test/unit/schemas.test.ts.
const PROTO_IDS = ['constructor', 'prototype'];
const alice: Responder = { channel: 'telegram', userId: '1001', username: 'alice' };

const q = (id: string): Question => ({
  id,
  header: id.slice(0, 12),
  question: `Which ${id}?`,
  options: [{ label: 'Yes' }, { label: 'No' }],
  multiSelect: false,
});

/** A stored record as it comes back from storage (JSON round trip, then the schema). */
function rec(questions: Question[], over: Partial<AskRecord> = {}): AskRecord {
  return AskRecordSchema.parse(JSON.parse(JSON.stringify(askRecord(questions, over))));
}

describe.each(PROTO_IDS)('question id "%s"', (id) => {
  const questions = [q('env'), q(id)];

  it('is a valid id', () => {
    const parsed = AskRequestSchema.safeParse({
      runId: 'r',
      questions: [{ id, question: 'x?', options: [{ label: 'a' }, { label: 'b' }] }],
    });
    expect(parsed.success).toBe(true);
  });

  it('an API answer leaving it out is refused as incomplete', () => {
    const checked = normalizeAnswers(questions, { env: ['Yes'] }, true);
    expect(checked).toEqual({
      ok: false,
      issues: [{ path: ['answers', id], message: 'missing: answer every question, or skip' }],
    });
    expect(missingQuestions(questions, { env: ['Yes'] })).toEqual([id]);
  });

  it('a partial answer keeps the ask pending, and the rest resolves it with both answers', () => {
    const first = transition(rec(questions), { type: 'answer', answers: { env: ['yes'] }, by: alice }, T0 + 1000);
    expect(first.kind === 'changed' && first.outcome).toEqual({ code: 'partial', missing: [id] });
    if (first.kind !== 'changed') throw new Error('unchanged');
    const stored = rec(questions, { partial: first.record.partial });
    const second = transition(stored, { type: 'answer', answers: { [id]: ['no'] }, by: alice }, T0 + 2000);
    expect(second.kind === 'changed' && second.record.result).toMatchObject({
      status: 'answered',
      answers: { env: ['Yes'], [id]: ['No'] },
    });
  });

  it('the reply parser fills it as an open question, by position and keyed', () => {
    expect(parseReply(questions, '1\n2')).toEqual({ kind: 'answers', answers: { env: ['Yes'], [id]: ['No'] } });
    expect(parseReply(questions, `${id}: Yes`)).toEqual({ kind: 'answers', answers: { [id]: ['Yes'] } });
    expect(parseReply(questions, 'No', rec(questions, { partial: { env: ['Yes'] } }).partial)).toEqual({
      kind: 'answers',
      answers: { [id]: ['No'] },
    });
  });

  it('the final edit and the MCP result show its answer', () => {
    const result = {
      status: 'answered' as const,
      answers: { env: ['Yes'], [id]: ['No'] },
      answeredBy: alice,
      answeredAt: new Date(T0).toISOString(),
    };
    const done = rec(questions, { status: 'answered', result });
    expect(outcomeView(done).text).toBe(`Answered — by @alice\n1. env: Yes\n2. ${id.slice(0, 12)}: No`);
    const single = rec([q(id)], { status: 'answered', result: { ...result, answers: { [id]: ['No'] } } });
    expect(outcomeView(single).text).toBe('Answered: No — by @alice');
    const rendered = renderResult(
      result,
      questions.map((x) => ({ ...x, header: x.header! })),
    );
    expect(rendered.content[0]!.text).toContain(`(${id}): No`);
  });
});

it('a result missing an answer never shows Object.prototype members (a record written before the fix)', () => {
  const result = {
    status: 'answered' as const,
    answers: { env: ['Yes'] },
    answeredBy: alice,
    answeredAt: new Date(T0).toISOString(),
  };
  const done = rec([q('env'), q('constructor')], { status: 'answered', result });
  expect(outcomeView(done).text).toBe('Answered — by @alice\n1. env: Yes\n2. constructor: ');
  expect(
    renderResult(
      result,
      [q('env'), q('constructor')].map((x) => ({ ...x, header: x.header! })),
    ).content[0]!.text,
  ).toContain('(constructor): ');
});
