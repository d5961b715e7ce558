import { describe, expect, it } from 'vitest';
import {
  FORM_MESSAGES,
  controlFits,
  formHint,
  readForm,
  type FormAnswer,
  type FormReading,
} from '../../src/core/forms.js';
import type { ButtonChoice } from '../../src/core/token.js';
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

describe('controlFits', () => {
  it.each<[string, ButtonChoice, Question[], boolean]>([
    ['an option of the only single-choice question', { kind: 'option', index: 1 }, [env], true],
    ['an option past its end', { kind: 'option', index: 2 }, [env], false],
    ['an option of a multi-select question', { kind: 'option', index: 0 }, [checks], false],
    ['an option with several questions', { kind: 'option', index: 0 }, [env, checks], false],
    ['Other… of one question', { kind: 'other' }, [checks], true],
    ['Other… with several questions', { kind: 'other' }, [env, checks], false],
    ['a pick of a single-choice question', { kind: 'pick', question: 0, index: 1 }, [env, checks], true],
    ['a pick of a multi-select question', { kind: 'pick', question: 1, index: 0 }, [env, checks], false],
    ['a toggle of a multi-select question', { kind: 'toggle', question: 1, index: 2 }, [env, checks], true],
    ['a toggle of a single-choice question', { kind: 'toggle', question: 0, index: 0 }, [env, checks], false],
    ['a toggle past the options', { kind: 'toggle', question: 1, index: 3 }, [env, checks], false],
    ['a toggle of a question the ask lacks', { kind: 'toggle', question: 2, index: 0 }, [env, checks], false],
    ['a step to the last question', { kind: 'step', question: 1 }, [env, checks], true],
    ['a step past the last question', { kind: 'step', question: 2 }, [env, checks], false],
    ['own words of a question the ask lacks', { kind: 'own', question: 1 }, [env], false],
    ['Answer', { kind: 'form' }, [env, checks], true],
    ['Submit', { kind: 'submit' }, [env], true],
    ['Skip', { kind: 'skip' }, [env], true],
  ])('%s: %s', (_name, choice, questions, fits) => {
    expect(controlFits(choice, questions)).toBe(fits);
  });
});
