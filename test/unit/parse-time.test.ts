import { describe, expect, it } from 'vitest';
import { isIsoTime, parseTime, type ParseContext } from '../../src/core/questions/parse/index.js';

const ctx = (locales: string[], strict = false): ParseContext => ({
  locales,
  timeZone: 'UTC',
  now: Date.UTC(2026, 11, 7, 12, 0),
  strict,
});

/** [typed, "HH:MM" or null, literal]. */
type Case = [string, string | null, boolean?];

/** Read the same in every language. */
const EVERYWHERE: Case[] = [
  ['14:30', '14:30', true],
  [' 14:30 ', '14:30', true],
  ['9:05', '09:05', true],
  ['09:05', '09:05', true],
  ['0:00', '00:00', true],
  ['23:59', '23:59', true],
  ['14:30:00', '14:30', true], // zero seconds are dropped
  ['14:30:15', null], // other seconds would be lost
  ['24:00', null],
  ['23:60', null],
  ['9:5', null],
  ['14', null], // a bare number is not a time
  ['0930', null],
  ['1430', null],
  ['14:30:00.000', null],
  ['-1:00', null],
  ['lunch', null],
];

const ENGLISH: Case[] = [
  ...EVERYWHERE,
  ['2pm', '14:00', false],
  ['2 PM', '14:00', false],
  ['2:30 p.m.', '14:30', false],
  ['2:30pm', '14:30', false],
  ['2.30pm', '14:30', false],
  ['9 am', '09:00', false],
  ['12am', '00:00', false],
  ['12pm', '12:00', false],
  ['12:15 a.m.', '00:15', false],
  ['11:59 PM', '23:59', false],
  ['２：３０ｐｍ', '14:30', false],
  ['noon', '12:00', false],
  ['Midnight', '00:00', false],
  ['13pm', null],
  ['0am', null],
  ['14:30 pm', null],
  ['14h30', null],
  ['14.30', null],
  ['14 Uhr', null],
  ['half past two', null],
];

const CASES: Record<string, Case[]> = {
  en: ENGLISH,
  'en-GB': ENGLISH,
  'pt-BR': [
    ...EVERYWHERE,
    ['14h30', '14:30', true],
    ['14h', '14:00', true],
    ['14H30', '14:30', true],
    ['14 h 30', '14:30', true],
    ['14:30h', '14:30', true],
    ['9h05', '09:05', true],
    ['0h', '00:00', true],
    ['meio-dia', '12:00', false],
    ['meia-noite', '00:00', false],
    ['Meia noite', '00:00', false],
    ['24h', null],
    ['14h60', null],
    ['2pm', null], // am/pm words are English only
    ['14.30', null],
  ],
  es: [
    ...EVERYWHERE,
    ['14h', '14:00', true],
    ['14h30', '14:30', true],
    ['14:30h', '14:30', true],
    ['8 h', '08:00', true],
    ['mediodía', '12:00', false],
    ['MEDIODIA', '12:00', false],
    ['medianoche', '00:00', false],
    ['2pm', null],
    ['14 Uhr', null],
    ['25h', null],
  ],
  fr: [
    ...EVERYWHERE,
    ['14h30', '14:30', true],
    ['14 h 30', '14:30', true],
    ['14h', '14:00', true],
    ['8h05', '08:05', true],
    ['midi', '12:00', false],
    ['minuit', '00:00', false],
    ['Midi.', '12:00', false],
    ['2pm', null],
    ['14.30', null],
    ['24h00', null],
  ],
  de: [
    ...EVERYWHERE,
    ['14.30', '14:30', true],
    ['14 Uhr', '14:00', true],
    ['14:30 Uhr', '14:30', true],
    ['14.30 Uhr', '14:30', true],
    ['14 Uhr 30', '14:30', true],
    ['9 uhr', '09:00', true],
    ['9.05', '09:05', true],
    ['Mitternacht', '00:00', false],
    ['24 Uhr', null],
    ['14h30', null],
    ['2pm', null],
    ['14.5', null],
  ],
  ja: [
    ...EVERYWHERE,
    ['14時30分', '14:30', true],
    ['14時', '14:00', true],
    ['１４時３０分', '14:30', true],
    ['１４：３０', '14:30', true],
    ['9時5分', '09:05', true],
    ['14時半', '14:30', false],
    ['正午', '12:00', false],
    ['24時', null],
    ['14時60分', null],
    ['午後2時', null], // am/pm words are English only
    ['2pm', null],
  ],
};

describe('parseTime', () => {
  it.each(Object.entries(CASES))('%s has at least 20 cases', (_, table) => {
    expect(table.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(Object.entries(CASES))('in %s', (locale, table) => {
    it.each(table)('%j reads as %j (literal %j)', (text, value, literal) => {
      const parsed = parseTime(text, ctx([locale]));
      expect(parsed).toEqual(value === null ? { ok: false, reason: 'format' } : { ok: true, value, literal });
    });
  });

  it('reads the words of each given locale in turn', () => {
    expect(parseTime('2pm', ctx(['pt-BR', 'en']))).toMatchObject({ value: '14:00' });
    expect(parseTime('14h', ctx(['en', 'fr']))).toMatchObject({ value: '14:00' });
    expect(parseTime('14h', ctx(['en']))).toEqual({ ok: false, reason: 'format' });
  });

  it.each([
    ['14:30', true],
    ['09:05', true],
    ['9:05', false],
    ['2pm', false],
    ['14:30:00', false],
    ['24:00', false],
  ])('strict reads only HH:MM: %j', (text, ok) => {
    expect(parseTime(text, ctx(['en'], true)).ok).toBe(ok);
  });

  it.each([
    ['00:00', true],
    ['23:59', true],
    ['12:30', true],
    ['24:00', false],
    ['23:60', false],
    ['9:05', false],
    ['09:05:00', false],
    ['0905', false],
  ])('isIsoTime(%j) is %j', (s, ok) => {
    expect(isIsoTime(s)).toBe(ok);
  });
});
