import { describe, expect, it } from 'vitest';
import { labelKey, QuestionSchema } from '../../src/core/schemas.js';
import { compareKey, hasVisible, stripInvisible, textProblem } from '../../src/core/text.js';
import { matchKey } from '../../src/core/reply-lines.js';

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

// Characters a reader sees as nothing or as a space: the ones the issue names, every
// Default_Ignorable_Code_Point, and every Unicode space separator.
const NAMED = [
  0x2800,
  0x3164,
  0x115f,
  0x1160,
  0xffa0,
  0x205f,
  0x3000,
  0x00a0,
  0x180e,
  0x17b4,
  0x17b5,
  0x034f,
  0x1d159,
  ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
];
const ALL: number[] = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  if (/[\p{Default_Ignorable_Code_Point}\p{Zs}]/u.test(String.fromCodePoint(cp))) ALL.push(cp);
}
const CLASS = [...new Set([...NAMED, ...ALL])];
// Shown as a blank the width of a letter or more: compared as a space, not as nothing.
const WIDE = [0x2800, 0x1d159, 0x3164, 0x115f, 0x1160, 0xffa0, 0x205f, 0x3000, 0x00a0, 0x2000, 0x2003, 0x200a];

const twoOptions = (a: string, b: string) =>
  QuestionSchema.safeParse({ question: 'Deploy?', options: [{ label: a }, { label: b }] });

describe('blank-looking characters are treated like the invisible ones', () => {
  it(`the class holds the named characters and all ${ALL.length} ignorable characters and spaces`, () => {
    expect(ALL.length).toBeGreaterThan(4000);
    expect(CLASS.length).toBeGreaterThanOrEqual(ALL.length);
  });

  it('"Yes" and "Yes" + a blank-looking character are never two different labels (each of the class)', () => {
    const accepted = CLASS.filter((cp) => twoOptions('Yes', `Yes${String.fromCodePoint(cp)}`).success).map(hex);
    expect(accepted).toEqual([]);
  });

  it('…nor with the character first, or inside a word when it shows as nothing', () => {
    const accepted = CLASS.filter((cp) => {
      const c = String.fromCodePoint(cp);
      // A space or a wide blank inside a word makes two words ("Y es"), another label.
      const inside = !/\s/u.test(c) && !WIDE.includes(cp) && twoOptions('Yes', `Y${c}es`).success;
      return twoOptions('Yes', `${c}Yes`).success || inside;
    }).map(hex);
    expect(accepted).toEqual([]);
  });

  it('compareKey: "Yes" + any of the class compares equal to "Yes" (a chat reply matches the label)', () => {
    const differ = CLASS.filter((cp) => compareKey(`Yes${String.fromCodePoint(cp)}`) !== compareKey('Yes')).map(hex);
    expect(differ).toEqual([]);
    expect(matchKey('Yes\u2800')).toBe(matchKey('Yes'));
    expect(labelKey('\u2800Yes\u{1d159}')).toBe(labelKey('yes'));
  });

  it.each(WIDE.map((cp) => [hex(cp), cp]))('%s between two words compares as a space', (_h, cp) => {
    expect(compareKey(`Yes${String.fromCodePoint(cp)}No`)).toBe(compareKey('Yes No'));
    expect(twoOptions('Yes No', `Yes${String.fromCodePoint(cp)}No`).success).toBe(false);
  });

  it.each([0x2800, 0x1d159, 0x3164, 0x115f, 0x1160, 0xffa0, 0x180e, 0x17b4, 0x17b5, 0x034f].map((cp) => [hex(cp), cp]))(
    'textProblem refuses %s in a label, naming it',
    (h, cp) => {
      expect(textProblem(`Yes${String.fromCodePoint(cp)}`, false)).toContain(h as string);
      expect(textProblem(`Yes${String.fromCodePoint(cp)}`, true)).toContain(h as string);
    },
  );

  it('the Braille blank stays allowed as the word space of Braille text, and counts as a space there', () => {
    const braille = '⠓⠑⠇⠇⠕\u2800⠺⠕⠗⠇⠙';
    expect(textProblem(braille, false)).toBeNull();
    expect(textProblem('⠓⠑\u2800\u2800⠇⠇⠕', false)).toBeNull();
    expect(compareKey(braille)).toBe('⠓⠑⠇⠇⠕ ⠺⠕⠗⠇⠙');
    expect(textProblem('⠓⠑⠇⠇⠕\u2800', false)).toMatch(/U\+2800/);
    expect(textProblem('Yes\u2800⠺', false)).toMatch(/U\+2800/);
  });

  it('a label of blanks only is refused; names from platforms lose the blanks', () => {
    expect(hasVisible('\u2800\u{1d159}\u3164')).toBe(false);
    expect(twoOptions('Yes', '\u{1d159}').success).toBe(false);
    expect(stripInvisible('Ann\u2800')).toBe('Ann');
  });
});
