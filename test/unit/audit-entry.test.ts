// How an ask's history becomes audit entries (core/audit/entry.ts): the endings named by what
// happened, the person's name, values with own words hashed unless kept, and the cursor that finds
// its place again in a capped history.
import { describe, expect, it } from 'vitest';
import { auditBodies, freshEntries, type AuditMapping } from '../../src/core/audit/entry.js';
import { HISTORY_LIMIT, withHistory } from '../../src/core/record-history.js';
import type { AskRecord, HistoryEntry } from '../../src/core/schemas.js';
import { sha256 } from '../../src/audit/crypto.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const hash: AuditMapping = { text: 'hash', digest: sha256 };
const keep: AuditMapping = { text: 'keep', digest: sha256 };
const questions = [
  { id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }], multiSelect: false },
  { id: 'why', question: 'Why?', kind: 'text' as const },
] as unknown as Parameters<typeof askRecord>[0];
const created: HistoryEntry = { type: 'created', at: iso(T0), channel: 'telegram' };
/** The test ask, its history begun as every ask's is. */
const ask = (over: Partial<AskRecord> = {}) => askRecord(questions, { history: [created], ...over });
const ana = { channel: 'telegram', userId: '7', name: 'Ana Lima', username: 'ana' };

function answered(values: Record<string, unknown>, extra: Partial<AskRecord> = {}): AskRecord {
  const base = ask({ agent: 'deploy-bot', ...extra });
  const record: AskRecord = {
    ...base,
    status: 'answered',
    result: {
      status: 'answered',
      answers: {},
      values: values as never,
      raw: { why: 'coz the weekend is quiet' },
      answeredBy: ana,
      answeredAt: iso(T0 + 5000),
    },
  };
  return withHistory(record, [{ type: 'answered', channel: 'telegram', userId: '7' }], T0 + 5000);
}

const all = (r: AskRecord) => r.history.map((entry, ordinal) => ({ entry, ordinal }));

describe('audit bodies', () => {
  it('an answer: the person with their name, the values, own words and raw as SHA-256 by default', () => {
    const record = answered({ env: ['Staging', 'Moon base'], why: 'because the weekend is quiet' });
    const [created, answer] = auditBodies(record, all(record), hash);
    expect(created).toMatchObject({ type: 'created', id: `${record.id}/0`, agent: 'deploy-bot', run: record.runId });
    expect(created!.detail).toMatchObject({ kind: 'questions', questions: ['env', 'why'], targets: ['telegram'] });
    expect(answer).toMatchObject({
      type: 'answered',
      id: `${record.id}/1`,
      actor: { channel: 'telegram', userId: '7', name: 'Ana Lima' },
    });
    expect(answer!.detail).toEqual({
      values: { env: ['Staging', sha256('Moon base')], why: sha256('because the weekend is quiet') },
      rawSha256: sha256('{"why":"coz the weekend is quiet"}'),
    });
    expect(JSON.stringify(answer)).not.toMatch(/weekend|Moon/);
  });

  it('ASKGATE_AUDIT_TEXT=keep keeps the words', () => {
    const record = answered({ env: ['Moon base'], why: 'because' });
    expect(auditBodies(record, all(record), keep)[1]!.detail).toEqual({
      values: { env: ['Moon base'], why: 'because' },
      raw: { why: 'coz the weekend is quiet' },
    });
  });

  it.each([
    ['timeout', { defaults: { env: ['Staging'] } }, 'defaulted'],
    ['timeout', {}, 'timed_out'],
    ['cancelled', {}, 'cancelled'],
    ['superseded', {}, 'superseded'],
    ['skipped', {}, 'skipped'],
    ['undelivered', {}, 'undelivered'],
  ] as const)('an ending without an answer, reason %s %j, is %s', (reason, extra, type) => {
    const base = ask();
    const record = withHistory(
      {
        ...base,
        status: 'no_answer',
        result: { status: 'no_answer', reason, at: iso(T0 + 1000), ...(extra as object) },
      },
      [{ type: 'no_answer', reason }],
      T0 + 1000,
    );
    const end = auditBodies(record, all(record), hash)[1]!;
    expect(end.type).toBe(type);
    expect(end.detail).toMatchObject({ reason, ...('defaults' in extra ? { values: { env: ['Staging'] } } : {}) });
  });

  it('one person’s response when several must agree: their values, the reason as a hash', () => {
    const response = {
      answers: { env: ['Production'] },
      reason: 'I own the release',
      answeredBy: ana,
      answeredAt: iso(T0 + 2000),
    };
    const record = withHistory(
      ask({ responses: [response] }),
      [{ type: 'response', channel: 'telegram', userId: '7' }],
      T0 + 2000,
    );
    expect(auditBodies(record, all(record), hash)[1]).toMatchObject({
      type: 'response',
      actor: { channel: 'telegram', userId: '7', name: 'Ana Lima' },
      detail: { values: { env: ['Production'] }, reasonSha256: sha256('I own the release') },
    });
  });

  it('history entries of every other kind pass through with their fields', () => {
    const record = withHistory(
      ask(),
      [
        { type: 'delivered', channel: 'telegram', messageId: '9' },
        { type: 'reminded', detail: 'reminder 1' },
        { type: 'guard_blocked', tool: 'rm_rf' },
      ],
      T0 + 10,
    );
    const bodies = auditBodies(record, all(record).slice(1), hash);
    expect(bodies.map((b) => [b.type, b.actor, b.detail])).toEqual([
      ['delivered', { channel: 'telegram' }, { messageId: '9' }],
      ['reminded', undefined, { detail: 'reminder 1' }],
      ['guard_blocked', undefined, { tool: 'rm_rf' }],
    ]);
  });
});

