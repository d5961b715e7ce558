import { describe, expect, it } from 'vitest';
import { FORM_MESSAGES, formHint, readForm, type FormAnswer, type FormReading } from '../../src/core/forms.js';
import type { Question } from '../../src/core/schemas.js';

const env: Question = {
  id: 'env',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const checks: Question = {
  id: 'checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'lint' }, { label: 'tests' }, { label: 'e2e' }],
};

describe('readForm', () => {
  it.each<[string, Question[], FormAnswer[], FormReading]>([
    ['one option', [env], [{ choices: [1] }], { kind: 'answers', answers: { env: ['Production'] } }],
    ['own words only', [env], [{ choices: [], own: '  canary  ' }], { kind: 'answers', answers: { env: ['canary'] } }],
    [
      'blank own words with an option',
      [env],
      [{ choices: [0], own: '   ' }],
      { kind: 'answers', answers: { env: ['Staging'] } },
    ],
    [
      'several options and own words',
      [checks],
      [{ choices: [2, 0], own: 'fuzz' }],
      { kind: 'answers', answers: { checks: ['e2e', 'lint', 'fuzz'] } },
    ],
    ['a repeated option once', [checks], [{ choices: [1, 1] }], { kind: 'answers', answers: { checks: ['tests'] } }],
    [
      'every question',
      [env, checks],
      [{ choices: [0] }, { choices: [0, 1] }],
      { kind: 'answers', answers: { env: ['Staging'], checks: ['lint', 'tests'] } },
    ],
    [
      'nothing chosen',
      [env],
      [{ choices: [] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.nothing }] },
    ],
    [
      'only invisible own words',
      [env],
      [{ choices: [], own: '\u200b' }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.nothing }] },
    ],
    [
      'an option and own words on a single choice',
      [env],
      [{ choices: [0], own: 'x' }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.both }] },
    ],
    [
      'two options on a single choice',
      [env],
      [{ choices: [0, 1] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.tooMany }] },
    ],
    [
      'an option past the end',
      [env],
      [{ choices: [2] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.unknown }] },
    ],
    [
      'a negative option',
      [checks],
      [{ choices: [-1] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.unknown }] },
    ],
    [
      'a fractional option',
      [checks],
      [{ choices: [0.5] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.unknown }] },
    ],
    [
      'own words too long',
      [env],
      [{ choices: [], own: 'x'.repeat(4001) }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.tooLong }] },
    ],
    [
      'fewer parts than questions',
      [env, checks],
      [{ choices: [0] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.shape }] },
    ],
    [
      'more parts than questions',
      [env],
      [{ choices: [0] }, { choices: [1] }],
      { kind: 'invalid', problems: [{ question: 0, message: FORM_MESSAGES.shape }] },
    ],
    [
      'a problem in the second question only',
      [env, checks],
      [{ choices: [0] }, { choices: [] }],
      { kind: 'invalid', problems: [{ question: 1, message: FORM_MESSAGES.nothing }] },
    ],
  ])('%s', (_name, questions, form, expected) => {
    expect(readForm(questions, form)).toEqual(expected);
  });

  it('keeps labels exactly as declared and never reads inherited names', () => {
    const proto: Question = { ...env, id: '__proto__x', options: [{ label: 'constructor' }, { label: 'toString' }] };
    expect(readForm([proto], [{ choices: [0] }])).toEqual({
      kind: 'answers',
      answers: { __proto__x: ['constructor'] },
    });
  });
});

describe('formHint', () => {
  it('numbers the questions only when there are several', () => {
    const problems = [{ question: 1, message: FORM_MESSAGES.nothing }];
    expect(formHint(problems, 2)).toBe(`Question 2: ${FORM_MESSAGES.nothing}`);
    expect(formHint([{ question: 0, message: FORM_MESSAGES.both }], 1)).toBe(FORM_MESSAGES.both);
  });
});
