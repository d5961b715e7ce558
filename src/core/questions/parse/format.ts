// Showing a normalized value to people in their locale (Intl only); a value that is not canonical is shown as it is.
import { memo } from './cache.js';
import { isIsoDate, isIsoTime, utcMs, ymdOf } from './calendar.js';
import { instantOf, isIsoDateTime } from './zones.js';

const formats = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

/** `create(locale)` cached under `name` and `locale`; English when Intl refuses the tag. */
function cached<F extends Intl.NumberFormat | Intl.DateTimeFormat>(
  name: string,
  locale: string,
  create: (locale: string) => F,
): F {
  return memo(formats, `${name}|${locale}`, () => {
    try {
      return create(locale);
    } catch {
      return create('en');
    }
  }) as F;
}

/**
 * The number in `locale`, every significant digit kept, with `unit` after a space: "3,5 GB" in
 * pt-BR, "1,234.5" in en, "1 234,5" (narrow no-break space) in fr.
 */
export function formatNumber(value: number, locale: string, unit?: string): string {
  const format = cached('number', locale, (l) => new Intl.NumberFormat(l, { maximumFractionDigits: 20 }));
  const shown = Number.isFinite(value) ? format.format(value) : String(value);
  return unit ? `${shown} ${unit}` : shown;
}

/**
 * A calendar date "YYYY-MM-DD" as the locale's medium date ("Dec 8, 2026" in en, "8 Dec 2026" in
 * en-GB, "8 de dez. de 2026" in pt-BR, "2026/12/08" in ja); no time zone applies.
 */
export function formatDate(value: string, locale: string): string {
  if (!isIsoDate(value)) return value;
  const format = cached('date', locale, (l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeZone: 'UTC' }));
  return format.format(utcMs(ymdOf(value)));
}

/** "HH:MM" as the locale's short time ("2:30 PM" in en, "14:30" in de). */
export function formatTime(value: string, locale: string): string {
  if (!isIsoTime(value)) return value;
  const format = cached('time', locale, (l) => new Intl.DateTimeFormat(l, { timeStyle: 'short', timeZone: 'UTC' }));
  return format.format(utcMs({ year: 2000, month: 1, day: 1 }, Number(value.slice(0, 2)), Number(value.slice(3, 5))));
}

/**
 * An ISO date-time with offset as the locale's medium date and short time on the clocks of
 * `timeZone`, with the zone's short name ("Dec 8, 2026, 2:30 PM UTC", "8 de dez. de 2026, 11:30 BRT"
 * where the locale has one, else "GMT-3").
 */
export function formatDateTime(value: string, locale: string, timeZone: string): string {
  if (!isIsoDateTime(value)) return value;
  const format = cached(
    `datetime|${timeZone}`,
    locale,
    (l) =>
      new Intl.DateTimeFormat(l, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone,
        timeZoneName: 'short',
      }),
  );
  return format.format(instantOf(value));
}
