import { describe, it, expect } from 'vitest';
import { AskRequestSchema, AnswerRequestSchema, labelKey } from '../../src/core/schemas.js';

type Body = Record<string, any>;

function body(): Body {
  return {
    runId: 'run-1',
    to: { channel: 'telegram', chat: '42', users: ['1001'] },
    questions: [
      {
        header: 'Env',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging (Recommended)', description: 'Safe' }, { label: 'Prod' }],
      },
    ],
    timeoutSeconds: 60,
  };
}

const option = (label: string) => ({ label });
const question = (labels: string[], extra: Body = {}) => ({
  question: 'Which?',
  options: labels.map(option),
  ...extra,
});
const edit = (change: (b: Body) => void): Body => {
  const b = body();
  change(b);
  return b;
};

function issues(input: unknown): { path: string; message: string }[] {
  const parsed = AskRequestSchema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
}

describe('AskRequestSchema accepts', () => {
  it.each<[string, Body]>([
    ['a full request', body()],
    ['no `to` (API-only ask)', edit((b) => delete b.to)],
    ['no timeoutSeconds', edit((b) => delete b.timeoutSeconds)],
    [
      'three questions',
      edit((b) => (b.questions = [question(['a', 'b']), question(['c', 'd']), question(['e', 'f'])])),
    ],
    ['four options', edit((b) => (b.questions[0].options = ['a', 'b', 'c', 'd'].map(option)))],
    ['a runId of 128 characters', edit((b) => (b.runId = 'r'.repeat(128)))],
    ['a runId with . _ -', edit((b) => (b.runId = 'agent_7.run-2024'))],
    [
      'a header longer than 12 characters (shortened for display)',
      edit((b) => (b.questions[0].header = 'Deployment environment')),
    ],
    ['a question of 1000 characters', edit((b) => (b.questions[0].question = 'x'.repeat(1000)))],
    ['labels that mention other', edit((b) => (b.questions[0].options = [option('Other team'), option('Skip tests')]))],
    ['numeric labels', edit((b) => (b.questions[0].options = [option('2'), option('1')]))],
    [
      'explicit snake_case ids',
      edit((b) => (b.questions = [question(['a', 'b'], { id: 'env' }), question(['a', 'b'], { id: 'region_2' })])),
    ],
  ])('%s', (_name, input) => {
    expect(issues(input)).toEqual([]);
  });

  it('fills question ids q1.. and multiSelect false, and trims text', () => {
    const input = edit(
      (b) =>
        (b.questions = [
          question([' a ', 'b']),
          question(['c', 'd'], { id: 'custom', multiSelect: true }),
          question(['e', 'f']),
        ]),
    );
    const parsed = AskRequestSchema.parse(input);
    expect(parsed.questions.map((q) => [q.id, 'multiSelect' in q && q.multiSelect])).toEqual([
      ['q1', false],
      ['custom', true],
      ['q3', false],
    ]);
    expect((parsed.questions[0] as { options: { label: string }[] }).options[0]!.label).toBe('a');
  });
});

