// Wall clocks in IANA time zones (through Intl only) and ISO 8601 date-times with offsets.
import { memo } from './cache.js';
import { utcMs, validYmd, type Ymd } from './calendar.js';

/** A wall-clock reading: a date and a time of day to the second. */
export interface Wall {
  readonly date: Ymd;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const clocks = new Map<string, Intl.DateTimeFormat>();

/** The zone's clock (throws RangeError for a zone Intl does not know: callers check zones up front). */
function clockOf(timeZone: string): Intl.DateTimeFormat {
  return memo(clocks, timeZone, () => {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  });
}

/** What the clocks of `timeZone` show at `ms`. */
export function wallAt(ms: number, timeZone: string): Wall {
  const parts: Record<string, number> = {};
  for (const p of clockOf(timeZone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    date: { year: parts.year!, month: parts.month!, day: parts.day! },
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** The zone's offset from UTC at `ms`, in ms (east positive). */
export function offsetAt(ms: number, timeZone: string): number {
  const wall = wallAt(ms, timeZone);
  return utcMs(wall.date, wall.hour, wall.minute, wall.second) - Math.floor(ms / 1000) * 1000;
}

const names = new Map<string, Intl.DateTimeFormat>();

/**
 * True when `name` (any case) is the short name `timeZone` has at `ms` in `locale` or in English
 * ("EDT", "CEST", "MESZ", "BRT", "JST"): how a date-time written by `formatDateTime` is read back.
 */
export function isZoneName(name: string, ms: number, timeZone: string, locale: string): boolean {
  return [locale, 'en'].some((tag) => {
    const format = memo(names, `${tag}|${timeZone}`, () => {
      return new Intl.DateTimeFormat(tag, { timeZone, timeZoneName: 'short' });
    });
    const shown = format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
    return shown.toLowerCase() === name.toLowerCase();
  });
}

/** Today's date in `timeZone` at `now`. */
export function todayIn(now: number, timeZone: string): Ymd {
  return wallAt(now, timeZone).date;
}

const DAY = 86_400_000;

/**
 * The instant `timeZone`'s clocks show `wall`, or null when they never do (a daylight-saving gap).
 * When they show it twice (the fold after clocks go back), the earlier instant.
 */
export function instantOfWall(wall: Wall, timeZone: string): number | null {
  const asUtc = utcMs(wall.date, wall.hour, wall.minute, wall.second);
  // The offsets a day either side cover both sides of any one transition near this time.
  const candidates = [...new Set([offsetAt(asUtc - DAY, timeZone), offsetAt(asUtc + DAY, timeZone)])]
    .map((offset) => asUtc - offset)
    .filter((ms) => {
      const seen = wallAt(ms, timeZone);
      return utcMs(seen.date, seen.hour, seen.minute, seen.second) === asUtc;
    });
  return candidates.length === 0 ? null : Math.min(...candidates);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `ms` as "YYYY-MM-DDTHH:MM:SS±HH:MM" in `timeZone` ("+00:00" for UTC, never "Z"), to the second
 * (rounded down). A historical offset with seconds (local mean time before 1900) is rounded to the
 * minute and the wall time written to match, so the text still names the same instant.
 */
export function zonedIso(ms: number, timeZone: string): string {
  const at = Math.floor(ms / 1000) * 1000;
  const offsetMinutes = Math.round(offsetAt(at, timeZone) / 60_000);
  const shown = new Date(at + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${pad(shown.getUTCFullYear(), 4)}-${pad(shown.getUTCMonth() + 1)}-${pad(shown.getUTCDate())}` +
    `T${pad(shown.getUTCHours())}:${pad(shown.getUTCMinutes())}:${pad(shown.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** An ISO 8601 date-time with an offset: "T", seconds and fractions optional, "Z" or ±HH:MM. */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** The parts of a canonical ISO date-time with offset, or null when it is not one or names no real time. */
function isoParts(s: string): { wall: Wall; offsetMinutes: number } | null {
  const m = ISO_DATE_TIME.exec(s);
  if (!m) return null;
  const date = validYmd(Number(m[1]), Number(m[2]), Number(m[3]));
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (!date || hour > 23 || minute > 59 || second > 59) return null;
  const [offH, offM] = [Number(m[8] ?? 0), Number(m[9] ?? 0)];
  if (offH > 23 || offM > 59) return null;
  return { wall: { date, hour, minute, second }, offsetMinutes: (m[7] === '-' ? -1 : 1) * (offH * 60 + offM) };
}

/**
 * True for a valid ISO 8601 date-time WITH an offset: "2026-12-08T14:30Z",
 * "2026-12-08T14:30:00.5+01:00" (upper-case T and Z; no leap second; offsets up to ±23:59).
 */
export function isIsoDateTime(s: string): boolean {
  return isoParts(s) !== null;
}

/** Epoch ms of a valid ISO date-time with offset (fractions of a second dropped); NaN for anything else. */
export function instantOf(isoDateTime: string): number {
  const parts = isoParts(isoDateTime);
  if (!parts) return Number.NaN;
  const { wall, offsetMinutes } = parts;
  return utcMs(wall.date, wall.hour, wall.minute, wall.second) - offsetMinutes * 60_000;
}
