import { describe, expect, it } from 'vitest';
import { AskRequestSchema } from '../../src/core/schemas.js';
import { toIssues } from '../../src/core/errors.js';
import { policyIssues, policyOf } from '../../src/core/policy.js';

const questions = [
  { id: 'env', question: 'Which env?', options: [{ label: 'Production' }, { label: 'Staging' }] },
  {
    id: 'checks',
    question: 'Which checks?',
    options: [{ label: 'Lint' }, { label: 'Tests' }, { label: 'Build' }],
    multiSelect: true,
  },
];
const tg = (chat: string, extra: object = {}) => ({ channel: 'telegram', chat, ...extra });
const body = (extra: Record<string, unknown>) => ({ runId: 'r1', questions, ...extra });

/** The `path: message` lines a request is refused with (empty when it is accepted). */
function refusals(extra: Record<string, unknown>): string[] {
  const parsed = AskRequestSchema.safeParse(body(extra));
  return parsed.success ? [] : toIssues(parsed.error.issues).map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('several targets', () => {
  it('takes one target or a list of 1–5, on any mix of channels', () => {
    expect(refusals({ to: tg('1') })).toEqual([]);
    expect(refusals({ to: [tg('1'), { channel: 'slack', chat: 'C1' }, { channel: 'discord', chat: '9' }] })).toEqual(
      [],
    );
    expect(refusals({ to: [tg('1'), tg('1', { thread: '5' })] })).toEqual([]);
  });

  it.each([
    ['an empty list', [], ['to: list at least one target']],
    ['six targets', ['1', '2', '3', '4', '5', '6'].map((c) => tg(c)), ['to: list at most 5 targets']],
    [
      'the same conversation twice',
      [tg('1'), tg('2'), tg('1')],
      ['to.2: duplicates target 1 (same channel, chat and thread)'],
    ],
    [
      'a bad target in a list',
      [tg('1'), { channel: 'Tele gram', chat: '2' }],
      ['to.1.channel: must be a channel name such as "telegram"'],
    ],
    ['a bad single target', { channel: 'telegram' }, ['to.chat: Invalid input: expected string, received undefined']],
    ['a string', 'telegram:1', ['to: must be a target {channel, chat} or a list of 1–5 targets']],
  ])('refuses %s, naming to[i]', (_name, to, expected) => {
    expect(refusals({ to })).toEqual(expected);
  });

  it('refuses hostile ids in a listed target like a single one', () => {
    expect(refusals({ to: [tg('1'), tg('a b')] })).toEqual([
      'to.1.chat: must be a platform id: printable ASCII without spaces',
    ]);
  });
});

describe('reminders and escalation', () => {
  it('accept 1–3 ascending whole offsets', () => {
    expect(refusals({ to: tg('1'), remindAfterSeconds: [60, 120, 180] })).toEqual([]);
    expect(refusals({ to: tg('1'), escalate: [{ afterSeconds: 60, to: [{ channel: 'slack', chat: 'C1' }] }] })).toEqual(
      [],
    );
  });

  it.each([
    [{ remindAfterSeconds: [] }, 'remindAfterSeconds: give at least one offset'],
    [{ remindAfterSeconds: [1, 2, 3, 4] }, 'remindAfterSeconds: give at most 3 offsets'],
    [{ remindAfterSeconds: [60, 60] }, 'remindAfterSeconds.1: must be later than the reminder before it'],
    [{ remindAfterSeconds: [60, 30] }, 'remindAfterSeconds.1: must be later than the reminder before it'],
    [{ remindAfterSeconds: [1.5] }, 'remindAfterSeconds.0: must be a whole number of seconds'],
    [{ remindAfterSeconds: [0] }, 'remindAfterSeconds.0: must be positive'],
    [{ remindAfterSeconds: ['60'] }, 'remindAfterSeconds.0: must be a number of seconds'],
    [{ escalate: [] }, 'escalate: give at least one step'],
    [
      {
        escalate: [
          { afterSeconds: 60, to: tg('2') },
          { afterSeconds: 30, to: tg('3') },
        ],
      },
      'escalate.1.afterSeconds: must be later than the step before it',
    ],
    [{ escalate: [{ afterSeconds: 60 }] }, 'escalate.0.to: must be a target {channel, chat} or a list of 1–5 targets'],
    [
      { escalate: [{ afterSeconds: 60, to: [tg('2'), tg('2')] }] },
      'escalate.0.to.1: duplicates target 1 (same channel, chat and thread)',
    ],
    [{ escalate: [{ afterSeconds: 60, to: tg('2'), extra: 1 }] }, 'escalate.0: Unrecognized key: "extra"'],
  ])('refuses %j', (extra, expected) => {
    expect(refusals({ to: tg('1'), ...extra })).toEqual([expected]);
  });

  it('allows escalation of an ask with no target of its own (console first, then chat)', () => {
    expect(refusals({ escalate: [{ afterSeconds: 60, to: tg('2') }] })).toEqual([]);
  });

  it('refuses offsets at or past the clamped timeout, naming each', () => {
    const request = AskRequestSchema.parse(
      body({
        to: tg('1'),
        remindAfterSeconds: [60, 300],
        escalate: [
          { afterSeconds: 299, to: tg('2') },
          { afterSeconds: 400, to: tg('3') },
        ],
      }),
    );
    expect(policyIssues(request, 300)).toEqual([
      { path: ['remindAfterSeconds', 1], message: 'must be below the timeout (300 s after clamping)' },
      { path: ['escalate', 1, 'afterSeconds'], message: 'must be below the timeout (300 s after clamping)' },
    ]);
    expect(policyIssues(request, 401)).toEqual([]);
  });
});

describe('onTimeout.default', () => {
  it('normalises labels like answers and stores them canonical', () => {
    const request = AskRequestSchema.parse(
      body({ onTimeout: { default: { env: ['  staging '], checks: ['LINT', 'tests', 'Lint'] } } }),
    );
    expect(policyOf(request)).toEqual({ onTimeout: { default: { env: ['Staging'], checks: ['Lint', 'Tests'] } } });
  });

  it.each([
    [{ nope: ['Production'] }, 'onTimeout.default.nope: no question has id "nope" (ids: env, checks)'],
    [{ env: ['Prod'] }, 'onTimeout.default.env.0: must be one of the options: Production, Staging'],
    [
      { env: ['Production', 'Staging'] },
      'onTimeout.default.env: this question takes a single answer: give exactly one label',
    ],
    [{ env: [] }, 'onTimeout.default.env: give at least one label'],
    [
      { constructor: ['Production'] },
      'onTimeout.default.constructor: no question has id "constructor" (ids: env, checks)',
    ],
    [{ toString: ['Production'] }, 'onTimeout.default.toString: no question has id "toString" (ids: env, checks)'],
    [{ env: ['Other'] }, 'onTimeout.default.env.0: must be one of the options: Production, Staging'],
  ])('refuses %j', (defaults, expected) => {
    expect(refusals({ onTimeout: { default: defaults } })).toEqual([expected]);
  });

  it('refuses a __proto__ key (JSON.parse keeps it as an own key)', () => {
    const raw = JSON.parse(
      '{"runId":"r1","questions":[{"question":"Q?","options":[{"label":"A"},{"label":"B"}]}],"onTimeout":{"default":{"__proto__":["A"]}}}',
    );
    const parsed = AskRequestSchema.safeParse(raw);
    expect(parsed.success).toBe(false);
    expect(toIssues(parsed.error!.issues)).toEqual([
      { path: ['onTimeout', 'default', '__proto__'], message: 'names like "__proto__" are reserved' },
    ]);
  });

  it('names a question "constructor" when it is one of the ask', () => {
    const parsed = AskRequestSchema.parse({
      runId: 'r1',
      questions: [{ id: 'constructor', question: 'Q?', options: [{ label: 'A' }, { label: 'B' }] }],
      onTimeout: { default: { constructor: ['b'] } },
    });
    expect(policyOf(parsed)?.onTimeout?.default).toEqual({ constructor: ['B'] });
  });
});

describe('agree', () => {
  it.each([
    [{ agree: 0 }, 'agree: must be at least 1'],
    [{ agree: 11 }, 'agree: must be at most 10'],
    [{ agree: 2.5 }, 'agree: must be a whole number'],
    [{ agree: '2' }, 'agree: must be a number'],
  ])('refuses %j', (extra, expected) => {
    expect(refusals({ to: tg('1'), ...extra })).toEqual([expected]);
  });

  it('refuses more people than every target allows, counting people per channel across escalation', () => {
    const to = [tg('1', { users: ['a', 'b'] }), { channel: 'slack', chat: 'C1', users: ['a'] }];
    expect(refusals({ to, agree: 3 })).toEqual([]);
    expect(refusals({ to, agree: 4 })).toEqual([
      'agree: needs 4 people but the targets allow only 3 (their users lists)',
    ]);
    expect(refusals({ to: tg('1', { users: ['a'] }), agree: 2 })).toEqual([
      'agree: needs 2 people but the targets allow only 1 (their users lists)',
    ]);
    expect(
      refusals({
        to: tg('1', { users: ['a'] }),
        agree: 2,
        escalate: [{ afterSeconds: 5, to: tg('2', { users: ['b'] }) }],
      }),
    ).toEqual([]);
    // A target without a users list lets anyone there answer: no bound.
    expect(refusals({ to: [tg('1', { users: ['a'] }), tg('2')], agree: 10 })).toEqual([]);
  });

  it('stores agree only above 1 (1 is the default behaviour)', () => {
    expect(policyOf(AskRequestSchema.parse(body({ agree: 1 })))).toBeUndefined();
    expect(policyOf(AskRequestSchema.parse(body({ agree: 3 })))).toEqual({ agree: 3 });
  });
});

describe('outbox jobs of the policies', () => {
  it('reminder job ids differ per reminder and hold no ":"; refresh has one per delivery', async () => {
    const { outboxJobId, OutboxJobData } = await import('../../src/queue/jobs.js');
    const ids = [
      outboxJobId({ kind: 'remind', askId: 'A1', index: 0, n: 1 }),
      outboxJobId({ kind: 'remind', askId: 'A1', index: 0, n: 2 }),
      outboxJobId({ kind: 'refresh', askId: 'A1', index: 0 }),
    ];
    expect(ids).toEqual(['remind-A1-0-1', 'remind-A1-0-2', 'refresh-A1-0']);
    expect(ids.every((id) => !id.includes(':'))).toBe(true);
    expect(OutboxJobData.safeParse({ kind: 'remind', askId: 'A1', index: 0, n: 2 }).success).toBe(true);
    expect(OutboxJobData.safeParse({ kind: 'remind', askId: 'A1', index: 0 }).success).toBe(false);
    expect(OutboxJobData.safeParse({ kind: 'remind', askId: 'A1', index: 0, n: 21 }).success).toBe(false);
    expect(OutboxJobData.safeParse({ kind: 'escalate', askId: 'A1', index: 0 }).success).toBe(false);
  });
});
