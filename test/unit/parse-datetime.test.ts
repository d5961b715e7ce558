import { describe, expect, it } from 'vitest';
import {
  instantOf,
  isIsoDateTime,
  parseDateTime,
  zonedIso,
  type ParseContext,
} from '../../src/core/questions/parse/index.js';

/** Monday 7 December 2026, 12:00 UTC. */
const NOW = Date.UTC(2026, 11, 7, 12, 0);
const ctx = (locales: string[], timeZone: string, extra: Partial<ParseContext> = {}): ParseContext => ({
  locales,
  timeZone,
  now: NOW,
  ...extra,
});

/** [typed, the value, "nonexistent" (a daylight-saving gap) or null (not a date-time), literal]. */
type Case = [string, string | null | 'nonexistent', boolean?];

/** Per locale: the ask's time zone and the cases. */
const CASES: Record<string, { zone: string; cases: Case[] }> = {
  en: {
    zone: 'America/New_York',
    cases: [
      ['2026-12-08T14:30', '2026-12-08T14:30:00-05:00', true],
      ['2026-12-08 14:30', '2026-12-08T14:30:00-05:00', true],
      ['2026-12-08T14:30:45', '2026-12-08T14:30:45-05:00', true],
      ['2026-12-08T14:30:45.999', '2026-12-08T14:30:45-05:00', true], // a fraction is dropped
      ['2026-12-08T19:30Z', '2026-12-08T14:30:00-05:00', true],
      ['2026-12-08T14:30+01:00', '2026-12-08T08:30:00-05:00', true],
      ['2026-12-08t19:30z', '2026-12-08T14:30:00-05:00', true],
      ['2026-07-08T14:30', '2026-07-08T14:30:00-04:00', true], // summer time
      ['12/08/2026 14:30', '2026-12-08T14:30:00-05:00', true],
      ['12/08/2026 2:30pm', '2026-12-08T14:30:00-05:00', false],
      ['December 8, 2026 at 2:30 PM', '2026-12-08T14:30:00-05:00', false],
      ['Dec 8, 2026, 2:30 PM EST', '2026-12-08T14:30:00-05:00', false],
      ['Dec 8, 2026, 2:30 PM UTC', '2026-12-08T09:30:00-05:00', false],
      ['12/08/2026 14:30 GMT-3', '2026-12-08T12:30:00-05:00', true],
      ['12/08/2026 14:30 +01:00', '2026-12-08T08:30:00-05:00', true],
      ['tomorrow at noon', '2026-12-08T12:00:00-05:00', false],
      ['2pm tomorrow', '2026-12-08T14:00:00-05:00', false],
      ['2pm on Dec 8', '2026-12-08T14:00:00-05:00', false],
      ['today 9am', '2026-12-07T09:00:00-05:00', false],
      ['Dec 8 @ 9:15', '2026-12-08T09:15:00-05:00', false],
      ['2026-03-08 02:30', 'nonexistent'], // clocks go from 02:00 to 03:00
      ['3/8/2026 2:30am', 'nonexistent'],
      ['2026-11-01 01:30', '2026-11-01T01:30:00-04:00', true], // shown twice: the earlier
      ['2026-12-08', null], // a date alone
      ['14:30', null], // a time alone
      ['2026-12-08T24:00', null],
      ['2026-12-08T14:30+24:00', null],
      ['2026-02-30T10:00', null],
      ['Dec 8 2026 2:30 PM CET', null], // not the ask's zone's name
      ['12/08/26 14:30', null],
    ],
  },
  'en-GB': {
    zone: 'Europe/London',
    cases: [
      ['08/12/2026 14:30', '2026-12-08T14:30:00+00:00', true],
      ['12/08/2026 14:30', '2026-08-12T14:30:00+01:00', true],
      ['8/12/2026, 14:30', '2026-12-08T14:30:00+00:00', true],
      ['8 Dec 2026, 14:30 GMT', '2026-12-08T14:30:00+00:00', false],
      ['8 Jul 2026, 14:30 BST', '2026-07-08T14:30:00+01:00', false],
      ['8 Dec 2026 at 2.30pm', '2026-12-08T14:30:00+00:00', false],
      ['8th December 2026 at 14:30', '2026-12-08T14:30:00+00:00', false],
      ['tomorrow at 9am', '2026-12-08T09:00:00+00:00', false],
      ['today at midnight', '2026-12-07T00:00:00+00:00', false],
      ['2026-12-08T14:30:00+05:30', '2026-12-08T09:00:00+00:00', true],
      ['2026-12-08T14:30Z', '2026-12-08T14:30:00+00:00', true],
      ['2026-12-08 14:30', '2026-12-08T14:30:00+00:00', true],
      ['8/12 14:30', '2026-12-08T14:30:00+00:00', false],
      ['29/03/2026 01:30', 'nonexistent'],
      ['29/03/2026 02:30', '2026-03-29T02:30:00+01:00', true],
      ['25/10/2026 01:30', '2026-10-25T01:30:00+01:00', true],
      ['25/10/2026 02:30', '2026-10-25T02:30:00+00:00', true],
      ['12/31/2026 14:30', null],
      ['8 Dec 2026', null],
      ['tomorrow', null],
      ['tomorrow at 13pm', null],
    ],
  },
  'pt-BR': {
    zone: 'America/Sao_Paulo',
    cases: [
      ['amanhã às 14h', '2026-12-08T14:00:00-03:00', false],
      ['amanha as 14h30', '2026-12-08T14:30:00-03:00', false],
      ['AMANHÃ ÀS 9H', '2026-12-08T09:00:00-03:00', false],
      ['08/12/2026 14:30', '2026-12-08T14:30:00-03:00', true],
      ['08/12/2026 às 14:30', '2026-12-08T14:30:00-03:00', true],
      ['8/12/2026, 14h', '2026-12-08T14:00:00-03:00', true],
      ['8 de dezembro de 2026 às 14h', '2026-12-08T14:00:00-03:00', false],
      ['8 de dez. de 2026, 14:30 BRT', '2026-12-08T14:30:00-03:00', false],
      ['hoje 18h', '2026-12-07T18:00:00-03:00', false],
      ['14h amanhã', '2026-12-08T14:00:00-03:00', false],
      ['depois de amanhã ao meio-dia', null], // "ao" is no connector
      ['depois de amanhã meio-dia', '2026-12-09T12:00:00-03:00', false],
      ['2026-12-08T14:30Z', '2026-12-08T11:30:00-03:00', true],
      ['2026-12-08 14:30', '2026-12-08T14:30:00-03:00', true],
      ['2018-01-15T12:00', '2018-01-15T12:00:00-02:00', true], // summer time, as it was then
      ['04/11/2018 00:30', 'nonexistent'], // clocks went from 00:00 to 01:00
      ['2018-11-04T00:30', 'nonexistent'],
      ['17/02/2018 23:30', '2018-02-17T23:30:00-02:00', true], // shown twice: the earlier
      ['12/31/2026 14:30', null],
      ['amanhã', null],
      ['14h', null],
      ['amanhã às 25h', null],
      ['amanhã às 2pm', null],
    ],
  },
  es: {
    zone: 'Europe/Madrid',
    cases: [
      ['mañana a las 15:00', '2026-12-08T15:00:00+01:00', false],
      ['mañana a las 15h', '2026-12-08T15:00:00+01:00', false],
      ['MANANA A LAS 9:30', '2026-12-08T09:30:00+01:00', false],
      ['hoy a las 18h', '2026-12-07T18:00:00+01:00', false],
      ['pasado mañana 10:00', '2026-12-09T10:00:00+01:00', false],
      ['ayer a las 23:59', '2026-12-06T23:59:00+01:00', false],
      ['8/12/2026 15:00', '2026-12-08T15:00:00+01:00', true],
      ['08/12/2026, 15:00', '2026-12-08T15:00:00+01:00', true],
      ['8 de diciembre de 2026 a las 9:30', '2026-12-08T09:30:00+01:00', false],
      ['8 dic 2026, 9:30 CET', '2026-12-08T09:30:00+01:00', false],
      ['el 8 de diciembre a la 1:00', '2026-12-08T01:00:00+01:00', false],
      ['mañana a medianoche', null], // "a" alone is no Spanish connector
      ['mañana medianoche', '2026-12-08T00:00:00+01:00', false],
      ['2026-12-08 15:00', '2026-12-08T15:00:00+01:00', true],
      ['2026-12-08T15:00-03:00', '2026-12-08T19:00:00+01:00', true],
      ['2026-07-08T15:00', '2026-07-08T15:00:00+02:00', true],
      ['29/03/2026 02:30', 'nonexistent'],
      ['25/10/2026 02:30', '2026-10-25T02:30:00+02:00', true],
      ['12/31/2026 15:00', null],
      ['mañana', null],
      ['mañana a las 3pm', null],
    ],
  },
  fr: {
    zone: 'Europe/Paris',
    cases: [
      ['demain à 14h30', '2026-12-08T14:30:00+01:00', false],
      ['demain a 14h', '2026-12-08T14:00:00+01:00', false],
      ['le 8 décembre à 14h', '2026-12-08T14:00:00+01:00', false],
      ['08/12/2026 14:30', '2026-12-08T14:30:00+01:00', true],
      ['08/12/2026 à 14 h 30', '2026-12-08T14:30:00+01:00', true],
      ['8 déc. 2026, 14:30 UTC+1', '2026-12-08T14:30:00+01:00', false],
      ['8 juil. 2026, 11:30 UTC\u22123', '2026-07-08T16:30:00+02:00', false],
      ["aujourd'hui à midi", '2026-12-07T12:00:00+01:00', false],
      ['après-demain à minuit', '2026-12-09T00:00:00+01:00', false],
      ['hier 8h', '2026-12-06T08:00:00+01:00', false],
      ['le 1er janvier 2027 à 0h', '2027-01-01T00:00:00+01:00', false],
      ['2026-12-08T14:30', '2026-12-08T14:30:00+01:00', true],
      ['2026-12-08 14:30:59', '2026-12-08T14:30:59+01:00', true],
      ['2026-12-08T14:30+01:00', '2026-12-08T14:30:00+01:00', true],
      ['2026-12-08T14:30Z', '2026-12-08T15:30:00+01:00', true],
      ['29/03/2026 à 2h30', 'nonexistent'],
      ['2026-03-29T02:30', 'nonexistent'],
      ['25/10/2026 2h30', '2026-10-25T02:30:00+02:00', true],
      ['demain', null],
      ['demain à 2pm', null],
      ['31/11/2026 14h', null],
    ],
  },
  de: {
    zone: 'Europe/Berlin',
    cases: [
      ['morgen um 14 Uhr', '2026-12-08T14:00:00+01:00', false],
      ['morgen um 14:30', '2026-12-08T14:30:00+01:00', false],
      ['8.12.2026 14:30', '2026-12-08T14:30:00+01:00', true],
      ['8.12.2026, 14.30 Uhr', '2026-12-08T14:30:00+01:00', true],
      ['08.12.2026 um 9 Uhr', '2026-12-08T09:00:00+01:00', true],
      ['8. Dezember 2026 um 9 Uhr', '2026-12-08T09:00:00+01:00', false],
      ['am 8. Dezember um 14 Uhr', '2026-12-08T14:00:00+01:00', false],
      ['8. Juli 2026, 16:30 MESZ', '2026-07-08T16:30:00+02:00', false],
      ['8. Dez. 2026, 16:30 MEZ', '2026-12-08T16:30:00+01:00', false],
      ['heute um Mitternacht', '2026-12-07T00:00:00+01:00', false],
      ['übermorgen 7.15 Uhr', '2026-12-09T07:15:00+01:00', false],
      ['8.12. 14.30', '2026-12-08T14:30:00+01:00', false],
      ['2026-12-08T14:30', '2026-12-08T14:30:00+01:00', true],
      ['2026-12-08T14:30:00Z', '2026-12-08T15:30:00+01:00', true],
      ['29.03.2026 02:30', 'nonexistent'],
      ['2026-03-29 02:30', 'nonexistent'],
      ['29.03.2026 03:30', '2026-03-29T03:30:00+02:00', true],
      ['25.10.2026 02:30', '2026-10-25T02:30:00+02:00', true],
      ['25.10.2026 03:30', '2026-10-25T03:30:00+01:00', true],
      ['morgen', null],
      ['14 Uhr', null],
      ['morgen um 24 Uhr', null],
    ],
  },
  ja: {
    zone: 'Asia/Tokyo',
    cases: [
      ['2026年12月8日 14時30分', '2026-12-08T14:30:00+09:00', true],
      ['2026年12月8日14時30分', '2026-12-08T14:30:00+09:00', true],
      ['２０２６年１２月８日　１４：３０', '2026-12-08T14:30:00+09:00', true],
      ['明日の14時', '2026-12-08T14:00:00+09:00', false],
      ['明日 14:30', '2026-12-08T14:30:00+09:00', false],
      ['あした14時', '2026-12-08T14:00:00+09:00', false],
      ['今日の正午', '2026-12-07T12:00:00+09:00', false],
      ['明後日 9時', '2026-12-09T09:00:00+09:00', false],
      ['12月8日 14時', '2026-12-08T14:00:00+09:00', false],
      ['2026/12/08 14:30', '2026-12-08T14:30:00+09:00', true],
      ['2026/12/08 14時半', '2026-12-08T14:30:00+09:00', false],
      ['2026年7月8日 23:30 JST', '2026-07-08T23:30:00+09:00', true],
      ['2026年7月8日 16:30 GMT+2', '2026-07-08T23:30:00+09:00', true],
      ['2026-12-08T14:30', '2026-12-08T14:30:00+09:00', true],
      ['2026-12-08T14:30Z', '2026-12-08T23:30:00+09:00', true],
      ['2026-12-08T14:30-03:00', '2026-12-09T02:30:00+09:00', true],
      ['2026-12-31 23:59:59', '2026-12-31T23:59:59+09:00', true],
      ['明日', null],
      ['14時', null],
      ['明日の午後2時', null],
      ['2026年2月30日 14時', null],
    ],
  },
};

