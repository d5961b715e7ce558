import { describe, it, expect } from 'vitest';
import { ASK_ID_PATTERN, decodeToken, encodeToken, type ButtonToken } from '../../src/core/token.js';

const ID12 = 'AbCdEfGhIjKl';
const ID24 = 'A1b2C3d4E5f6G7h8I9j0K1l2';

describe('encodeToken / decodeToken', () => {
  it.each<[string, ButtonToken, string]>([
    ['first option', { askId: ID12, version: 1, choice: { kind: 'option', index: 0 } }, `${ID12}.1.1`],
    ['fourth option', { askId: ID12, version: 7, choice: { kind: 'option', index: 3 } }, `${ID12}.7.4`],
    ['other', { askId: ID12, version: 2, choice: { kind: 'other' } }, `${ID12}.2.o`],
    ['skip', { askId: ID12, version: 2, choice: { kind: 'skip' } }, `${ID12}.2.s`],
    ['answer (open the form)', { askId: ID12, version: 2, choice: { kind: 'form' } }, `${ID12}.2.f`],
    ['submit', { askId: ID12, version: 2, choice: { kind: 'submit' } }, `${ID12}.2.k`],
    ['pick', { askId: ID12, version: 3, choice: { kind: 'pick', question: 2, index: 3 } }, `${ID12}.3.p34`],
    ['toggle', { askId: ID12, version: 3, choice: { kind: 'toggle', question: 0, index: 1 } }, `${ID12}.3.t12`],
    ['step', { askId: ID12, version: 3, choice: { kind: 'step', question: 1 } }, `${ID12}.3.g2`],
    ['own words', { askId: ID12, version: 3, choice: { kind: 'own', question: 2 } }, `${ID12}.3.w3`],
    [
      'longest id, version and toggle',
      { askId: ID24, version: 999_999_999, choice: { kind: 'toggle', question: 2, index: 3 } },
      `${ID24}.999999999.t34`,
    ],
    [
      'longest id and version',
      { askId: ID24, version: 999_999_999, choice: { kind: 'option', index: 2 } },
      `${ID24}.999999999.3`,
    ],
  ])('round-trips %s', (_name, token, encoded) => {
    expect(encodeToken(token)).toBe(encoded);
    expect(decodeToken(encoded)).toEqual(token);
    expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(64);
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object', { askId: ID12 }],
    ['empty string', ''],
    ['id too short', 'AbCdEfGhIjK.1.1'],
    ['id too long', `${ID24}X.1.1`],
    ['id with a dash', 'AbCdEf-hIjKl.1.1'],
    ['id with a dot', 'AbCdEf.hIjKl.1.1'],
    ['version 0', `${ID12}.0.1`],
    ['version with a leading zero', `${ID12}.01.1`],
    ['version of ten digits', `${ID12}.1234567890.1`],
    ['negative version', `${ID12}.-1.1`],
    ['option 0', `${ID12}.1.0`],
    ['option 5', `${ID12}.1.5`],
    ['option 10', `${ID12}.1.10`],
    ['upper-case O', `${ID12}.1.O`],
    ['unknown choice', `${ID12}.1.x`],
    ['toggle of question 4', `${ID12}.1.t41`],
    ['toggle of option 5', `${ID12}.1.t15`],
    ['toggle of option 0', `${ID12}.1.t10`],
    ['pick without an option', `${ID12}.1.p1`],
    ['step 0', `${ID12}.1.g0`],
    ['step with an option', `${ID12}.1.g11`],
    ['own words of question 4', `${ID12}.1.w4`],
    ['inherited name', `${ID12}.1.constructor`],
    ['a label instead of an index', `${ID12}.1.Staging`],
    ['missing choice', `${ID12}.1`],
    ['extra part', `${ID12}.1.1.1`],
    ['trailing newline', `${ID12}.1.1\n`],
    ['leading space', ` ${ID12}.1.1`],
    ['other separator', `${ID12}:1:1`],
    ['over 64 bytes', `${'a'.repeat(60)}.1.1`],
    ['full-width digits', `${ID12}.１.１`],
  ])('rejects %s', (_name, data) => {
    expect(decodeToken(data)).toBeNull();
  });

  it.each<[string, boolean]>([
    [ID12, true],
    [ID24, true],
    ['abc', false],
    ['AbCdEfGhIjK_', false],
  ])('ASK_ID_PATTERN on %j is %s', (id, ok) => {
    expect(ASK_ID_PATTERN.test(id)).toBe(ok);
  });
});
