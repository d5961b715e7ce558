// Reading a typed date-time: ISO with or without an offset, or any date form and any time form side by side.
import { utcMs, validYmd } from './calendar.js';
import { calendarWords } from './calendar-words.js';
import { readDate, todayOf, type Today } from './dates.js';
import { localeReadings, type LocaleReading } from './locales.js';
import { fold, readable } from './text.js';
import { readTime } from './times.js';
import { FORMAT, read, type ParseContext, type Parsed } from './types.js';
import { instantOf, instantOfWall, isIsoDateTime, isZoneName, zonedIso, type Wall } from './zones.js';

/** Longest written (non-ISO) date-time read: the longest real one is about half that, and each split is tried. */
const WRITTEN_MAX = 80;
const NONEXISTENT: Parsed<string> = { ok: false, reason: 'nonexistent' };

/** ISO 8601 as people and programs write it: "T" or a space, seconds and fraction optional, an optional offset. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?: ?(z|[+-]\d{2}(?::?\d{2})?))?$/i;
/** A zone suffix after a written date and time: " UTC", " GMT-3", " UTC−3", " UTC+05:30", " +01:00", " Z". */
const SUFFIX = / (?:(?:utc|gmt|z)|(?:utc|gmt)([+\-\u2212])(\d{1,2})(?::?(\d{2}))?|([+\-\u2212])(\d{2}):?(\d{2}))$/i;
/** A trailing zone abbreviation ("EDT", "CEST", "BRT", "JST"): read only when it is the ask's zone's own name then. */
const ZONE_NAME = /^(.+) (\p{L}{2,5})$/u;

/**
 * Reads a date-time as "YYYY-MM-DDTHH:MM:SS±HH:MM" with the offset `ctx.timeZone` has at that
 * instant. Strict: only an ISO 8601 date-time with an offset ({@link isIsoDateTime}). Otherwise:
 * ISO with "T" or a space, with or without seconds (a fraction is dropped) and offset; or, in each
 * of `ctx.locales` in turn, any date `parseDate` reads and any time `parseTime` reads, in either
 * order, separated by a space, a comma or the language's word ("at", "às", "a las", "à", "um",
 * "の"), optionally followed by "UTC", "GMT±H", "±HH:MM" or the short name the ask's zone has
 * then in that locale ("EDT", "MESZ", as `formatDateTime` writes it). Without an offset the time
 * is on the clocks of `ctx.timeZone`: one they skip (a daylight-saving gap) is `nonexistent`, one
 * they show twice (the fold) is the earlier instant. A date or a time alone is refused, and so is
 * a written (non-ISO) date-time longer than 80 characters.
 */
export function parseDateTime(text: string, ctx: ParseContext): Parsed<string> {
  if (ctx.strict) {
    const trimmed = text.trim();
    return isIsoDateTime(trimmed) ? read(zonedIso(instantOf(trimmed), ctx.timeZone), true) : FORMAT;
  }
  const s = readable(text);
  if (s === null) return FORMAT;
  const iso = ISO.exec(s);
  if (iso) {
    const date = validYmd(Number(iso[1]), Number(iso[2]), Number(iso[3]));
    const [hour, minute, second] = [Number(iso[4]), Number(iso[5]), Number(iso[6] ?? 0)];
    if (!date || hour > 23 || minute > 59 || second > 59) return FORMAT;
    const offset = iso[7] === undefined ? null : offsetMinutes(iso[7]);
    if (iso[7] !== undefined && offset === null) return FORMAT;
    return atOffset({ date, hour, minute, second }, offset, ctx);
  }
  if (s.length > WRITTEN_MAX) return FORMAT;
  const suffix = SUFFIX.exec(s);
  const offset = suffix ? suffixMinutes(suffix) : null;
  if (offset !== null && Math.abs(offset) >= 24 * 60) return FORMAT;
  const body = suffix ? s.slice(0, suffix.index) : s;
  const today = todayOf(ctx);
  let gap = false;
  for (const reading of localeReadings(ctx.locales)) {
    let found = readPair(body, reading, today);
    const named = found || offset !== null ? null : ZONE_NAME.exec(body);
    if (named) found = readPair(named[1]!, reading, today);
    if (!found) continue;
    const result = atOffset(found.wall, offset, ctx, found.literal);
    if (!result.ok) gap = true;
    else if (!named || isZoneName(named[2]!, instantOf(result.value), ctx.timeZone, reading.tag)) return result;
  }
  return gap ? NONEXISTENT : FORMAT;
}

