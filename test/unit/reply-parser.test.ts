import { describe, it, expect } from 'vitest';
import { parseReply, type ParsedReply } from '../../src/core/reply-parser.js';
import type { Answers, Question } from '../../src/core/schemas.js';

function q(id: string, labels: string[], extra: Partial<Question> = {}): Question {
  return { id, question: `Question ${id}?`, options: labels.map((label) => ({ label })), multiSelect: false, ...extra };
}

const env = q('env', ['Staging (Recommended)', 'Production', 'Dev', 'Local'], { header: 'Env' });
const targets = q('targets', ['Staging (Recommended)', 'Prod', 'Dev', 'Local'], { multiSelect: true });
const numeric = q('wait', ['2', 'One hour', 'Three hours']);
const commaLabel = q('go', ['Yes, deploy', 'No', 'Later'], { multiSelect: true });
const spaced = q('zone', ['us east', 'eu west']);

const answers = (id: string, ...values: string[]): ParsedReply => ({ kind: 'answers', answers: { [id]: values } });
const STAGING = 'Staging (Recommended)';
const LONG_TEXT = 'I would rather wait until the migration is done, then deploy. '.repeat(80);

describe('parseReply: one single-choice question', () => {
  it.each<[string, string, ParsedReply]>([
    ['empty', '', { kind: 'empty' }],
    ['whitespace only', '   \n\t  ', { kind: 'empty' }],
    ['zero-width and bidi marks only', '\u200b\u200f\u2066\ufeff', { kind: 'empty' }],
    ['skip', 'skip', { kind: 'skip' }],
    ['SKIP upper case, padded', '  SKIP  ', { kind: 'skip' }],
    ['skip with trailing punctuation', 'Skip.', { kind: 'skip' }],
    ['skip!!', 'skip!!', { kind: 'skip' }],
    ['full-width skip', 'ｓｋｉｐ', { kind: 'skip' }],
    ['a sentence starting with skip is free text', 'skipping tests is fine', answers('env', 'skipping tests is fine')],
    ['number', '2', answers('env', 'Production')],
    ['padded number', '  2 \n', answers('env', 'Production')],
    ['number copied with a dot', '2.', answers('env', 'Production')],
    ['full-width number', '２', answers('env', 'Production')],
    ['leading zero', '03', answers('env', 'Dev')],
    ['label, lower case', 'production', answers('env', 'Production')],
    ['label, upper case and padded', '  PRODUCTION ', answers('env', 'Production')],
    ['recommended label without its suffix', 'staging', answers('env', STAGING)],
    ['recommended label with the suffix in other case', 'staging (recommended)', answers('env', STAGING)],
    ['full-width label', 'ＳＴＡＧＩＮＧ', answers('env', STAGING)],
    ['label with zero-width space', 'stag\u200bing', answers('env', STAGING)],
    ['label wrapped in RTL marks', '\u200fDev\u200f', answers('env', 'Dev')],
    ['label with trailing spaces and tabs', 'Dev \t ', answers('env', 'Dev')],
    ['1, 1 collapses to one pick', '1, 1', answers('env', STAGING)],
    ['number and label naming the same option', 'staging, 1', answers('env', STAGING)],
    ['the word "all" is free text', 'all', answers('env', 'all')],
    ['"Other" typed by the human is free text', 'Other', answers('env', 'Other')],
    ['"Other…" is free text', 'other…', answers('env', 'other…')],
    ['a time "1:30" is free text', '1:30', answers('env', '1:30')],
    ['a decimal is free text', '1.5', answers('env', '1.5')],
    ['"+1" is free text', '+1', answers('env', '+1')],
    ['prose with a number is free text', 'I think 2', answers('env', 'I think 2')],
    [
      'prose with commas is free text',
      'staging, but only after lunch',
      answers('env', 'staging, but only after lunch'),
    ],
    ['own words are trimmed', '   my own words  ', answers('env', 'my own words')],
    ['multi-line own words keep their line breaks', 'line one\nline two', answers('env', 'line one\nline two')],
    ['markup and mentions are kept verbatim', '@channel <b>now</b>', answers('env', '@channel <b>now</b>')],
    ['RTL own words', 'שלום עולם', answers('env', 'שלום עולם')],
    ['edge format characters trimmed from own words', '\u200f\u200bשלום\u200f', answers('env', 'שלום')],
    ['inner zero-width characters kept in own words', 'a\u200bb', answers('env', 'a\u200bb')],
    ['5 kB of text is free text', LONG_TEXT, answers('env', LONG_TEXT.trim())],
  ])('%s', (_name, text, expected) => {
    expect(parseReply([env], text)).toEqual(expected);
  });

  it.each<[string, string, RegExp]>([
    [
      '0',
      '0',
      /^There is no option 0\. Reply with a number from 1 to 4, an option name, or your own words; send "skip" to skip\.$/,
    ],
    ['5', '5', /^There is no option 5\./],
    ['99', '99', /^There is no option 99\./],
    ['-1', '-1', /^There is no option -1\./],
    ['a huge number is cut in the hint', '9'.repeat(40), /^There is no option 9{11}…\./],
    ['"1,3" on a single-choice question', '1,3', /pick just one option.*from 1 to 4/],
    ['"1 3" on a single-choice question', '1 3', /pick just one option/],
    ['two labels on a single-choice question', 'staging, production', /pick just one option/],
    ['out of range beats pick-one', '1,9', /^There is no option 9\./],
  ])('invalid: %s', (_name, text, hint) => {
    const parsed = parseReply([env], text);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.hint).toMatch(hint);
  });

  it.each<[string, string, ParsedReply]>([
    ['a label that is a number wins over the index', '2', answers('wait', '2')],
    ['other numbers still pick by index', '1', answers('wait', '2')],
    ['index 3', '3', answers('wait', 'Three hours')],
    [
      'out of range',
      '4',
      {
        kind: 'invalid',
        hint: 'There is no option 4. Reply with a number from 1 to 3, an option name, or your own words; send "skip" to skip.',
      },
    ],
  ])('numeric labels: %s', (_name, text, expected) => {
    expect(parseReply([numeric], text)).toEqual(expected);
  });

  it.each<[string, string, ParsedReply]>([
    ['doubled inner space', 'US   East', answers('zone', 'us east')],
    ['no-break space', 'eu\u00a0west', answers('zone', 'eu west')],
  ])('inner white space: %s', (_name, text, expected) => {
    expect(parseReply([spaced], text)).toEqual(expected);
  });

  it('ignores `answered` and key syntax for a single question', () => {
    expect(parseReply([env], '1: prod', { env: ['Dev'] })).toEqual(answers('env', '1: prod'));
  });

  it('answers nothing without questions', () => {
    expect(parseReply([], '1')).toEqual({ kind: 'empty' });
  });
});

