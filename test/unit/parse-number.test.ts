import { describe, expect, it } from 'vitest';
import { parseNumber, type ParseContext } from '../../src/core/questions/parse/index.js';

const NOW = Date.UTC(2026, 11, 7, 12, 0);
const ctx = (locales: string[], strict = false): ParseContext => ({ locales, timeZone: 'UTC', now: NOW, strict });

/** [typed, unit, value or null for "not a number"]. */
type Case = [string, string | undefined, number | null];

const NBSP = '\u00a0';
const NNBSP = '\u202f';

const COMMON_DOT: Case[] = [
  ['42', undefined, 42],
  ['  42  ', undefined, 42],
  ['-12.5', undefined, -12.5],
  ['1,000', undefined, 1000], // a group in a dot-decimal locale
  ['1,000.5', undefined, 1000.5],
  ['1,234,567.89', undefined, 1234567.89],
  ['1 000 000', undefined, 1000000], // spaces group in every locale
  ['1.000', undefined, 1], // a decimal point here
  ['1,00', undefined, null], // not a group of three
  ['1,5', undefined, null],
  ['12,34,567', undefined, null],
  ['1,000,00', undefined, null],
  ['\u2212 3', undefined, null],
  ['\u22123', undefined, -3],
  ['+7', undefined, 7],
  ['.5', undefined, 0.5],
  ['5.', undefined, null],
  ['1e5', undefined, null],
  ['0x1F', undefined, null],
  ['Infinity', undefined, null],
  ['NaN', undefined, null],
  ['123456789012345', undefined, 123456789012345],
  ['1234567890123456', undefined, null], // 16 significant digits would not round-trip
  ['0.000000000000000001', undefined, 1e-18],
  ['-0', undefined, 0],
  ['16 GB', 'GB', 16],
  ['16gb', 'GB', 16],
  ['16 MB', 'GB', null],
  ['16 GB', undefined, null],
  ['$ 1,299.99', '$', 1299.99],
  ['-$5', '$', -5],
  ['10²', undefined, null],
  ['twelve', undefined, null],
  ['1 2', undefined, null],
  ['--5', undefined, null],
  ['5-', undefined, null],
];

const COMMON_COMMA: Case[] = [
  ['42', undefined, 42],
  ['3,5', undefined, 3.5],
  ['-3,5', undefined, -3.5],
  [',5', undefined, 0.5],
  ['1.000', undefined, 1000], // a dot before exactly three digits is a group
  ['12.500', undefined, 12500],
  ['1.000.000', undefined, 1000000],
  ['1.000,5', undefined, 1000.5],
  ['1.234.567,89', undefined, 1234567.89],
  ['1.5', undefined, 1.5], // cannot be a group: the canonical decimal point
  ['-12.5', undefined, -12.5],
  ['1.00', undefined, 1],
  ['1.0000', undefined, 1],
  ['0.500', undefined, 0.5], // no group starts with 0: a decimal
  ['1,000', undefined, 1], // the decimal comma
  ['1 000,5', undefined, 1000.5],
  [`1${NBSP}000,5`, undefined, 1000.5],
  [`1${NNBSP}000,5`, undefined, 1000.5],
  ['1,000.5', undefined, null],
  ['1.000.5', undefined, null],
  ['1.000 000', undefined, null], // one group separator per number
  ['1,2,3', undefined, null],
  ['3,5 GB', 'GB', 3.5],
  ['3,5GB', 'gb', 3.5],
  ['\u22122,25', undefined, -2.25],
  ['１２,５', undefined, 12.5],
  ['1e3', undefined, null],
  ['abc', undefined, null],
];

const CASES: Record<string, Case[]> = {
  en: COMMON_DOT,
  'en-GB': [...COMMON_DOT, ['£ 12.50', '£', 12.5], ['１，０００', undefined, 1000]],
  'pt-BR': [...COMMON_COMMA, ['R$ 10,50', 'R$', 10.5], ['r$10,50', 'R$', 10.5], ['10,50 reais', 'reais', 10.5]],
  es: [...COMMON_COMMA, ['1234,5', undefined, 1234.5], ['2.500.000 €', '€', 2500000]],
  fr: [...COMMON_COMMA, ['50 %', '%', 50], ['50%', '%', 50], [`12${NNBSP}345,678 €`, '€', 12345.678]],
  de: [...COMMON_COMMA, ['16 GB', 'GB', 16], ['1.000 Stück', 'Stück', 1000], ['1.000 stück', 'Stück', 1000]],
  ja: [
    ...COMMON_DOT.filter(([text]) => !text.includes('$')),
    ['４２', undefined, 42],
    ['１，２３４．５', undefined, 1234.5],
    ['－５', undefined, -5],
    ['３,５', undefined, null],
    ['16ＧＢ', 'GB', 16],
  ],
};

describe('parseNumber', () => {
  it.each(Object.entries(CASES))('%s has at least 20 cases', (_, table) => {
    expect(table.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(Object.entries(CASES))('in %s', (locale, table) => {
    it.each(table)('%j (unit %j) reads as %j', (text, unit, value) => {
      const parsed = parseNumber(text, ctx([locale]), unit);
      expect(parsed).toEqual(value === null ? { ok: false, reason: 'format' } : { ok: true, value, literal: true });
    });
  });

  it.each([
    ['-12.5', -12.5],
    ['42', 42],
    ['007', 7],
    [' 1.25 ', 1.25],
    ['1,000', null],
    ['3,5', null],
    ['+1', null],
    ['.5', null],
    ['1 000', null],
    ['16 GB', null],
    ['４２', null],
    ['1e3', null],
    ['1234567890123456', null],
  ])('strict reads only the canonical form: %j is %j', (text, value) => {
    for (const locale of ['en', 'pt-BR', 'de']) {
      const parsed = parseNumber(text, ctx([locale], true), 'GB');
      expect(parsed).toEqual(value === null ? { ok: false, reason: 'format' } : { ok: true, value, literal: true });
    }
  });

  it('tries the locales in order: the first that reads the text wins', () => {
    expect(parseNumber('1,000', ctx(['pt-BR', 'en']))).toMatchObject({ value: 1 });
    expect(parseNumber('1,000', ctx(['en', 'pt-BR']))).toMatchObject({ value: 1000 });
    expect(parseNumber('1,000.5', ctx(['de', 'en']))).toMatchObject({ value: 1000.5 }); // de cannot, en can
  });

  it('skips malformed tags, reads English when none is usable, and derives separators for other locales', () => {
    expect(parseNumber('1,000.5', ctx(['not a tag!', 'en']))).toMatchObject({ value: 1000.5 });
    expect(parseNumber('1,000.5', ctx([]))).toMatchObject({ value: 1000.5 });
    expect(parseNumber('1 234,5', ctx(['pt-PT']))).toMatchObject({ value: 1234.5 }); // pt-PT groups with a space
    expect(parseNumber("1'234.5", ctx(['de-CH']))).toMatchObject({ value: 1234.5 }); // de-CH: ’ groups, . decimal
  });

  it('refuses very long and hidden-character text rather than reading it', () => {
    expect(parseNumber('1'.repeat(500), ctx(['en'])).ok).toBe(false);
    expect(parseNumber('4\u00002', ctx(['en'])).ok).toBe(false);
    expect(parseNumber('4\u200b2', ctx(['en']))).toMatchObject({ value: 42 }); // a zero-width space is invisible
  });
});