describe('AskRequestSchema rejects', () => {
  it.each<[string, Body, string, RegExp]>([
    ['no questions', edit((b) => (b.questions = [])), 'questions', /at least 1 question/],
    [
      'four questions',
      edit((b) => (b.questions = [1, 2, 3, 4].map(() => question(['a', 'b'])))),
      'questions',
      /at most 3 questions/,
    ],
    ['one option', edit((b) => (b.questions[0].options = [option('a')])), 'questions.0.options', /at least 2 options/],
    [
      'five options',
      edit((b) => (b.questions[0].options = ['a', 'b', 'c', 'd', 'e'].map(option))),
      'questions.0.options',
      /at most 4 options/,
    ],
    [
      'an empty label',
      edit((b) => (b.questions[0].options[1].label = '   ')),
      'questions.0.options.1.label',
      /must not be empty/,
    ],
    [
      'a label that is only "(Recommended)"',
      edit((b) => (b.questions[0].options[1].label = '(Recommended)')),
      'questions.0.options.1.label',
      /must not be empty/,
    ],
    [
      'a two-line label',
      edit((b) => (b.questions[0].options[1].label = 'a\nb')),
      'questions.0.options.1.label',
      /single line/,
    ],
    [
      'a label of 101 characters',
      edit((b) => (b.questions[0].options[1].label = 'x'.repeat(101))),
      'questions.0.options.1.label',
      /at most 100/,
    ],
    [
      'duplicate labels ignoring case',
      edit((b) => (b.questions[0].options = [option('Prod'), option('PROD')])),
      'questions.0.options.1.label',
      /duplicates option 1/,
    ],
    [
      'duplicate labels ignoring "(Recommended)"',
      edit((b) => (b.questions[0].options = [option('Prod (Recommended)'), option('prod')])),
      'questions.0.options.1.label',
      /duplicates option 1/,
    ],
    [
      'duplicate labels after NFKC',
      edit((b) => (b.questions[0].options = [option('ＰＲＯＤ'), option('prod')])),
      'questions.0.options.1.label',
      /duplicates option 1/,
    ],
    [
      'an authored "Other" label',
      edit((b) => (b.questions[0].options[1].label = 'Other')),
      'questions.0.options.1.label',
      /reserved.*own words/,
    ],
    [
      'an authored "other…" label',
      edit((b) => (b.questions[0].options[1].label = 'other…')),
      'questions.0.options.1.label',
      /reserved/,
    ],
    [
      'an authored "Skip" label',
      edit((b) => (b.questions[0].options[1].label = 'Skip')),
      'questions.0.options.1.label',
      /reserved/,
    ],
    ['a runId with spaces', edit((b) => (b.runId = 'run 1')), 'runId', /A-Z a-z 0-9/],
    ['a runId of 129 characters', edit((b) => (b.runId = 'r'.repeat(129))), 'runId', /1–128/],
    ['an empty runId', edit((b) => (b.runId = '')), 'runId', /1–128/],
    ['a fractional timeoutSeconds', edit((b) => (b.timeoutSeconds = 60.5)), 'timeoutSeconds', /whole number/],
    ['a zero timeoutSeconds', edit((b) => (b.timeoutSeconds = 0)), 'timeoutSeconds', /positive/],
    ['a string timeoutSeconds', edit((b) => (b.timeoutSeconds = '60')), 'timeoutSeconds', /number/],
    ['an unknown top-level field', edit((b) => (b.colour = 'red')), '', /colour/],
    ['a callbackUrl that is not http(s)', edit((b) => (b.callbackUrl = 'ftp://x/y')), 'callbackUrl', /http/],
    ['an unknown question field', edit((b) => (b.questions[0].default = 'Prod')), 'questions.0', /default/],
    ['an unknown option field', edit((b) => (b.questions[0].options[0].value = 'p')), 'questions.0.options.0', /value/],
    ['an unknown target field', edit((b) => (b.to.bot = 'x')), 'to', /bot/],
    [
      'duplicate question ids',
      edit((b) => (b.questions = [question(['a', 'b'], { id: 'env' }), question(['a', 'b'], { id: 'env' })])),
      'questions.1.id',
      /duplicate question id "env"/,
    ],
    [
      'an explicit id colliding with a filled-in one',
      edit((b) => (b.questions = [question(['a', 'b'], { id: 'q2' }), question(['a', 'b'])])),
      'questions.1.id',
      /duplicate question id "q2"/,
    ],
    [
      'a question id that is not snake_case',
      edit((b) => (b.questions[0].id = 'Env-1')),
      'questions.0.id',
      /snake_case/,
    ],
    [
      'a question of 10k characters',
      edit((b) => (b.questions[0].question = 'x'.repeat(10_000))),
      'questions.0.question',
      /at most 1000/,
    ],
    ['an empty question', edit((b) => (b.questions[0].question = '  ')), 'questions.0.question', /must not be empty/],
    [
      'a header of 61 characters',
      edit((b) => (b.questions[0].header = 'h'.repeat(61))),
      'questions.0.header',
      /at most 60/,
    ],
    ['an empty users list', edit((b) => (b.to.users = [])), 'to.users', /at least one user/],
    ['a bad channel name', edit((b) => (b.to.channel = 'Tele gram')), 'to.channel', /channel name/],
    [
      'a non-boolean multiSelect',
      edit((b) => (b.questions[0].multiSelect = 'yes')),
      'questions.0.multiSelect',
      /boolean/,
    ],
    ['a runId "."', edit((b) => (b.runId = '.')), 'runId', /only dots/],
    ['a runId ".."', edit((b) => (b.runId = '..')), 'runId', /only dots/],
    ['a runId of dots only', edit((b) => (b.runId = '.'.repeat(128))), 'runId', /only dots/],
    [
      'a question id "__proto__"',
      edit((b) => (b.questions[0].id = '__proto__')),
      'questions.0.id',
      /"__proto__" are reserved/,
    ],
    [
      'a question id "__defineGetter__"',
      edit((b) => (b.questions[0].id = '__defineGetter__')),
      'questions.0.id',
      /"__proto__" are reserved/,
    ],
    [
      'a question id "toString" (not snake_case)',
      edit((b) => (b.questions[0].id = 'toString')),
      'questions.0.id',
      /snake_case/,
    ],
    ['a negative timeoutSeconds', edit((b) => (b.timeoutSeconds = -5)), 'timeoutSeconds', /^must be positive$/],
    [
      'a timeoutSeconds of -Infinity (JSON -1e400)',
      edit((b) => (b.timeoutSeconds = -Infinity)),
      'timeoutSeconds',
      /^must be positive$/,
    ],
    [
      'a timeoutSeconds of 1.5',
      edit((b) => (b.timeoutSeconds = 1.5)),
      'timeoutSeconds',
      /^must be a whole number of seconds$/,
    ],
    [
      'a null timeoutSeconds',
      edit((b) => (b.timeoutSeconds = null)),
      'timeoutSeconds',
      /^must be a number of seconds$/,
    ],
    ['a NaN timeoutSeconds', edit((b) => (b.timeoutSeconds = NaN)), 'timeoutSeconds', /^must be a number of seconds$/],
  ])('%s', (_name, input, path, message) => {
    const found = issues(input);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((i) => i.path === path && message.test(i.message))).toBe(true);
  });

  it('rejects non-objects', () => {
    expect(AskRequestSchema.safeParse(null).success).toBe(false);
    expect(AskRequestSchema.safeParse('run-1').success).toBe(false);
  });
});

