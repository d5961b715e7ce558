import { describe, expect, it } from 'vitest';
import { askBodyFromArgs, UsageError } from '../../src/cli-ask.js';
import { AskRequestSchema } from '../../src/core/schemas.js';

// `askgate ask` with typed questions (issue 35): `--kind` and the constraint flags belong to the
// latest --question, like --option; a number question's --min/--max are JSON numbers.
const run = ['--run', 'cli-typed'];
const questions = (...argv: string[]) => askBodyFromArgs([...run, ...argv]).body.questions;

describe('askgate ask: typed question flags', () => {
  it('every kind family, each flag on its own question; the server schema accepts the body', () => {
    const { body } = askBodyFromArgs([
      ...run,
      '--question',
      'How many replicas?',
      '--kind',
      'number',
      '--min',
      '1',
      '--max',
      '10',
      '--integer',
      '--unit',
      'pods',
      '--question',
      'Which day?',
      '--header',
      'Day',
      '--kind',
      'date',
      '--min',
      '2026-12-01',
      '--question',
      'Subject line?',
      '--kind',
      'text',
      '--min-length',
      '5',
      '--max-length',
      '80',
      '--pattern',
      '[A-Z].*',
      '--default',
      'q1=3',
    ]);
    expect(body.questions).toEqual([
      { question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true, unit: 'pods' },
      { question: 'Which day?', header: 'Day', kind: 'date', min: '2026-12-01' },
      { question: 'Subject line?', kind: 'text', minLength: 5, maxLength: 80, pattern: '[A-Z].*' },
    ]);
    expect(body.onTimeout).toEqual({ default: { q1: ['3'] } });
    const parsed = AskRequestSchema.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it.each([
    [['--kind', 'time', '--min', '09:00', '--max', '17:30'], { kind: 'time', min: '09:00', max: '17:30' }],
    [
      ['--kind', 'datetime', '--max', '2026-12-31T18:00:00+01:00'],
      { kind: 'datetime', max: '2026-12-31T18:00:00+01:00' },
    ],
    [['--kind', 'email'], { kind: 'email' }],
    [['--kind', 'url'], { kind: 'url' }],
    [['--kind', 'number', '--min=-2.5'], { kind: 'number', min: -2.5 }],
    [
      ['--kind', 'choice', '--option', 'A', '--option', 'B'],
      { kind: 'choice', options: [{ label: 'A' }, { label: 'B' }] },
    ],
  ])('%j', (flags, part) => {
    const body = askBodyFromArgs([...run, '--question', 'Q?', ...flags]).body;
    expect(body.questions).toEqual([{ question: 'Q?', ...part }]);
    expect(AskRequestSchema.safeParse(body).success).toBe(true);
  });

  it('a choice keeps today’s shape: options always sent (askgate says when there are too few)', () => {
    expect(questions('--question', 'Q?', '--option', 'A', '--option', 'B', '--multi')).toEqual([
      { question: 'Q?', options: [{ label: 'A' }, { label: 'B' }], multiSelect: true },
    ]);
    expect(questions('--question', 'Q?')).toEqual([{ question: 'Q?', options: [] }]);
  });

  it('an option on a typed question is sent, so askgate names it as not applying', () => {
    const body = askBodyFromArgs([...run, '--question', 'N?', '--kind', 'number', '--option', 'A']).body;
    const parsed = AskRequestSchema.safeParse(body);
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['questions.0.options', 'does not apply to a number question'],
    ]);
  });

  it.each([
    [
      ['--kind', 'colour'],
      '--kind must be one of choice, text, number, date, time, datetime, email, url, not "colour"',
    ],
    [['--kind', 'number', '--min', 'ten'], '--min of a number question must be a number like 10 or -2.5, not "ten"'],
    [['--kind', 'number', '--max', '1e3'], '--max of a number question must be a number like 10 or -2.5, not "1e3"'],
    [['--kind', 'text', '--max-length=-1'], '--max-length must be a whole number of characters, not "-1"'],
    [['--kind', 'text', '--min-length', '2.5'], '--min-length must be a whole number of characters, not "2.5"'],
    [['--kind', 'number', '--kind', 'date'], '--kind is given more than once for question 1'],
    [['--kind', 'date', '--min', '2026-01-01', '--min', '2026-02-01'], '--min is given more than once for question 1'],
  ])('%j is a usage error', (flags, message) => {
    expect(() => askBodyFromArgs([...run, '--question', 'Q?', ...flags])).toThrow(new UsageError(message));
  });

  it('a negative bound is written --min=-2.5: node says so for --min -2.5 (a parse error, exit 2)', () => {
    expect(() => askBodyFromArgs([...run, '--question', 'Q?', '--kind', 'number', '--min', '-2.5'])).toThrow(
      expect.objectContaining({
        code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE',
        message: expect.stringContaining("'--min=-XYZ'"),
      }),
    );
  });

  it('a question flag before any --question is a usage error', () => {
    expect(() => askBodyFromArgs([...run, '--kind', 'number', '--question', 'Q?'])).toThrow(
      new UsageError('--kind must follow a --question'),
    );
  });
});
