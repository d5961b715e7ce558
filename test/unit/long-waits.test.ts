import { describe, expect, it } from 'vitest';
import { DEADLINE, T0, askRecord, iso } from '../helpers/records.js';
import {
  ExtendRequestSchema,
  askDeadline,
  extendDeadline,
  hasWayBack,
  type TimeoutBounds,
} from '../../src/core/deadline.js';
import { transition } from '../../src/core/lifecycle.js';
import { stepCall } from '../../src/core/step-due.js';
import { createAsk } from '../../src/core/new-ask.js';
import { AskRequestSchema, type AskRecord, type Question } from '../../src/core/schemas.js';
import { loadConfig } from '../../src/config.js';

const q: Question[] = [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'Yes' }, { label: 'No' }] }];
const bounds: TimeoutBounds = {
  defaultSeconds: 900,
  minSeconds: 30,
  maxSeconds: 3600,
  asyncMaxSeconds: 2_592_000,
  extendMinSeconds: 60,
};
const DAY = 86_400;
const api = { channel: 'api', userId: 'ops-lead' };

describe('hasWayBack: what lets an ask wait past the short maximum', () => {
  it.each([
    ['nothing', {}, false],
    ['async: false', { async: false }, false],
    ['async: true', { async: true }, true],
    ['a callbackUrl (a webhook, or an A2A push config)', { callbackUrl: 'https://agent.example/hook' }, true],
  ])('%s', (_name, ask, expected) => expect(hasWayBack(ask)).toBe(expected));
});

describe('askDeadline: the deadline of a new ask', () => {
  const rows: [string, { timeoutSeconds?: number; expiresAt?: string }, boolean, number | string][] = [
    ['no timeout: the default', {}, false, 900],
    ['below the minimum: clamped up', { timeoutSeconds: 5 }, false, 30],
    ['7 days without a way back: clamped to the short maximum', { timeoutSeconds: 7 * DAY }, false, 3600],
    ['7 days with a way back: kept', { timeoutSeconds: 7 * DAY }, true, 7 * DAY],
    ['a year with a way back: clamped to the long maximum', { timeoutSeconds: 365 * DAY }, true, 30 * DAY],
    ['expiresAt in 2 days with a way back', { expiresAt: iso(T0 + 2 * DAY * 1000) }, true, 2 * DAY],
    ['expiresAt with an offset', { expiresAt: '2030-01-01T16:00:00+01:00' }, false, 3600],
    ['expiresAt in the past', { expiresAt: iso(T0 - 1000) }, true, 'is in the past'],
    ['expiresAt now', { expiresAt: iso(T0) }, true, 'is in the past'],
    ['expiresAt before the minimum', { expiresAt: iso(T0 + 10_000) }, true, 'must be at least 30 s from now'],
    [
      'expiresAt in 2 days without a way back',
      { expiresAt: iso(T0 + 2 * DAY * 1000) },
      false,
      'must be at most 3600 s from now: an ask without a way back (callbackUrl, "async": true, an A2A push config or an MCP task) waits at most that long',
    ],
    [
      'expiresAt beyond the long maximum',
      { expiresAt: iso(T0 + 31 * DAY * 1000) },
      true,
      'must be at most 2592000 s from now',
    ],
  ];
  it.each(rows)('%s', (_name, request, wayBack, expected) => {
    const found = askDeadline(request, wayBack, bounds, T0);
    if (typeof expected === 'number') expect(found).toEqual({ ok: true, at: T0 + expected * 1000, seconds: expected });
    else expect(found).toEqual({ ok: false, issues: [{ path: ['expiresAt'], message: expected }] });
  });

  it('an expiresAt between whole seconds is kept exactly; its timeoutSeconds rounds up', () => {
    const found = askDeadline({ expiresAt: iso(T0 + 3_600_500) }, true, bounds, T0);
    expect(found).toEqual({ ok: true, at: T0 + 3_600_500, seconds: 3601 });
    const { record, effects } = createAsk(
      AskRequestSchema.parse({ runId: 'r', questions: q, async: true }),
      'AbCdEfGhIjKl',
      1,
      3601,
      T0,
      { deadline: T0 + 3_600_500 },
    );
    expect(record).toMatchObject({ expiresAt: iso(T0 + 3_600_500), timeoutSeconds: 3601, async: true });
    expect(effects).toContainEqual({ type: 'schedule', step: 'timeout', at: T0 + 3_600_500 });
  });
});