describe('parseReply: one multi-select question', () => {
  it.each<[string, string, ParsedReply]>([
    ['"1,3"', '1,3', answers('targets', STAGING, 'Dev')],
    ['"1 3"', '1 3', answers('targets', STAGING, 'Dev')],
    ['"1, 3"', '1, 3', answers('targets', STAGING, 'Dev')],
    ['numbers on separate lines', '1\n3', answers('targets', STAGING, 'Dev')],
    ['picks come back in option order', '3,1', answers('targets', STAGING, 'Dev')],
    ['labels', 'staging, prod', answers('targets', STAGING, 'Prod')],
    ['mixed number and label', '1, prod', answers('targets', STAGING, 'Prod')],
    ['full-width comma', 'prod，dev', answers('targets', 'Prod', 'Dev')],
    ['ideographic comma', 'prod、dev', answers('targets', 'Prod', 'Dev')],
    ['duplicates collapse', '1,1', answers('targets', STAGING)],
    ['number and label duplicates collapse', '2, PROD, 2', answers('targets', 'Prod')],
    ['trailing comma', '1,3,', answers('targets', STAGING, 'Dev')],
    ['all four', '1 2 3 4', answers('targets', STAGING, 'Prod', 'Dev', 'Local')],
    ['one label', 'Local', answers('targets', 'Local')],
    ['labels separated only by a space are prose', 'prod dev', answers('targets', 'prod dev')],
    [
      'a part that is not an option keeps the reply whole',
      'prod, dev, and the rest',
      answers('targets', 'prod, dev, and the rest'),
    ],
    [
      'prose with commas is one value',
      'I like prod, and staging too',
      answers('targets', 'I like prod, and staging too'),
    ],
    ['"all" is free text', 'all', answers('targets', 'all')],
    ['skip', 'skip', { kind: 'skip' }],
  ])('%s', (_name, text, expected) => {
    expect(parseReply([targets], text)).toEqual(expected);
  });

  it.each<[string, string, RegExp]>([
    [
      '"1,9" rejects the whole reply',
      '1,9',
      /^There is no option 9\. Reply with numbers from 1 to 4 like "1,3", option names/,
    ],
    ['"0"', '0', /^There is no option 0\./],
    ['"prod, 7"', 'prod, 7', /^There is no option 7\./],
    ['"1 2 5"', '1 2 5', /^There is no option 5\./],
  ])('invalid: %s', (_name, text, hint) => {
    const parsed = parseReply([targets], text);
    expect(parsed).toMatchObject({ kind: 'invalid' });
    expect(parsed.kind === 'invalid' && parsed.hint).toMatch(hint);
  });

  it.each<[string, string, ParsedReply]>([
    ['a label containing a comma matches whole', 'yes, deploy', answers('go', 'Yes, deploy')],
    ['it also works as one part among others', '2, 3', answers('go', 'No', 'Later')],
  ])('labels with commas: %s', (_name, text, expected) => {
    expect(parseReply([commaLabel], text)).toEqual(expected);
  });
});