describe('parseDateTime', () => {
  it.each(Object.entries(CASES))('%s has at least 20 cases', (_, { cases }) => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(Object.entries(CASES))('in %s', (locale, { zone, cases }) => {
    it.each(cases)(`%j in ${zone} reads as %j (literal %j)`, (text, value, literal) => {
      const parsed = parseDateTime(text, ctx([locale], zone));
      expect(parsed).toEqual(
        value === null
          ? { ok: false, reason: 'format' }
          : value === 'nonexistent'
            ? { ok: false, reason: 'nonexistent' }
            : { ok: true, value, literal },
      );
    });
  });

  it('"today" and a time are on the ask zone\'s calendar and clocks', () => {
    // 10:30 UTC on 7 December is 00:30 on 8 December in Kiritimati (UTC+14).
    const now = Date.UTC(2026, 11, 7, 10, 30);
    expect(parseDateTime('today 01:00', ctx(['en'], 'Pacific/Kiritimati', { now }))).toMatchObject({
      value: '2026-12-08T01:00:00+14:00',
    });
    expect(parseDateTime('today 01:00', ctx(['en'], 'UTC', { now }))).toMatchObject({
      value: '2026-12-07T01:00:00+00:00',
    });
    expect(parseDateTime('2026-12-08T01:00Z', ctx(['en'], 'Pacific/Kiritimati', { now }))).toMatchObject({
      value: '2026-12-08T15:00:00+14:00',
    });
  });

  it('refuses a written date-time longer than 80 characters, and any reply with control characters', () => {
    const zone = 'UTC';
    expect(parseDateTime('tomorrow   at    2pm', ctx(['en'], zone))).toMatchObject({ ok: true });
    expect(parseDateTime(`the 8th of December 2026 at 2:30 p.m. ${'UTC '.repeat(12)}`, ctx(['en'], zone))).toEqual({
      ok: false,
      reason: 'format',
    });
    expect(parseDateTime('tomorrow\u0000 at 2pm', ctx(['en'], zone))).toEqual({ ok: false, reason: 'format' });
    expect(parseDateTime('x '.repeat(5000), ctx(['en', 'pt-BR', 'ja'], zone))).toEqual({ ok: false, reason: 'format' });
  });

  it('strict reads only an ISO date-time with an offset, and writes it in the ask zone', () => {
    const strict = (text: string) => parseDateTime(text, ctx(['en'], 'America/Sao_Paulo', { strict: true }));
    expect(strict('2026-12-08T14:30:00Z')).toEqual({ ok: true, value: '2026-12-08T11:30:00-03:00', literal: true });
    expect(strict('2026-12-08T14:30+01:00')).toMatchObject({ value: '2026-12-08T10:30:00-03:00' });
    expect(strict('2026-12-08T14:30:00')).toEqual({ ok: false, reason: 'format' });
    expect(strict('2026-12-08 14:30:00Z')).toEqual({ ok: false, reason: 'format' });
    expect(strict('tomorrow at 2pm')).toEqual({ ok: false, reason: 'format' });
  });

  it.each([
    ['2026-12-08T14:30Z', true],
    ['2026-12-08T14:30:00Z', true],
    ['2026-12-08T14:30:00.123456789+05:30', true],
    ['2026-12-08T14:30:00-03:00', true],
    ['2026-12-08T14:30:00+23:59', true],
    ['2026-12-08T14:30:00', false],
    ['2026-12-08 14:30:00Z', false],
    ['2026-12-08t14:30:00z', false],
    ['2026-12-08T24:00:00Z', false],
    ['2026-12-08T14:30:60Z', false],
    ['2026-02-30T14:30:00Z', false],
    ['2026-12-08T14:30:00+24:00', false],
    ['2026-12-08T14:30:00+0100', false],
  ])('isIsoDateTime(%j) is %j', (s, ok) => {
    expect(isIsoDateTime(s)).toBe(ok);
  });

  it('instantOf and zonedIso name the same instant', () => {
    expect(instantOf('2026-12-08T14:30:00Z')).toBe(Date.UTC(2026, 11, 8, 14, 30));
    expect(instantOf('2026-12-08T11:30:00-03:00')).toBe(Date.UTC(2026, 11, 8, 14, 30));
    expect(instantOf('2026-12-08T14:30:00.999Z')).toBe(Date.UTC(2026, 11, 8, 14, 30));
    expect(instantOf('not a time')).toBeNaN();
    expect(zonedIso(Date.UTC(2026, 11, 8, 14, 30, 5, 900), 'UTC')).toBe('2026-12-08T14:30:05+00:00');
    expect(zonedIso(Date.UTC(2026, 11, 8, 14, 30), 'Asia/Kolkata')).toBe('2026-12-08T20:00:00+05:30');
    expect(zonedIso(Date.UTC(2026, 11, 8, 14, 30), 'America/St_Johns')).toBe('2026-12-08T11:00:00-03:30');
    expect(zonedIso(0, 'UTC')).toBe('1970-01-01T00:00:00+00:00');
    // Local mean time before 1914 had seconds in its offset (−3:06:28): rounded to −3:06, still the same instant.
    const lmt = Date.UTC(1900, 0, 1, 12);
    const written = zonedIso(lmt, 'America/Sao_Paulo');
    expect(written).toBe('1900-01-01T08:54:00-03:06');
    expect(instantOf(written)).toBe(lmt);
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 293_003_000)
      for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham'])
        expect(instantOf(zonedIso(ms, zone))).toBe(Math.floor(ms / 1000) * 1000);
  });
});
