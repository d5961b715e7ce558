import { describe, expect, it } from 'vitest';
import { isIsoDate, parseDate, type ParseContext } from '../../src/core/questions/parse/index.js';

/** Monday 7 December 2026, 12:00 UTC: "today" is 2026-12-07 in UTC. */
const NOW = Date.UTC(2026, 11, 7, 12, 0);
const ctx = (locales: string[], extra: Partial<ParseContext> = {}): ParseContext => ({
  locales,
  timeZone: 'UTC',
  now: NOW,
  ...extra,
});

/** [typed, "YYYY-MM-DD" or null, literal]. Year-less dates are the next such day on or after today. */
type Case = [string, string | null, boolean?];

const ISO_AND_YEAR_FIRST: Case[] = [
  ['2026-12-08', '2026-12-08', true],
  [' 2026-12-08 ', '2026-12-08', true],
  ['2026/12/08', '2026-12-08', true],
  ['2026.12.8', '2026-12-08', true],
  ['2028-02-29', '2028-02-29', true],
  ['2026-02-29', null], // not a leap year
  ['2026-02-30', null],
  ['2026-13-01', null],
  ['2026-12-08-01', null],
  ['banana', null],
];

const CASES: Record<string, Case[]> = {
  en: [
    ...ISO_AND_YEAR_FIRST,
    ['12/08/2026', '2026-12-08', true], // month first
    ['12-08-2026', '2026-12-08', true],
    ['12.08.2026', '2026-12-08', true],
    ['12/8/2026', '2026-12-08', true],
    ['2/29/2028', '2028-02-29', true],
    ['12/08', '2026-12-08', false],
    ['1/5', '2027-01-05', false], // already past this year
    ['12/7', '2026-12-07', false], // today counts
    ['12/31/2026', '2026-12-31', true],
    ['31/12/2026', null], // no month 31
    ['02/30/2026', null],
    ['12/08/26', null], // two-digit years are refused
    ['12/08/202', null],
    ['12/08-2026', null],
    ['December 8, 2026', '2026-12-08', false],
    ['december 8th 2026', '2026-12-08', false],
    ['Dec. 8', '2026-12-08', false],
    ['8 December 2026', '2026-12-08', false],
    ['the 8th of December', '2026-12-08', false],
    ['Sept 3, 2027', '2027-09-03', false],
    ['8-Dec-2026', '2026-12-08', false],
    ['February 30, 2027', null],
    ['today', '2026-12-07', false],
    ['Today!', '2026-12-07', false],
    ['TOMORROW', '2026-12-08', false],
    ['yesterday', '2026-12-06', false],
    ['the day after tomorrow', '2026-12-09', false],
    ['hoje', null], // Portuguese words are not English
    ['next friday', null],
    ['8 Dezember 2026', null],
  ],
  'en-GB': [
    ...ISO_AND_YEAR_FIRST,
    ['12/08/2026', '2026-08-12', true], // day first
    ['08/12/2026', '2026-12-08', true],
    ['8/12/2026', '2026-12-08', true],
    ['8.12.2026', '2026-12-08', true],
    ['31/12/2026', '2026-12-31', true],
    ['12/31/2026', null],
    ['29/02/2026', null],
    ['8/12', '2026-12-08', false],
    ['29/02', '2028-02-29', false], // the next 29 February
    ['8 Dec 2026', '2026-12-08', false],
    ['8 Sept 2026', '2026-09-08', false],
    ['8 Sep 2026', '2026-09-08', false],
    ['8th December', '2026-12-08', false],
    ['December 8th, 2026', '2026-12-08', false],
    ['today', '2026-12-07', false],
    ['tomorrow', '2026-12-08', false],
    ['8/12/26', null],
    ['32/12/2026', null],
  ],
  'pt-BR': [
    ...ISO_AND_YEAR_FIRST,
    ['12/08/2026', '2026-08-12', true],
    ['08/12/2026', '2026-12-08', true],
    ['8/12/2026', '2026-12-08', true],
    ['8-12-2026', '2026-12-08', true],
    ['31/04/2026', null],
    ['8/12', '2026-12-08', false],
    ['8 de dezembro de 2026', '2026-12-08', false],
    ['8 de dez. de 2026', '2026-12-08', false],
    ['8 dezembro', '2026-12-08', false],
    ['dia 8 de dezembro', '2026-12-08', false],
    ['8 de marco de 2027', '2027-03-08', false], // "março" without its cedilla
    ['1º de janeiro', '2027-01-01', false],
    ['hoje', '2026-12-07', false],
    ['amanhã', '2026-12-08', false],
    ['AMANHÃ', '2026-12-08', false],
    ['amanha', '2026-12-08', false],
    ['ontem', '2026-12-06', false],
    ['depois de amanhã', '2026-12-09', false],
    ['tomorrow', null],
    ['8 de diciembre de 2026', null],
    ['8 de dezembro de 26', null],
  ],
  es: [
    ...ISO_AND_YEAR_FIRST,
    ['12/08/2026', '2026-08-12', true],
    ['08/12/2026', '2026-12-08', true],
    ['8/12/2026', '2026-12-08', true],
    ['32/01/2026', null],
    ['8/12', '2026-12-08', false],
    ['8 de diciembre de 2026', '2026-12-08', false],
    ['8 dic 2026', '2026-12-08', false],
    ['1 de septiembre', '2027-09-01', false],
    ['1 de setiembre', '2027-09-01', false],
    ['1 sept 2027', '2027-09-01', false],
    ['1.º de enero', '2027-01-01', false],
    ['el 8 de diciembre', '2026-12-08', false],
    ['hoy', '2026-12-07', false],
    ['mañana', '2026-12-08', false],
    ['MANANA', '2026-12-08', false],
    ['pasado mañana', '2026-12-09', false],
    ['ayer', '2026-12-06', false],
    ['demain', null],
    ['30 de febrero de 2027', null],
  ],
  fr: [
    ...ISO_AND_YEAR_FIRST,
    ['12/08/2026', '2026-08-12', true],
    ['08/12/2026', '2026-12-08', true],
    ['8.12.2026', '2026-12-08', true],
    ['31/06/2026', null],
    ['le 8 décembre', '2026-12-08', false],
    ['le 1er janvier 2027', '2027-01-01', false],
    ['8 déc. 2026', '2026-12-08', false],
    ['8 decembre 2026', '2026-12-08', false],
    ['3 févr. 2027', '2027-02-03', false],
    ['3 fev 2027', '2027-02-03', false],
    ['14 juillet', '2027-07-14', false],
    ['8 sept 2027', '2027-09-08', false],
    ["aujourd'hui", '2026-12-07', false],
    ['aujourd’hui', '2026-12-07', false],
    ['demain', '2026-12-08', false],
    ['après-demain', '2026-12-09', false],
    ['apres demain', '2026-12-09', false],
    ['hier', '2026-12-06', false],
    ['morgen', null],
    ['le 31 novembre', null],
  ],
  de: [
    ...ISO_AND_YEAR_FIRST,
    ['12.08.2026', '2026-08-12', true],
    ['8.12.2026', '2026-12-08', true],
    ['08.12.2026', '2026-12-08', true],
    ['8.12.2026.', '2026-12-08', true],
    ['8.12.', '2026-12-08', false],
    ['8/12/2026', '2026-12-08', true],
    ['8/12/2026.', null], // the closing dot only after dots
    ['31.11.2026', null],
    ['8. Dezember 2026', '2026-12-08', false],
    ['am 8. Dezember', '2026-12-08', false],
    ['3. März 2027', '2027-03-03', false],
    ['3. Maerz 2027', '2027-03-03', false],
    ['3 Mrz 2027', '2027-03-03', false],
    ['1. Jänner 2027', '2027-01-01', false],
    ['heute', '2026-12-07', false],
    ['Morgen', '2026-12-08', false],
    ['übermorgen', '2026-12-09', false],
    ['gestern', '2026-12-06', false],
    ['8.12.26', null],
    ['tomorrow', null],
  ],
  ja: [
    ...ISO_AND_YEAR_FIRST,
    ['2026年12月8日', '2026-12-08', true],
    ['２０２６年１２月８日', '2026-12-08', true],
    ['2026 年 12 月 8 日', '2026-12-08', true],
    ['12月8日', '2026-12-08', false],
    ['１２月８日', '2026-12-08', false],
    ['12/08', '2026-12-08', false], // month first without the year
    ['2026／12／08', '2026-12-08', true],
    ['今日', '2026-12-07', false],
    ['きょう', '2026-12-07', false],
    ['明日', '2026-12-08', false],
    ['あした', '2026-12-08', false],
    ['明後日', '2026-12-09', false],
    ['昨日', '2026-12-06', false],
    ['2026年2月30日', null],
    ['12/08/2026', null], // Japanese numeric dates put the year first
    ['December 8, 2026', null],
    ['12月', null],
  ],
};

