import { z } from 'zod';
import { isTimeZone } from './locale-tags.js';
import { addDays, utcMs } from './questions/parse/calendar.js';
import { instantOfWall, wallAt, type Wall } from './questions/parse/zones.js';

/** Day names as `days` spells them, Sunday first (JavaScript's `getUTCDay` order). */
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const DAY = `(?:${DAY_NAMES.join('|')})`;
const DAYS_PATTERN = new RegExp(`^${DAY}(?:-${DAY})?(?:,${DAY}(?:-${DAY})?)*$`);
const HH_MM = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** An IANA zone in its canonical spelling (as request-schemas' TimeZoneSchema, which imports this module). */
const ZoneSchema = z
  .string('must be an IANA time zone such as "Europe/Lisbon"')
  .max(64, 'must be at most 64 characters')
  .refine(isTimeZone, 'must be an IANA time zone such as "Europe/Lisbon"')
  .transform((zone) => new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone);

/**
 * When a target's people work: `days` (`"mon-fri"`, `"mon,wed,fri"`, `"sun-thu"`, ranges wrapping
 * past Saturday like `"fri-mon"`), `from` and `to` as local `HH:MM` (from before to) in `timeZone`.
 */
export const WorkingHoursSchema = z
  .object({
    days: z
      .string()
      .regex(DAYS_PATTERN, 'must be days such as "mon-fri" or "mon,wed,fri" (sun mon tue wed thu fri sat)'),
    from: z.string().regex(HH_MM, 'must be a time of day "HH:MM"'),
    to: z.string().regex(HH_MM, 'must be a time of day "HH:MM"'),
    timeZone: ZoneSchema,
  })
  .strict()
  // Compared only once both are times (zod refines the object even when a field was refused).
  .refine((h) => !HH_MM.test(h.from) || !HH_MM.test(h.to) || h.from < h.to, {
    path: ['to'],
    message: 'must be after from (a window within one day)',
  });
/** Validated working hours. */
export type WorkingHours = z.output<typeof WorkingHoursSchema>;

/** The weekdays (0 = Sunday) a `days` text names; a range wraps past Saturday (`fri-mon`). */
export function weekdaysOf(days: string): Set<number> {
  const set = new Set<number>();
  for (const part of days.split(',')) {
    const [first, last = first] = part.split('-').map((d) => DAY_NAMES.indexOf(d as (typeof DAY_NAMES)[number]));
    for (let d = first!; ; d = (d + 1) % 7) {
      set.add(d);
      if (d === last) break;
    }
  }
  return set;
}

/**
 * When a step due at `at` runs for `targets`: at once when any of them states no hours (someone is
 * always there), else at the earliest opening among theirs.
 */
export function openingFor(targets: readonly { hours?: WorkingHours | undefined }[], at: number): number {
  if (targets.length === 0 || targets.some((t) => t.hours === undefined)) return at;
  return Math.min(...targets.map((t) => nextOpening(t.hours!, at)));
}

/** Longest daylight-saving gap looked past, in minutes (Lord Howe's is 30, most are 60). */
const MAX_GAP_MINUTES = 180;

/**
 * The instant `timeZone`'s clocks show `hh:mm` on `date`; in a daylight-saving gap (a time the
 * clocks skip), the first instant after it. In a fold (shown twice), the earlier.
 */
function localInstant(date: Wall['date'], hhmm: string, timeZone: string): number {
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  const base = utcMs(date, hour, minute);
  for (let skip = 0; skip <= MAX_GAP_MINUTES; skip += 1) {
    const at = new Date(base + skip * 60_000);
    const wall: Wall = {
      date: { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() },
      hour: at.getUTCHours(),
      minute: at.getUTCMinutes(),
      second: 0,
    };
    const found = instantOfWall(wall, timeZone);
    if (found !== null) return found;
  }
  // No zone skips three hours; should one, the UTC reading is a safe, if odd, answer.
  return base;
}

/**
 * The first moment at or after `at` (epoch ms) within the working hours: `at` itself when it falls
 * inside a window (`from` inclusive, `to` exclusive), else the next window's start. A reminder or
 * an escalation step due outside the hours waits for this; the timeout never does.
 */
export function nextOpening(hours: WorkingHours, at: number): number {
  const weekdays = weekdaysOf(hours.days);
  const today = wallAt(at, hours.timeZone).date;
  // A week and a day cover every pattern from any starting point (at least one day is named).
  for (let i = 0; i <= 7; i++) {
    const date = addDays(today, i);
    if (!weekdays.has(new Date(utcMs(date)).getUTCDay())) continue;
    const start = localInstant(date, hours.from, hours.timeZone);
    const end = localInstant(date, hours.to, hours.timeZone);
    if (at < start) return start;
    if (at < end) return at;
  }
  // Unreachable for valid hours; a step never waits forever.
  return at;
}