describe('the cursor over an ask history', () => {
  const entry = (n: number): Omit<HistoryEntry, 'at'> => ({ type: 'reply_rejected', reason: `r${n}` });

  it('gives the entries after it, with their ordinals, and moves', () => {
    let record = withHistory(ask(), [entry(1), entry(2)], T0 + 1);
    const first = freshEntries(record.history, null, sha256);
    expect(first.fresh.map((f) => f.ordinal)).toEqual([0, 1, 2]);
    expect(freshEntries(record.history, first.next, sha256).fresh).toEqual([]);
    record = withHistory(record, [entry(3)], T0 + 2);
    const second = freshEntries(record.history, first.next, sha256);
    expect(second.fresh.map((f) => [f.ordinal, f.entry.reason])).toEqual([[3, 'r3']]);
    expect(second.next).toEqual({ count: 4, last: expect.any(String) });
  });

  it('finds its place again once the history was capped, and says when entries were lost', () => {
    let record = withHistory(ask(), [entry(1)], T0 + 1);
    const seen = freshEntries(record.history, null, sha256).next; // 2 entries read
    record = withHistory(
      record,
      Array.from({ length: 50 }, (_, i) => entry(100 + i)),
      T0 + 2,
    );
    record = withHistory(
      record,
      Array.from({ length: 60 }, (_, i) => entry(200 + i)),
      T0 + 3,
    );
    expect(record.history).toHaveLength(HISTORY_LIMIT);
    // r1 was dropped by the cap: the entries between are lost, and said to be.
    const lost = freshEntries(record.history, seen, sha256);
    expect(lost.gap).toBe(true);
    expect(lost.fresh[0]!.entry).toBe(record.history[1]);
    // A cursor whose last entry is still there (but not where its count says) finds it by content.
    const mid = freshEntries(record.history.slice(0, 50), null, sha256).next!;
    const resumed = freshEntries(record.history, { count: 500, last: mid.last }, sha256);
    expect(resumed.gap).toBe(false);
    expect(resumed.fresh[0]!.entry).toBe(record.history[50]);
    expect(resumed.fresh[0]!.ordinal).toBe(500);
  });
});