describe('timeoutSeconds', () => {
  // The gateway clamps every accepted value to ASKGATE_TIMEOUT_MIN/MAX_SECONDS (test/integration/text-and-keys.test.ts).
  it.each([1, 60, 2 ** 53, 1e308])('accepts %s (clamped later, never "not a whole number")', (value) => {
    expect(issues(edit((b) => (b.timeoutSeconds = value)))).toEqual([]);
  });

  it('gives exactly one true message per bad value', () => {
    for (const [value, message] of [
      [0, 'must be positive'],
      [-1e308, 'must be positive'],
      [0.5, 'must be a whole number of seconds'],
      ['60', 'must be a number of seconds'],
      [Infinity, 'must be a finite number of seconds (values above the maximum are clamped to it)'],
    ] as const) {
      expect(issues(edit((b) => (b.timeoutSeconds = value)))).toEqual([{ path: 'timeoutSeconds', message }]);
    }
  });
});

describe('labelKey', () => {
  it.each<[string, string]>([
    ['Staging', 'staging'],
    ['  Staging (Recommended) ', 'staging'],
    ['Staging (recommended)', 'staging'],
    ['Staging(RECOMMENDED)', 'staging'],
    ['ＳＴＡＧＩＮＧ', 'staging'],
    ['(Recommended)', ''],
    ['Recommended', 'recommended'],
    // NFKC first, so a full-width "（Recommended）" suffix is stripped too.
    ['Staging （Recommended）', 'staging'],
  ])('labelKey(%j) is %j', (label, key) => {
    expect(labelKey(label)).toBe(key);
  });
});

describe('AnswerRequestSchema', () => {
  it.each<[string, unknown, boolean]>([
    ['answers', { answers: { q1: ['Prod'] } }, true],
    ['answers with by', { answers: { q1: ['Prod'] }, by: 'ops' }, true],
    ['skip', { skip: true }, true],
    ['skip false', { skip: false }, false],
    ['answers and skip', { answers: { q1: ['Prod'] }, skip: true }, false],
    ['an empty value list', { answers: { q1: [] } }, false],
    ['a blank value', { answers: { q1: ['  '] } }, false],
    ['a value of 4001 characters', { answers: { q1: ['x'.repeat(4001)] } }, false],
    ['an unknown field', { answers: { q1: ['Prod'] }, note: 'x' }, false],
  ])('%s → %s', (_name, input, ok) => {
    expect(AnswerRequestSchema.safeParse(input).success).toBe(ok);
  });
});
