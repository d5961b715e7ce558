// The words each shipped language reads in dates and times: month names (Intl), relative days, fillers, connectors.
import { memo } from './cache.js';
import type { LocaleReading, WordLanguage } from './locales.js';
import { fold } from './text.js';

/** The words one locale reads; every key is folded ({@link fold}), without dots, single-spaced. */
export interface CalendarWords {
  /** Month names, long and abbreviated, and common variants ("sept", "mrz") → 1–12. */
  readonly months: ReadonlyMap<string, number>;
  /** "today", "amanhã"… → days after today (−1 yesterday … 2 the day after tomorrow). */
  readonly relative: ReadonlyMap<string, number>;
  /** Words a month-name date may carry around its numbers ("8 de dezembro de 2026", "le 8 décembre"). */
  readonly fillers: ReadonlySet<string>;
  /** Words that may join a date and a time ("at", "às", "a las", "à", "um", "の"). */
  readonly connectors: readonly string[];
  /** Words that name a time of day ("noon", "meia-noite") → "HH:MM". */
  readonly times: ReadonlyMap<string, string>;
}

interface LanguageWords {
  months: Record<string, number>;
  relative: Record<string, number>;
  fillers: string[];
  connectors: string[];
  times: Record<string, string>;
}

/** Typed as people write them; folded when the table is built. */
const WORDS: Record<WordLanguage, LanguageWords> = {
  en: {
    months: { sept: 9 },
    relative: { yesterday: -1, today: 0, tomorrow: 1, 'day after tomorrow': 2, 'the day after tomorrow': 2 },
    fillers: ['the', 'of', 'on'],
    connectors: ['at', 'on', '@'],
    times: { noon: '12:00', midday: '12:00', midnight: '00:00' },
  },
  pt: {
    months: {},
    relative: { ontem: -1, hoje: 0, amanhã: 1, 'depois de amanhã': 2 },
    fillers: ['de', 'do', 'dia', 'o'],
    connectors: ['às', 'as', 'à', 'a'],
    times: { 'meio-dia': '12:00', 'meio dia': '12:00', 'meia-noite': '00:00', 'meia noite': '00:00' },
  },
  es: {
    months: { sep: 9, set: 9, setiembre: 9 },
    relative: { ayer: -1, hoy: 0, mañana: 1, 'pasado mañana': 2 },
    fillers: ['de', 'del', 'el', 'día', 'o'],
    connectors: ['a las', 'a la'],
    times: { mediodía: '12:00', medianoche: '00:00' },
  },
  fr: {
    months: { fev: 2, juill: 7, sep: 9 },
    relative: { hier: -1, "aujourd'hui": 0, aujourdhui: 0, demain: 1, 'après-demain': 2, 'après demain': 2 },
    fillers: ['le'],
    connectors: ['à', 'a'],
    times: { midi: '12:00', minuit: '00:00' },
  },
  de: {
    months: { mrz: 3, maerz: 3, sept: 9, jän: 1, jänner: 1 },
    relative: { gestern: -1, heute: 0, morgen: 1, übermorgen: 2, uebermorgen: 2 },
    fillers: ['am', 'den', 'der'],
    connectors: ['um'],
    times: { mitternacht: '00:00' },
  },
  ja: {
    months: {},
    relative: {
      昨日: -1,
      きのう: -1,
      今日: 0,
      きょう: 0,
      本日: 0,
      明日: 1,
      あした: 1,
      あす: 1,
      明後日: 2,
      あさって: 2,
    },
    fillers: [],
    connectors: ['の'],
    times: { 正午: '12:00' },
  },
};

const tables = new Map<string, CalendarWords>();

/** The words `reading` reads (its language's; English for a language askgate does not ship). */
export function calendarWords(reading: LocaleReading): CalendarWords {
  return memo(tables, reading.tag, () => {
    const words = WORDS[reading.language];
    const months = new Map<string, number>();
    for (const tag of nameSources(reading)) addMonthNames(months, tag);
    for (const [name, month] of Object.entries(words.months)) months.set(key(name), month);
    const folded = <V>(record: Record<string, V>) => new Map(Object.entries(record).map(([k, v]) => [key(k), v]));
    return {
      months,
      relative: folded(words.relative),
      fillers: new Set(words.fillers.map(key)),
      connectors: words.connectors.map(key),
      times: folded(words.times),
    };
  });
}

/** The key a word or phrase is looked up by: folded, without dots, single-spaced. */
export function key(word: string): string {
  return fold(word).replace(/\./g, '').replace(/\s+/g, ' ').trim();
}

/** The tags whose Intl month names are read: the tag and its language (pt-PT and pt), or English. */
function nameSources(reading: LocaleReading): string[] {
  if (reading.language === 'ja') return [];
  const language = new Intl.Locale(reading.tag).language;
  return language === reading.language ? [...new Set([reading.tag, language])] : ['en'];
}

function addMonthNames(months: Map<string, number>, tag: string): void {
  const styles: Intl.DateTimeFormatOptions[] = [
    { month: 'long' },
    { month: 'short' },
    { day: 'numeric', month: 'long' },
    { day: 'numeric', month: 'short' },
  ];
  for (const style of styles) {
    const format = new Intl.DateTimeFormat(tag, { ...style, timeZone: 'UTC', calendar: 'gregory' });
    for (let month = 1; month <= 12; month++) {
      const part = format.formatToParts(Date.UTC(2026, month - 1, 15)).find((p) => p.type === 'month');
      const name = part ? key(part.value) : '';
      if (name !== '' && !/\d/.test(name)) months.set(name, month);
    }
  }
}
