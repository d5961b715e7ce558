import { describe, expect, it } from 'vitest';
import { T0 } from '../helpers/records.js';
import { createAsk, transition, type AskEvent, type TransitionResult } from '../../src/core/lifecycle.js';
import { AnswerRequestSchema, AskRequestSchema, type AskRecord, type Responder } from '../../src/core/schemas.js';
import { personKey } from '../../src/core/agreement.js';

const env = { id: 'env', question: 'Which env?', options: [{ label: 'Production' }, { label: 'Staging' }] };
const checks = { id: 'checks', question: 'Checks?', options: [{ label: 'Lint' }, { label: 'Tests' }] };

function ask(questions: object[] = [env], extra: object = {}): AskRecord {
  const request = AskRequestSchema.parse({ runId: 'r1', questions, agree: 2, ...extra });
  return createAsk(request, 'AbCdEfGhIjKl00', 1, 900, T0).record;
}
function changed(result: TransitionResult): Extract<TransitionResult, { kind: 'changed' }> {
  if (result.kind !== 'changed') throw new Error(`unchanged: ${JSON.stringify(result.outcome)}`);
  return result;
}
/** An API answer as the route makes it: the body validated, `by` as the responder's userId. */
function apiAnswer(by: string, answers: Record<string, string[]>): AskEvent {
  const body = AnswerRequestSchema.parse({ answers, by });
  return { type: 'answer', answers: body.answers!, by: { channel: 'api', userId: body.by! } };
}

// Spellings an operator reads as one name: case, width, composition, ß/ss, white space.
const SAME: [string, string][] = [
  ['alice', 'Alice'],
  ['alice', 'ａｌｉｃｅ'],
  ['Alice', 'ＡＬＩＣＥ'],
  ['alice', '  alice '],
  ['José', 'Jose\u0301'],
  ['josé', 'JOSÉ'],
  ['Strauß', 'STRAUSS'],
  ['ops team', 'Ops\u3000Team'],
  ['ops team', 'ops  team'],
  ['ﬁona', 'fiona'],
];
const DIFFERENT: [string, string][] = [
  ['alice', 'bob'],
  ['alice', 'alice2'],
  ['ops team', 'opsteam'],
];

describe('agree: API identities compare like labels', () => {
  it.each(SAME)('"%s" then "%s" is one person: the second answer replaces the first, the ask stays open', (a, b) => {
    const first = changed(transition(ask(), apiAnswer(a, { env: ['Production'] }), T0 + 1));
    const second = changed(transition(first.record, apiAnswer(b, { env: ['Production'] }), T0 + 2));
    expect(second.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    expect(second.record.status).toBe('pending');
    expect(second.record.responses).toHaveLength(1);
    expect(personKey({ channel: 'api', userId: a })).toBe(personKey({ channel: 'api', userId: b }));
  });

  it.each(DIFFERENT)('"%s" and "%s" are two people: the ask is answered', (a, b) => {
    const first = changed(transition(ask(), apiAnswer(a, { env: ['Production'] }), T0 + 1));
    const second = changed(transition(first.record, apiAnswer(b, { env: ['Production'] }), T0 + 2));
    expect(second.outcome).toEqual({ code: 'resolved' });
  });

  it('the answer keeps `by` as typed; only the comparison is normalised', () => {
    const first = changed(transition(ask(), apiAnswer('Alice', { env: ['Production'] }), T0 + 1));
    expect(first.record.responses?.[0]?.answeredBy).toEqual({ channel: 'api', userId: 'Alice' });
  });

  it('partial answers join across spellings, also when kept under the old exact key', () => {
    const part = changed(transition(ask([env, checks]), apiAnswer('Alice', { env: ['Production'] }), T0 + 1));
    expect(part.outcome).toEqual({ code: 'partial', missing: ['checks'] });
    const done = changed(transition(part.record, apiAnswer('ａｌｉｃｅ', { checks: ['Lint'] }), T0 + 2));
    expect(done.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    expect(done.record.partials).toEqual({});
    // A record stored before this rule keeps `api:Alice` as typed.
    const old: AskRecord = { ...part.record, partials: { 'api:Alice': { env: ['Production'] } } };
    const fromOld = changed(transition(old, apiAnswer('alice', { checks: ['Lint'] }), T0 + 2));
    expect(fromOld.outcome).toEqual({ code: 'counted', matching: 1, needed: 2 });
    expect(fromOld.record.partials).toEqual({});
  });

  it('platform user ids stay exact (opaque ids the platform gives): telegram "Alice" and "alice" are two people', () => {
    const tap = (userId: string): AskEvent => ({
      type: 'answer',
      answers: { env: ['Production'] },
      by: { channel: 'telegram', userId } satisfies Responder,
    });
    const record = ask([env], { to: { channel: 'telegram', chat: '42' } });
    const first = changed(transition(record, tap('Alice'), T0 + 1));
    expect(changed(transition(first.record, tap('alice'), T0 + 2)).outcome).toEqual({ code: 'resolved' });
  });
});