describe('parseReply: several questions', () => {
  const region = q('region', ['eu', 'us', 'ap'], { header: 'Region of deployment', multiSelect: true });
  const size = q('size', ['S', 'M', 'L']);
  const env2 = q('env', ['Staging', 'Prod'], { header: 'Environment' });
  const three = [env2, region, size];

  it.each<[string, string, Answers, ParsedReply]>([
    [
      'one line per question',
      'Prod\neu, us\nL',
      {},
      { kind: 'answers', answers: { env: ['Prod'], region: ['eu', 'us'], size: ['L'] } },
    ],
    [
      'numbers per line',
      '2\n1,2\n3',
      {},
      { kind: 'answers', answers: { env: ['Prod'], region: ['eu', 'us'], size: ['L'] } },
    ],
    [
      'CRLF line breaks',
      'Prod\r\neu\r\nL',
      {},
      { kind: 'answers', answers: { env: ['Prod'], region: ['eu'], size: ['L'] } },
    ],
    ['a single line answers the first open question', 'Prod', {}, { kind: 'answers', answers: { env: ['Prod'] } }],
    ['a blank line keeps its place', 'Prod\n\nL', {}, { kind: 'answers', answers: { env: ['Prod'], size: ['L'] } }],
    [
      'a whitespace-only line keeps its place',
      'Prod\n \u200b \nL',
      {},
      { kind: 'answers', answers: { env: ['Prod'], size: ['L'] } },
    ],
    [
      'leading and trailing blank lines are trimmed',
      '\n\n  \nProd\n\n',
      {},
      { kind: 'answers', answers: { env: ['Prod'] } },
    ],
    ['keyed by number', '3: L', {}, { kind: 'answers', answers: { size: ['L'] } }],
    ['keyed by id, any case', 'SIZE: l', {}, { kind: 'answers', answers: { size: ['L'] } }],
    ['keyed by header', 'environment: prod', {}, { kind: 'answers', answers: { env: ['Prod'] } }],
    ['keyed by long header', 'Region of deployment: ap', {}, { kind: 'answers', answers: { region: ['ap'] } }],
    [
      'keyed by the shortened header as displayed',
      'region of d…: ap',
      {},
      { kind: 'answers', answers: { region: ['ap'] } },
    ],
    ['keyed multi-select', 'region: 1, 3', {}, { kind: 'answers', answers: { region: ['eu', 'ap'] } }],
    ['full-width key and colon', '３： L', {}, { kind: 'answers', answers: { size: ['L'] } }],
    [
      'keyed lines first, unkeyed fill the rest in order',
      'size: L\nProd\neu',
      {},
      { kind: 'answers', answers: { env: ['Prod'], region: ['eu'], size: ['L'] } },
    ],
    [
      'a keyed line in the middle',
      'Prod\n3: M\nus',
      {},
      { kind: 'answers', answers: { env: ['Prod'], region: ['us'], size: ['M'] } },
    ],
    ['"1:30" is a value, not key 1', '1:30', {}, { kind: 'answers', answers: { env: ['1:30'] } }],
    [
      'an unknown key is part of the value',
      'Note: later\nProd',
      {},
      { kind: 'answers', answers: { env: ['Note: later'], region: ['Prod'] } },
    ],
    ['a value may contain ": "', '1: ok: prod later', {}, { kind: 'answers', answers: { env: ['ok: prod later'] } }],
    [
      '"2:" with nothing keeps question 2 open',
      '2:\nProd\nL',
      {},
      { kind: 'answers', answers: { env: ['Prod'], size: ['L'] } },
    ],
    [
      'unkeyed lines skip questions already answered',
      'eu\nL',
      { env: ['Prod'] },
      { kind: 'answers', answers: { region: ['eu'], size: ['L'] } },
    ],
    [
      'one line fills the first open question',
      'S',
      { env: ['Prod'], region: ['eu'] },
      { kind: 'answers', answers: { size: ['S'] } },
    ],
    [
      'a keyed line may re-answer an answered question',
      '1: Staging',
      { env: ['Prod'] },
      { kind: 'answers', answers: { env: ['Staging'] } },
    ],
    ['5 kB line is free text', LONG_TEXT, {}, { kind: 'answers', answers: { env: [LONG_TEXT.trim()] } }],
    ['only blank lines', '\n  \n\t', {}, { kind: 'empty' }],
    ['only a keyed blank', '2: ', {}, { kind: 'empty' }],
    ['skip alone', 'skip', {}, { kind: 'skip' }],
    ['skip alone with blank lines and punctuation', '\n  Skip!  \n', {}, { kind: 'skip' }],
  ])('%s', (_name, text, answered, expected) => {
    expect(parseReply(three, text, answered)).toEqual(expected);
  });

  it.each<[string, string, Answers, RegExp]>([
    [
      'an invalid line names its question',
      'Prod\n7\nL',
      {},
      /^Question 2: there is no option 7\. Reply with numbers from 1 to 3/,
    ],
    ['"1: 30" is key 1 with value 30', '1: 30', {}, /^Question 1: there is no option 30\./],
    [
      'two picks on a single-choice line',
      'Prod, Staging\neu',
      {},
      /^Question 1: this question takes one answer, so pick just one option/,
    ],
    [
      'more lines than questions',
      'a\nb\nc\nd',
      {},
      /^You answered 4 lines but only 3 questions are open \(1, 2 and 3\)\. Reply with one line per open question, or as "2: your answer"\.$/,
    ],
    [
      'more lines than open questions',
      'Staging\neu\nL',
      { env: ['Prod'] },
      /^You answered 3 lines but only 2 questions are open \(2 and 3\)/,
    ],
    [
      'lines when only one question is open',
      'a\nb',
      { env: ['Prod'], region: ['eu'] },
      /^You answered 2 lines but only 1 question is open \(3\)/,
    ],
    [
      'blank lines counted as places',
      'a\n\nb\nc',
      {},
      /^Your reply has 4 lines, counting blank ones that keep a question's place, but only 3 questions are open/,
    ],
    [
      'unkeyed line with every question keyed',
      '1: Prod\n2: eu\n3: L\nextra',
      {},
      /^You answered 1 line but no other question is open/,
    ],
    ['skip next to answers', 'Prod\nskip', {}, /^Question 2: send "skip" on its own to skip the whole question/],
    ['keyed skip', '2: skip', {}, /^Question 2: send "skip" on its own/],
    ['the same question keyed twice', '1: Prod\nenvironment: Staging', {}, /^Question 1 is answered twice\./],
    ['a number key that names no question', '7: x', {}, /^There is no question 7; there are 3\./],
    ['key 0', '0: x', {}, /^There is no question 0/],
  ])('invalid: %s', (_name, text, answered, hint) => {
    const parsed = parseReply(three, text, answered);
    expect(parsed).toMatchObject({ kind: 'invalid' });
    expect(parsed.kind === 'invalid' && parsed.hint).toMatch(hint);
  });
});
