// Calendar arithmetic on plain year/month/day numbers (proleptic Gregorian, years 1–9999): no time zone involved.

/** A calendar date; month 1–12. */
export interface Ymd {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Days in `month` of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The date when it exists in the calendar (year 1–9999), else null. */
export function validYmd(year: number, month: number, day: number): Ymd | null {
  if (!Number.isInteger(year) || year < 1 || year > 9999) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  if (!Number.isInteger(day) || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/** True for a valid calendar date written "YYYY-MM-DD" ("2026-02-30" is false). */
export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  return m !== null && validYmd(Number(m[1]), Number(m[2]), Number(m[3])) !== null;
}

/** True for "HH:MM" from 00:00 to 23:59 (two digits each). */
export function isIsoTime(s: string): boolean {
  return ISO_TIME.test(s);
}

/** The date of an "YYYY-MM-DD" string (assumed valid). */
export function ymdOf(iso: string): Ymd {
  return { year: Number(iso.slice(0, 4)), month: Number(iso.slice(5, 7)), day: Number(iso.slice(8, 10)) };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** "YYYY-MM-DD". */
export function isoOfYmd(d: Ymd): string {
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

/** Epoch ms of a wall-clock reading taken as UTC (years below 100 included, which `Date.UTC` would shift). */
export function utcMs(d: Ymd, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The date `days` after `d` (negative: before). */
export function addDays(d: Ymd, days: number): Ymd {
  const date = new Date(utcMs(d) + days * 86_400_000);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** -1, 0 or 1 as `a` is before, on or after `b`. */
export function compareYmd(a: Ymd, b: Ymd): number {
  return Math.sign(a.year - b.year || a.month - b.month || a.day - b.day);
}

/** The first day `month`/`day` falls on or after `today` (a 29 February may be years ahead), or null. */
export function nextOccurrence(month: number, day: number, today: Ymd): Ymd | null {
  for (let year = today.year; year <= today.year + 8; year++) {
    const date = validYmd(year, month, day);
    if (date && compareYmd(date, today) >= 0) return date;
  }
  return null;
}
