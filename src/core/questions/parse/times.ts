// Reading a typed time of day: 24-hour forms everywhere, "14h30", "14.30 Uhr", "14時30分" by language, am/pm in English.
import { isIsoTime } from './calendar.js';
import { calendarWords, key } from './calendar-words.js';
import { localeReadings, type LocaleReading, type WordLanguage } from './locales.js';
import { readable } from './text.js';
import { FORMAT, read, type ParseContext, type Parsed } from './types.js';

/** A time read from text: `literal` is false when an am/pm or noon/midnight word was read. */
export interface TimeReading {
  readonly hour: number;
  readonly minute: number;
  readonly literal: boolean;
}

/** "14:30", "9:05"; seconds only as ":00" (other seconds would be dropped, so they are refused). */
const COLON = /^(\d{1,2}):(\d{2})(?::00)?$/;

/** The forms each language adds; `ampm` marks an English 12-hour form. */
const FORMS: Partial<Record<WordLanguage, readonly { shape: RegExp; ampm?: true; half?: true }[]>> = {
  en: [{ shape: /^(\d{1,2})(?:[:.](\d{2}))? ?([ap])\.? ?m\.?$/, ampm: true }],
  pt: [{ shape: /^(\d{1,2}) ?h ?(\d{2})?$/ }, { shape: /^(\d{1,2}):(\d{2}) ?h$/ }],
  es: [{ shape: /^(\d{1,2}) ?h ?(\d{2})?$/ }, { shape: /^(\d{1,2}):(\d{2}) ?h$/ }],
  fr: [{ shape: /^(\d{1,2}) ?h ?(\d{2})?$/ }],
  de: [{ shape: /^(\d{1,2})[.:](\d{2})(?: ?uhr)?$/ }, { shape: /^(\d{1,2}) ?uhr(?: ?(\d{2}))?$/ }],
  ja: [{ shape: /^(\d{1,2}) ?時(?: ?(\d{1,2}) ?分)?$/ }, { shape: /^(\d{1,2}) ?時 ?半$/, half: true }],
};

/**
 * Reads a time as "HH:MM" (24 h). Strict: only "HH:MM" 00:00–23:59. Otherwise, in each of
 * `ctx.locales` in turn: "14:30", "9:05", "14:30:00" (seconds only when zero); pt/es/fr "14h30",
 * "14h", "14 h 30" (pt/es also "14:30h"); de "14.30", "14 Uhr", "14:30 Uhr", "14 Uhr 30"; ja
 * "14時30分", "14時", "14時半"; English "2pm", "2:30 p.m.", "12am" (00:00), "12pm" (12:00); the
 * words for noon and midnight. 24:00 and a bare number ("14", "1430") are refused.
 */
export function parseTime(text: string, ctx: ParseContext): Parsed<string> {
  if (ctx.strict) {
    const trimmed = text.trim();
    return isIsoTime(trimmed) ? read(trimmed, true) : FORMAT;
  }
  const s = readable(text);
  if (s === null) return FORMAT;
  for (const reading of localeReadings(ctx.locales)) {
    const time = readTime(s, reading);
    if (time) return read(hhmm(time), time.literal);
  }
  return FORMAT;
}

/** "HH:MM" of a reading. */
export function hhmm(time: { hour: number; minute: number }): string {
  return `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
}

/** `s` (already readable) as a time in `reading`, or null. */
export function readTime(s: string, reading: LocaleReading): TimeReading | null {
  const folded = s.toLowerCase();
  const colon = COLON.exec(folded);
  if (colon) return clock(colon[1]!, colon[2]!, true);
  for (const form of FORMS[reading.language] ?? []) {
    const m = form.shape.exec(folded);
    if (!m) continue;
    if (form.half) return clock(m[1]!, '30', false);
    if (!form.ampm) return clock(m[1]!, m[2] ?? '00', true);
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12) return null;
    // 12am is midnight, 12pm noon; otherwise pm adds 12.
    return clock(String((hour % 12) + (m[3] === 'p' ? 12 : 0)), m[2] ?? '00', false);
  }
  const named = calendarWords(reading).times.get(key(s.replace(/[!.]+$/, '')));
  return named === undefined ? null : clock(named.slice(0, 2), named.slice(3), false);
}

function clock(hour: string, minute: string, literal: boolean): TimeReading | null {
  const [h, m] = [Number(hour), Number(minute)];
  return h <= 23 && m <= 59 ? { hour: h, minute: m, literal } : null;
}
