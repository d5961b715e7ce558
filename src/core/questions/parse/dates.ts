// Reading a typed date: ISO, the locale's numeric order, day and month name, today/tomorrow words, Japanese 年月日.
import { addDays, isIsoDate, isoOfYmd, nextOccurrence, validYmd, type Ymd } from './calendar.js';
import { calendarWords, key } from './calendar-words.js';
import { localeReadings, type DateField, type LocaleReading } from './locales.js';
import { readable } from './text.js';
import { FORMAT, read, type ParseContext, type Parsed } from './types.js';
import { todayIn } from './zones.js';

/** A date read from text: `literal` is false when a word was read or the year was inferred. */
export interface DateReading {
  readonly date: Ymd;
  readonly literal: boolean;
}

/** Today in the ask's zone, computed at most once per reply. */
export type Today = () => Ymd;

/** The `Today` of a context. */
export function todayOf(ctx: ParseContext): Today {
  let today: Ymd | undefined;
  return () => (today ??= todayIn(ctx.now, ctx.timeZone));
}

/**
 * Reads a date as "YYYY-MM-DD". Strict: only a valid "YYYY-MM-DD". Otherwise, in each of
 * `ctx.locales` in turn: a year-first numeric date ("2026-12-08", "2026/12/8", "2026.12.08"); the
 * locale's numeric order with "/", "." or "-" and a four-digit year ("12/08/2026" is 8 December in
 * en/en-US, 12 August in en-GB, pt-BR, es, fr, de); the same without a year ("12/08"), meaning the
 * next such day on or after today; a day and a month name in either order with an optional year and
 * the language's small words ("8 de dezembro de 2026", "le 1er décembre", "December 8th, 2026",
 * "8. Dez."); Japanese "2026年12月8日" and "12月8日"; yesterday/today/tomorrow/the day after
 * tomorrow in the language. Two-digit years and impossible dates (30/02) are refused. Throws
 * RangeError for a `ctx.timeZone` Intl does not know (when today is needed).
 */
export function parseDate(text: string, ctx: ParseContext): Parsed<string> {
  if (ctx.strict) {
    const trimmed = text.trim();
    return isIsoDate(trimmed) ? read(trimmed, true) : FORMAT;
  }
  const s = readable(text);
  if (s === null) return FORMAT;
  const today = todayOf(ctx);
  for (const reading of localeReadings(ctx.locales)) {
    const date = readDate(s, reading, today);
    if (date) return read(isoOfYmd(date.date), date.literal);
  }
  return FORMAT;
}

/** `s` (already {@link readable}) as a date in `reading`, or null. */
export function readDate(s: string, reading: LocaleReading, today: Today): DateReading | null {
  return numericDate(s, reading, today) ?? japaneseDate(s, reading, today) ?? wordDate(s, reading, today);
}

const NUMERIC = /^(\d{1,4})([-/.])(\d{1,4})(?:\2(\d{1,4}))?(\.?)$/;

function numericDate(s: string, reading: LocaleReading, today: Today): DateReading | null {
  const m = NUMERIC.exec(s);
  if (!m || (m[5] === '.' && m[2] !== '.')) return null;
  const parts = [m[1]!, m[3]!, ...(m[4] === undefined ? [] : [m[4]])];
  if (parts.length === 3 && parts[0]!.length === 4) return dated(parts[0]!, parts[1]!, parts[2]!);
  const order = parts.length === 3 ? reading.dateOrder : reading.dateOrder.filter((f) => f !== 'year');
  if (order.length !== parts.length) return null;
  const field = (name: DateField) => parts[order.indexOf(name)];
  if (parts.length === 3) return dated(field('year')!, field('month')!, field('day')!);
  return yearless(field('month')!, field('day')!, today);
}

/** A full date from digit strings: a four-digit year, a one- or two-digit month and day. */
function dated(year: string, month: string, day: string): DateReading | null {
  if (year.length !== 4 || month.length > 2 || day.length > 2) return null;
  const date = validYmd(Number(year), Number(month), Number(day));
  return date && { date, literal: true };
}

/** The next day on or after today that is `day`/`month` (never literal: the year was inferred). */
function yearless(month: string, day: string, today: Today): DateReading | null {
  if (month.length > 2 || day.length > 2 || !validYmd(2000, Number(month), Number(day))) return null;
  const date = nextOccurrence(Number(month), Number(day), today());
  return date && { date, literal: false };
}

const JAPANESE = /^(?:(\d{4}) ?年 ?)?(\d{1,2}) ?月 ?(\d{1,2}) ?日$/;

function japaneseDate(s: string, reading: LocaleReading, today: Today): DateReading | null {
  if (reading.language !== 'ja') return null;
  const m = JAPANESE.exec(s);
  if (!m) return null;
  return m[1] === undefined ? yearless(m[2]!, m[3]!, today) : dated(m[1], m[2]!, m[3]!);
}

// A day as written before or after a month name: "8", "8th", "1st", "1er", "1º" (NFKC "1o").
const DAY = /^(\d{1,2})(?:st|nd|rd|th|er|o)?$/;
const YEAR = /^\d{4}$/;

function wordDate(s: string, reading: LocaleReading, today: Today): DateReading | null {
  const words = calendarWords(reading);
  const relative = words.relative.get(key(s.replace(/[!.]+$/, '')));
  if (relative !== undefined) return { date: addDays(today(), relative), literal: false };

  const tokens = key(s.replace(/[,./-]+/g, ' '))
    .split(' ')
    .filter((t) => t !== '' && !words.fillers.has(t));
  // Shapes: day month [year] or month day [year].
  if (tokens.length < 2 || tokens.length > 3) return null;
  const monthAt = words.months.has(tokens[0]!) ? 0 : words.months.has(tokens[1]!) ? 1 : -1;
  const day = DAY.exec(tokens[1 - monthAt]!);
  if (monthAt < 0 || !day) return null;
  const month = words.months.get(tokens[monthAt]!)!;
  if (tokens.length === 2) return yearless(String(month), day[1]!, today);
  if (!YEAR.test(tokens[2]!)) return null;
  const date = validYmd(Number(tokens[2]), month, Number(day[1]));
  return date && { date, literal: false };
}
