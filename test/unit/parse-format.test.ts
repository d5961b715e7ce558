import { describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDateTime,
  formatNumber,
  formatTime,
  parseDate,
  parseDateTime,
  parseNumber,
  parseTime,
} from '../../src/core/questions/parse/index.js';

const NNBSP = '\u202f';
/** ICU versions differ on a space or a narrow no-break space before AM/PM: compare spaces as spaces. */
const spaced = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const LOCALES = ['en', 'en-GB', 'pt-BR', 'es', 'fr', 'de', 'ja'];
const ZONES = ['UTC', 'America/Sao_Paulo', 'America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Asia/Kolkata'];

describe('formatting', () => {
  it.each([
    [3.5, 'pt-BR', 'GB', '3,5 GB'],
    [3.5, 'en', 'GB', '3.5 GB'],
    [1234.5, 'en', undefined, '1,234.5'],
    [1234.5, 'de', undefined, '1.234,5'],
    [1234.5, 'fr', undefined, `1${NNBSP}234,5`],
    [1234567.891, 'ja', undefined, '1,234,567.891'],
    [-12.25, 'es', undefined, '-12,25'],
    [0.000001, 'en', undefined, '0.000001'], // every significant digit kept
    [123456789012345, 'en', undefined, '123,456,789,012,345'],
    [42, 'xx-not-a-tag!', undefined, '42'],
  ])('formatNumber(%j, %j, %j) is %j', (value, locale, unit, shown) => {
    expect(spaced(formatNumber(value, locale, unit))).toBe(spaced(shown));
  });

  it.each([
    ['2026-12-08', 'en', 'Dec 8, 2026'],
    ['2026-12-08', 'en-GB', '8 Dec 2026'],
    ['2026-12-08', 'pt-BR', '8 de dez. de 2026'],
    ['2026-12-08', 'de', '08.12.2026'],
    ['2026-12-08', 'ja', '2026/12/08'],
    ['0099-01-01', 'en', 'Jan 1, 99'],
    ['2026-02-30', 'en', '2026-02-30'], // not a date: shown as it is
  ])('formatDate(%j, %j) is %j (a calendar date: no zone shift)', (value, locale, shown) => {
    expect(formatDate(value, locale)).toBe(shown);
  });

  it.each([
    ['14:30', 'en', `2:30${NNBSP}PM`],
    ['00:05', 'en', `12:05${NNBSP}AM`],
    ['14:30', 'en-GB', '14:30'],
    ['14:30', 'de', '14:30'],
    ['09:05', 'ja', '9:05'],
    ['24:00', 'en', '24:00'],
  ])('formatTime(%j, %j) is %j', (value, locale, shown) => {
    expect(spaced(formatTime(value, locale))).toBe(spaced(shown));
  });

  it.each([
    ['2026-12-08T14:30:00+00:00', 'en', 'UTC', `Dec 8, 2026, 2:30${NNBSP}PM UTC`],
    ['2026-12-08T14:30:00+00:00', 'en', 'America/New_York', `Dec 8, 2026, 9:30${NNBSP}AM EST`],
    ['2026-12-08T11:30:00-03:00', 'pt-BR', 'America/Sao_Paulo', '8 de dez. de 2026, 11:30 BRT'],
    ['2026-12-08T14:30:00Z', 'de', 'Europe/Berlin', '8. Dez. 2026, 15:30 MEZ'],
    ['2026-12-08T14:30:00Z', 'ja', 'Asia/Tokyo', '2026年12月8日 23:30 JST'],
  ])('formatDateTime(%j, %j, %j) is %j', (value, locale, zone, shown) => {
    expect(spaced(formatDateTime(value, locale, zone))).toBe(spaced(shown));
  });

  describe.each(LOCALES)('what %s shows reads back as the same value', (locale) => {
    const ctx = (timeZone = 'UTC') => ({ locales: [locale], timeZone, now: Date.UTC(2026, 0, 1) });

    it.each([0, 42, -3.5, 1234.5, 1234567.891, 0.000123, 123456789012345])('number %j', (value) => {
      expect(parseNumber(formatNumber(value, locale, 'GB'), ctx(), 'GB')).toMatchObject({ value });
    });

    it.each(['2026-12-08', '2027-01-01', '2028-02-29', '2026-05-31'])('date %j', (value) => {
      expect(parseDate(formatDate(value, locale), ctx())).toMatchObject({ value });
    });

    it.each(['00:00', '00:05', '09:05', '12:00', '12:30', '14:30', '23:59'])('time %j', (value) => {
      expect(parseTime(formatTime(value, locale), ctx())).toMatchObject({ value });
    });

    it.each(ZONES)('date-time in %s', (zone) => {
      for (const instant of [Date.UTC(2026, 11, 8, 14, 30), Date.UTC(2026, 6, 8, 3, 5)]) {
        const value = parseDateTime(new Date(instant).toISOString(), ctx(zone));
        expect(value.ok).toBe(true);
        if (!value.ok) return;
        expect(parseDateTime(formatDateTime(value.value, locale, zone), ctx(zone))).toMatchObject({
          value: value.value,
        });
      }
    });
  });
});
