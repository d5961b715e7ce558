// What reading a typed answer needs besides the text: whose language, which time zone, when.

/** How a typed reply (or a typed value) is read. */
export interface ParseContext {
  /** BCP 47 tags to read in, most preferred first (the person's language, then the ask's). */
  readonly locales: readonly string[];
  /** IANA time zone of the ask: a date or time without an offset is in it; "today" is today there. */
  readonly timeZone: string;
  /** Now, epoch ms (for "today" and "tomorrow"). */
  readonly now: number;
  /** Only the canonical forms (answers and defaults through the API): no locale forms, no words. */
  readonly strict?: boolean;
}

/**
 * How one person's typed values read: in their language (the platform's tag, region included:
 * en-GB writes the day first), then the ask's (else `defaultLocale`, else English); dates and times
 * in the ask's time zone (UTC when it names none).
 */
export function personContext(
  personLocale: string | undefined,
  ask: { readonly locale?: string; readonly timeZone?: string },
  defaultLocale: string | undefined,
  now: number,
): ParseContext {
  const asked = ask.locale ?? defaultLocale ?? 'en';
  const locales = personLocale && personLocale !== asked ? [personLocale, asked] : [asked];
  return { locales, timeZone: ask.timeZone ?? 'UTC', now };
}

/** The context of values given through the API (answers, `onTimeout.default`): canonical forms only. */
export function strictContext(timeZone: string | undefined, now: number): ParseContext {
  return { locales: ['en'], timeZone: timeZone ?? 'UTC', now, strict: true };
}