describe('parseDate', () => {
  it.each(Object.entries(CASES))('%s has at least 20 cases', (_, table) => {
    expect(table.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(Object.entries(CASES))('in %s', (locale, table) => {
    it.each(table)('%j reads as %j (literal %j)', (text, value, literal) => {
      const parsed = parseDate(text, ctx([locale]));
      expect(parsed).toEqual(value === null ? { ok: false, reason: 'format' } : { ok: true, value, literal });
    });
  });

  it('reads 12/08/2026 by the locale rule only, in the order the locales are given', () => {
    expect(parseDate('12/08/2026', ctx(['en-US']))).toMatchObject({ value: '2026-12-08' });
    expect(parseDate('12/08/2026', ctx(['en-GB', 'en-US']))).toMatchObject({ value: '2026-08-12' });
    expect(parseDate('12/08/2026', ctx(['pt-PT']))).toMatchObject({ value: '2026-08-12' });
    expect(parseDate('amanhã', ctx(['pt-PT']))).toMatchObject({ value: '2026-12-08' }); // pt words
    expect(parseDate('tomorrow', ctx(['ko']))).toMatchObject({ value: '2026-12-08' }); // English words
    expect(parseDate('amanhã', ctx(['en', 'pt-BR']))).toMatchObject({ value: '2026-12-08' });
  });

  it('"today" is today in ctx.timeZone, not in UTC', () => {
    // 10:30 UTC on 7 December is 00:30 on 8 December at UTC+14 and 23:30 on 6 December at UTC−11.
    const now = Date.UTC(2026, 11, 7, 10, 30);
    const today = (timeZone: string) => parseDate('today', ctx(['en'], { timeZone, now }));
    expect(today('Pacific/Kiritimati')).toMatchObject({ value: '2026-12-08' });
    expect(today('UTC')).toMatchObject({ value: '2026-12-07' });
    expect(today('Pacific/Pago_Pago')).toMatchObject({ value: '2026-12-06' });
    // A year-less date is the next one on or after today there.
    expect(parseDate('12/07', ctx(['en'], { timeZone: 'Pacific/Kiritimati', now }))).toMatchObject({
      value: '2027-12-07',
    });
    expect(parseDate('12/07', ctx(['en'], { timeZone: 'UTC', now }))).toMatchObject({ value: '2026-12-07' });
  });

  it.each([
    ['2026-12-08', true],
    [' 2026-12-08 ', true],
    ['2026-12-8', false],
    ['12/08/2026', false],
    ['tomorrow', false],
    ['2026-02-30', false],
  ])('strict reads only YYYY-MM-DD: %j', (text, ok) => {
    expect(parseDate(text, ctx(['en'], { strict: true })).ok).toBe(ok);
  });

  it.each([
    ['2026-12-08', true],
    ['2028-02-29', true],
    ['0001-01-01', true],
    ['9999-12-31', true],
    ['2026-02-29', false],
    ['2026-04-31', false],
    ['0000-01-01', false],
    ['2026-12-8', false],
    ['2026-12-08 ', false],
    ['20261208', false],
  ])('isIsoDate(%j) is %j', (s, ok) => {
    expect(isIsoDate(s)).toBe(ok);
  });
});
