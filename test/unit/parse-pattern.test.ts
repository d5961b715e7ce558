import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/core/questions/parse/index.js';

function compiled(source: string): (text: string) => boolean {
  const pattern = compilePattern(source);
  if (!pattern.ok) throw new Error(pattern.message);
  return pattern.test;
}

describe('compilePattern', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'xabcx', false], // the whole answer must match
    ['abc', 'abcd', false],
    ['a|b', 'a', true],
    ['a|b', 'ab', false], // anchored around the whole alternation
    ['^abc$', 'abc', true],
    ['[A-Z]{3}-\\d{4}', 'ABC-1234', true],
    ['[A-Z]{3}-\\d{4}', 'ABC-1234\n', false],
    ['(?i)abc', 'ABC', true],
    ['abc', 'ABC', false],
    ['\\p{L}+', 'São', true],
    ['\\x{00E9}', 'é', true],
    ['(?P<year>\\d{4})', '2026', true],
    ['(?<year>\\d{4})', '2026', true],
    ['.*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['[[:alpha:]]+', 'abc', true],
  ])('%j against %j is %j', (source, text, matches) => {
    expect(compiled(source)(text)).toBe(matches);
  });

  it('matches a classic catastrophic pattern in linear time: (a+)+$ against 50,000 "a" and "!"', () => {
    expect(compiled('(a+)+$')('a'.repeat(50_000) + '!')).toBe(false);
    expect(compiled('(a|aa)+')('a'.repeat(50_000) + '!')).toBe(false);
    expect(compiled('(.*a){20}')('a'.repeat(50_000))).toBe(true);
    expect(compiled('(x+x+)+y')('x'.repeat(50_000))).toBe(false);
  });

  it.each([
    ['(a)\\1', /Backreferences such as \\1/],
    ['(?<n>a)\\k<n>', /Named backreferences/],
    ['(?=a)a', /Lookahead/],
    ['a(?!b)', /Lookahead/],
    ['(?<=a)b', /Lookbehind/],
    ['(?<!a)b', /Lookbehind/],
    ['(?>a+)', /Atomic groups/],
    ['a++', /Possessive/],
    ['a*+', /Possessive/],
    ['a{1001}', /repeat count above 1000/],
    ['((a{100}){100}){100}', /repeat count above 1000/],
    ['\\u00e9', /\\x\{00E9\}/],
    ['(a', /missing closing \)/],
    ['a)|(b', /unexpected \)/], // cannot break out of the anchoring
    ['[z-a]', /invalid character class range/],
    ['*a', /missing argument to repetition operator/],
    ['\\Z', /invalid escape sequence/],
  ])('refuses %j with a one-sentence message naming it', (source, message) => {
    const pattern = compilePattern(source);
    expect(pattern.ok).toBe(false);
    if (pattern.ok) return;
    expect(pattern.message).toMatch(message);
    expect(pattern.message).toMatch(/^[A-Z].*\.$/);
    expect(pattern.message.split(/\.\s/).length).toBe(1);
  });

  it('refuses a pattern longer than 500 characters', () => {
    expect(compilePattern('a'.repeat(500)).ok).toBe(true);
    expect(compilePattern('a'.repeat(501))).toEqual({
      ok: false,
      message: 'The pattern is longer than 500 characters.',
    });
  });
});
