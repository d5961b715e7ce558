import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askBodyFromArgs, UsageError } from '../../src/cli-ask.js';
import { AskRequestSchema } from '../../src/core/schemas.js';
import { policyIssues } from '../../src/core/policy.js';

const base = ['--run', 'r1', '--question', 'Deploy?', '--option', 'Yes', '--option', 'No'];

describe('askgate ask: policy flags', () => {
  it('builds every policy field, and the server schema accepts the body', () => {
    const { body } = askBodyFromArgs([
      ...base,
      '--to',
      'telegram:1',
      '--to',
      'slack:C123',
      '--timeout',
      '900',
      '--remind',
      '300',
      '--remind',
      '600',
      '--escalate',
      '450=discord:99,telegram:2',
      '--default',
      'q1=Yes',
      '--agree',
      '2',
    ]);
    expect(body).toMatchObject({
      to: [
        { channel: 'telegram', chat: '1' },
        { channel: 'slack', chat: 'C123' },
      ],
      remindAfterSeconds: [300, 600],
      escalate: [
        {
          afterSeconds: 450,
          to: [
            { channel: 'discord', chat: '99' },
            { channel: 'telegram', chat: '2' },
          ],
        },
      ],
      onTimeout: { default: { q1: ['Yes'] } },
      agree: 2,
    });
    const parsed = AskRequestSchema.parse(body);
    expect(policyIssues(parsed, 900)).toEqual([]);
  });

  it('keeps one --to as one target (as before) and one escalation target unwrapped', () => {
    const { body } = askBodyFromArgs([...base, '--to', 'telegram:1', '--escalate', '60=slack:C1']);
    expect(body.to).toEqual({ channel: 'telegram', chat: '1' });
    expect(body.escalate).toEqual([{ afterSeconds: 60, to: { channel: 'slack', chat: 'C1' } }]);
  });

  it('collects repeated --default labels of one question (a multi-select default)', () => {
    const { body } = askBodyFromArgs([...base, '--multi', '--default', 'q1=Yes', '--default', 'q1=No']);
    expect(body.onTimeout).toEqual({ default: { q1: ['Yes', 'No'] } });
    // Hostile ids reach the server as data and are refused there, never looked up here.
    const { body: hostile } = askBodyFromArgs([...base, '--default', 'constructor=Yes']);
    expect(AskRequestSchema.safeParse(hostile).success).toBe(false);
  });

  it.each([
    [['--remind', '0'], '--remind must be a whole number of at least 1, not "0"'],
    [['--remind', '1.5'], '--remind must be a whole number of at least 1, not "1.5"'],
    [['--escalate', 'slack:C1'], '--escalate must be <seconds>=<channel>:<chat>[,…], not "slack:C1"'],
    [['--escalate', '60=C1'], '--escalate: "C1" is not <channel>:<chat>, e.g. telegram:123456'],
    [['--escalate', 'x=slack:C1'], '--escalate must be a whole number of at least 1, not "x"'],
    [['--default', 'q1'], '--default must be <questionId>=<label>, not "q1"'],
    [['--default', 'q1='], '--default must be <questionId>=<label>, not "q1="'],
    [['--agree', 'two'], '--agree must be a whole number of at least 1, not "two"'],
    [['--agree', '2', '--agree', '3'], '--agree is given more than once'],
    [['--to', 'nope'], '--to: "nope" is not <channel>:<chat>, e.g. telegram:123456'],
  ])('refuses %j', (flags, message) => {
    expect(() => askBodyFromArgs([...base, ...flags])).toThrow(new UsageError(message));
  });
});

describe('README: the "Ask policies" example', () => {
  it('is a valid ask body whose steps are below its timeout', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Ask policies'));
    const json = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
    const parsed = AskRequestSchema.parse(JSON.parse(json));
    expect(policyIssues(parsed, parsed.timeoutSeconds!)).toEqual([]);
  });
});

describe('askgate ask: --locale and --time-zone', () => {
  it('puts them in the body, which the server schema accepts', () => {
    const { body } = askBodyFromArgs([...base, '--locale', 'pt-BR', '--time-zone', 'America/Sao_Paulo']);
    expect(body).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
    expect(AskRequestSchema.parse(body)).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
    expect(askBodyFromArgs(base).body).not.toHaveProperty('locale');
  });

  it.each([
    [['--locale', 'en_US'], '--locale must be a BCP 47 language tag such as "pt-BR", not "en_US"'],
    [
      ['--time-zone', 'Mars/Base'],
      '--time-zone must be an IANA time zone such as "America/Sao_Paulo", not "Mars/Base"',
    ],
    [['--locale', 'de', '--locale', 'fr'], '--locale is given more than once'],
  ])('%j -> usage error', (extra, message) => {
    expect(() => askBodyFromArgs([...base, ...extra])).toThrow(new UsageError(message));
  });
});

describe('askgate ask: --remind-every and --hours', () => {
  const lisbon = { days: 'mon-fri', from: '09:00', to: '18:00', timeZone: 'Europe/Lisbon' };
  it.each([
    ['the readable form', 'mon-fri,09:00-18:00,Europe/Lisbon', lisbon],
    [
      'days with commas',
      'mon,wed,fri,08:30-12:00,UTC',
      { days: 'mon,wed,fri', from: '08:30', to: '12:00', timeZone: 'UTC' },
    ],
    ['the API’s JSON', JSON.stringify(lisbon), lisbon],
  ])('%s: every --to target gets the hours, and the server schema accepts the body', (_name, hours, expected) => {
    const { body } = askBodyFromArgs([
      ...base,
      '--to',
      'telegram:1',
      '--to',
      'slack:C1',
      '--async',
      '--timeout',
      '604800',
      '--remind-every',
      '86400',
      '--hours',
      hours,
    ]);
    expect(body).toMatchObject({
      remindEverySeconds: 86_400,
      to: [
        { channel: 'telegram', chat: '1', hours: expected },
        { channel: 'slack', chat: 'C1', hours: expected },
      ],
    });
    expect(AskRequestSchema.safeParse(body).success).toBe(true);
  });
  it('a bad hours field is the server’s 400, naming it', () => {
    const { body } = askBodyFromArgs([...base, '--to', 'telegram:1', '--hours', 'weekdays,09:00-18:00,Europe/Lisbon']);
    expect(AskRequestSchema.safeParse(body).error?.issues.map((i) => i.path)).toEqual([['to', 'hours', 'days']]);
  });
  it.each([
    [['--remind-every', 'daily'], '--remind-every must be a whole number of at least 1, not "daily"'],
    [['--remind-every', '3600', '--remind-every', '7200'], '--remind-every is given more than once'],
    [['--hours', 'mon-fri,09:00-18:00,UTC'], '--hours applies to the --to targets: give --to'],
    [
      ['--to', 'telegram:1', '--hours', '9 to 5'],
      '--hours must be <days>,<from>-<to>,<time zone> such as mon-fri,09:00-18:00,Europe/Lisbon (or a JSON object), not "9 to 5"',
    ],
    [['--to', 'telegram:1', '--hours', '{"days":'], '--hours is not valid JSON: "{\\"days\\":"'],
    [['--to', 'telegram:1', '--hours', '{}x'], '--hours is not valid JSON: "{}x"'],
  ])('%j -> usage error', (extra, message) => {
    expect(() => askBodyFromArgs([...base, ...extra])).toThrow(new UsageError(message));
  });
});