describe('the ask request: async and expiresAt', () => {
  const base = { runId: 'r', questions: [{ question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] };
  const issues = (body: object) => {
    const parsed = AskRequestSchema.safeParse({ ...base, ...body });
    return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
  };
  it('takes both fields', () => {
    expect(issues({ async: true, expiresAt: '2030-01-02T00:00:00Z' })).toEqual([]);
  });
  it('refuses timeoutSeconds and expiresAt together, naming expiresAt', () => {
    expect(issues({ timeoutSeconds: 60, expiresAt: '2030-01-02T00:00:00Z' })).toEqual([
      { path: ['expiresAt'], message: 'give timeoutSeconds or expiresAt, not both' },
    ]);
  });
  it.each(['2030-01-02', '2030-01-02T00:00:00', 'tomorrow', 1893456000])('refuses expiresAt %j', (expiresAt) => {
    expect(issues({ expiresAt })).toEqual([
      { path: ['expiresAt'], message: 'must be an ISO 8601 time with an offset, e.g. "2026-12-24T17:00:00Z"' },
    ]);
  });
  it('refuses an async that is not a boolean', () => {
    expect(issues({ async: 'yes' })).toEqual([{ path: ['async'], message: 'must be true or false' }]);
  });
});

describe('extendDeadline: where an extension may move the deadline', () => {
  const plain = askRecord(q);
  const durable = askRecord(q, { async: true });
  const rows: [string, AskRecord, object, number | [string, string]][] = [
    ['an hour from now', plain, { timeoutSeconds: 3600 }, 3600],
    ['shorter, still a minute ahead', plain, { timeoutSeconds: 60 }, 60],
    ['under a minute', plain, { timeoutSeconds: 59 }, ['timeoutSeconds', 'must be at least 60 s']],
    [
      'beyond the short maximum without a way back',
      plain,
      { timeoutSeconds: 3601 },
      [
        'timeoutSeconds',
        'must be at most 3600 s: an ask without a way back (callbackUrl, "async": true, an A2A push config or an MCP task) waits at most',
      ],
    ],
    ['7 days on an async ask', durable, { timeoutSeconds: 7 * DAY }, 7 * DAY],
    ['past the long maximum', durable, { timeoutSeconds: 31 * DAY }, ['timeoutSeconds', 'must be at most 2592000 s']],
    ['expiresAt in 3 days on an async ask', durable, { expiresAt: iso(T0 + 3 * DAY * 1000) }, 3 * DAY],
    ['expiresAt in 30 s', durable, { expiresAt: iso(T0 + 30_000) }, ['expiresAt', 'must be at least 60 s from now']],
    ['expiresAt in the past', durable, { expiresAt: iso(T0 - 1) }, ['expiresAt', 'is in the past']],
  ];
  it.each(rows)('%s', (_name, record, by, expected) => {
    const found = extendDeadline(record, by as { timeoutSeconds: number }, bounds, T0);
    if (typeof expected === 'number') expect(found).toMatchObject({ ok: true, at: T0 + expected * 1000 });
    else expect(found).toEqual({ ok: false, issues: [{ path: [expected[0]], message: expected[1] }] });
  });
});

describe('ExtendRequestSchema', () => {
  const parse = (body: unknown) => ExtendRequestSchema.safeParse(body);
  it('reads timeoutSeconds or expiresAt, and by', () => {
    expect(parse({ timeoutSeconds: 600, by: 'alice' }).data).toEqual({ until: { timeoutSeconds: 600 }, by: 'alice' });
    expect(parse({ expiresAt: '2030-01-02T00:00:00Z' }).data).toEqual({ until: { expiresAt: '2030-01-02T00:00:00Z' } });
  });
  it.each([
    [{}, 'timeoutSeconds', 'give timeoutSeconds or expiresAt (one of them)'],
    [
      { timeoutSeconds: 60, expiresAt: '2030-01-02T00:00:00Z' },
      'expiresAt',
      'give timeoutSeconds or expiresAt (one of them)',
    ],
    [{ timeoutSeconds: 1.5 }, 'timeoutSeconds', 'must be a whole number of seconds'],
    [{ timeoutSeconds: -5 }, 'timeoutSeconds', 'must be positive'],
    [{ expiresAt: 'soon' }, 'expiresAt', 'must be an ISO 8601 time with an offset, e.g. "2026-12-24T17:00:00Z"'],
  ])('refuses %j naming %s', (body, path, message) => {
    const issues = parse(body).error?.issues ?? [];
    expect(issues.map((i) => ({ path: i.path, message: i.message }))).toContainEqual({ path: [path], message });
  });
  it('refuses unknown fields', () => expect(parse({ timeoutSeconds: 60, reason: 'x' }).success).toBe(false));
});

describe('the extend transition', () => {
  const sent = askRecord(q, {
    deliveries: [
      { channel: 'telegram', chat: '42', status: 'sent', finalized: 'no', message: { messageId: '7' } },
      { channel: 'slack', chat: 'C1', status: 'failed', finalized: 'no' },
      { channel: 'discord', chat: 'D1', status: 'sent', finalized: 'no', message: { messageId: '8' } },
    ],
  } as Partial<AskRecord>);
  const later = DEADLINE + 7 * DAY * 1000;

  it('moves a pending ask’s deadline, records who asked and both deadlines, moves the timeout job, refreshes every sent message', () => {
    const result = transition(sent, { type: 'extend', at: later, by: api }, T0 + 1000);
    expect(result.kind).toBe('changed');
    if (result.kind !== 'changed') return;
    expect(result.outcome).toEqual({ code: 'updated' });
    expect(result.record).toMatchObject({ status: 'pending', rev: sent.rev + 1, expiresAt: iso(later), extended: 1 });
    expect(result.record.timeoutSeconds).toBe(900);
    expect(result.record.history.at(-1)).toEqual({
      type: 'extended',
      channel: 'api',
      userId: 'ops-lead',
      from: iso(DEADLINE),
      to: iso(later),
      at: iso(T0 + 1000),
    });
    expect(result.effects).toEqual([
      { type: 'reschedule', step: 'timeout', at: later },
      { type: 'enqueue', job: { kind: 'refresh', index: 0 } },
      { type: 'enqueue', job: { kind: 'refresh', index: 2 } },
    ]);
    const again = transition(result.record, { type: 'extend', at: later + 1000, by: api }, T0 + 2000);
    expect(again.kind === 'changed' && again.record.extended).toBe(2);
  });

  it('an earlier deadline also brings the reconciler’s look forward', () => {
    const result = transition(sent, { type: 'extend', at: T0 + 120_000, by: api }, T0);
    expect(result.kind === 'changed' && result.effects).toContainEqual({ type: 'sweepAt', at: T0 + 120_000 });
  });

  it('refuses an ended ask (already_resolved) and one past its deadline (expired), changing nothing', () => {
    const ended = askRecord(q, {
      status: 'answered',
      result: { status: 'answered', answers: { q1: ['Yes'] }, answeredBy: api, answeredAt: iso(T0) },
    } as Partial<AskRecord>);
    expect(transition(ended, { type: 'extend', at: later, by: api }, T0)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'already_resolved' },
    });
    expect(transition(sent, { type: 'extend', at: later, by: api }, DEADLINE + 1)).toEqual({
      kind: 'unchanged',
      outcome: { code: 'expired' },
    });
  });

  it('the old timeout job, firing at the old deadline, finds the step not due and waits for the new one', () => {
    const result = transition(sent, { type: 'extend', at: later, by: api }, T0);
    if (result.kind !== 'changed') throw new Error('not changed');
    expect(stepCall(result.record, 'timeout', DEADLINE)).toEqual({ kind: 'wait', notBefore: later });
    expect(transition(result.record, { type: 'timeout' }, DEADLINE).kind).toBe('unchanged');
    const ended = transition(result.record, { type: 'timeout' }, later);
    expect(ended.kind === 'changed' && ended.record.result).toMatchObject({ status: 'no_answer', reason: 'timeout' });
  });

  it('an answer after the old deadline and before the new one counts', () => {
    const result = transition(sent, { type: 'extend', at: later, by: api }, T0);
    if (result.kind !== 'changed') throw new Error('not changed');
    const answered = transition(
      result.record,
      { type: 'answer', answers: { q1: ['Yes'] }, by: { channel: 'telegram', userId: '5' } },
      DEADLINE + 60_000,
    );
    expect(answered.kind === 'changed' && answered.record.status).toBe('answered');
  });
});

describe('ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS and ASKGATE_EXTEND_MIN_SECONDS', () => {
  it('default to 30 days and 60 s', () => {
    expect(loadConfig({}).timeouts).toEqual({ ...bounds, remindEveryMinSeconds: 3600 });
  });
  it('refuses a long maximum below the short one, naming both', () => {
    expect(() =>
      loadConfig({ ASKGATE_TIMEOUT_MAX_SECONDS: '7200', ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS: '3600' }),
    ).toThrow(/ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS is below ASKGATE_TIMEOUT_MAX_SECONDS/);
    expect(
      loadConfig({ ASKGATE_TIMEOUT_MAX_SECONDS: '7200', ASKGATE_ASYNC_TIMEOUT_MAX_SECONDS: '7200' }).timeouts,
    ).toMatchObject({ maxSeconds: 7200, asyncMaxSeconds: 7200 });
  });
  it('refuses an extension floor of 0', () => {
    expect(() => loadConfig({ ASKGATE_EXTEND_MIN_SECONDS: '0' })).toThrow(/ASKGATE_EXTEND_MIN_SECONDS/);
  });
});