/** The instant of `wall` at `offset` minutes (null: on the clocks of ctx.timeZone), written in ctx.timeZone. */
function atOffset(wall: Wall, offset: number | null, ctx: ParseContext, literal = true): Parsed<string> {
  const ms =
    offset === null
      ? instantOfWall(wall, ctx.timeZone)
      : utcMs(wall.date, wall.hour, wall.minute, wall.second) - offset * 60_000;
  return ms === null ? NONEXISTENT : read(zonedIso(ms, ctx.timeZone), literal);
}

/** "Z", "+01", "+0100" or "+01:00" in minutes east, or null when out of range. */
function offsetMinutes(text: string): number | null {
  if (/^z$/i.test(text)) return 0;
  const [h, m] = [Number(text.slice(1, 3)), Number(text.replace(':', '').slice(3, 5) || 0)];
  if (h > 23 || m > 59) return null;
  return (text[0] === '-' ? -1 : 1) * (h * 60 + m);
}

function suffixMinutes(m: RegExpExecArray): number {
  const [sign, h, min] = m[1] !== undefined ? [m[1], m[2], m[3]] : [m[4], m[5], m[6]];
  if (sign === undefined) return 0;
  return (sign === '+' ? 1 : -1) * (Number(h) * 60 + Number(min ?? 0));
}

/** Where a date and a time may meet: at a space or comma, or right after a Japanese character ("明日14時"). */
const BREAK = /[ ,]/;
const JAPANESE_BEFORE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * The one date-time `s` names in `reading` as a date and a time side by side (either order), or
 * null when no split reads, or when two splits read differently (then nothing is guessed).
 */
function readPair(s: string, reading: LocaleReading, today: Today): { wall: Wall; literal: boolean } | null {
  const connectors = calendarWords(reading).connectors;
  const found = new Map<string, { wall: Wall; literal: boolean }>();
  for (let i = 1; i < s.length; i++) {
    if (!BREAK.test(s[i]!) && !JAPANESE_BEFORE.test(s[i - 1]!)) continue;
    const first = s.slice(0, i).replace(/[ ,]+$/, '');
    const second = withoutConnector(s.slice(i).replace(/^[ ,]+/, ''), connectors);
    if (first === '' || second === '') continue;
    for (const [datePart, timePart] of [
      [first, second],
      [second, first],
    ] as const) {
      const time = readTime(timePart, reading);
      const date = time && readDate(datePart, reading, today);
      if (!time || !date) continue;
      const wall = { date: date.date, hour: time.hour, minute: time.minute, second: 0 };
      found.set(wallKey(wall), { wall, literal: date.literal && time.literal });
    }
  }
  return found.size === 1 ? [...found.values()][0]! : null;
}

/** `s` without a leading connector word ("at 14:30" → "14:30"; "の14時" → "14時"). */
function withoutConnector(s: string, connectors: readonly string[]): string {
  for (const connector of connectors) {
    const head = fold(s.slice(0, connector.length));
    const next = s.charAt(connector.length);
    const joined = next === ' ' || (next !== '' && !/[a-z]/i.test(connector));
    if (head === connector && joined) return s.slice(connector.length).trimStart();
  }
  return s;
}

const wallKey = (w: Wall) => `${w.date.year}-${w.date.month}-${w.date.day}T${w.hour}:${w.minute}`;
