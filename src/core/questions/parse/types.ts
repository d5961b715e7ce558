// The shapes every parser of a typed reply shares (kept apart from index.ts so the parsers import no barrel).

/** How a typed reply is read. */
export interface ParseContext {
  /**
   * BCP 47 tags to read in, most preferred first (the person's language, then the ask's). Region
   * matters for numeric date order (en-US / en month first; en-GB, pt-BR, es, fr, de day first; ja
   * year first), derived from `Intl.DateTimeFormat(tag).formatToParts`. Words (month names,
   * today/tomorrow) exist for the six shipped languages en, pt, es, fr, de, ja (any tag of one of
   * those languages); other tags use English words. Malformed tags are skipped; an empty list reads
   * as `en`.
   */
  readonly locales: readonly string[];
  /** IANA time zone of the ask: a date or time without an offset is in it; "today" is today there. */
  readonly timeZone: string;
  /** Now, epoch ms (for today/tomorrow). */
  readonly now: number;
  /** Only the canonical forms (the HTTP API's answers): no locale forms, no words. Default false. */
  readonly strict?: boolean;
}

/**
 * A reading: the normalized value and whether the text was literal (digits and separators only: no
 * relative word, no month name, no am/pm or noon word, nothing inferred such as a missing year), or
 * why not. `nonexistent` is a local date-time inside a daylight-saving gap of the time zone; every
 * other failure (including an impossible calendar date like 30/02) is `format`.
 */
export type Parsed<T> = { ok: true; value: T; literal: boolean } | { ok: false; reason: 'format' | 'nonexistent' };

/** The failure every parser returns for text it cannot read. */
export const FORMAT: { ok: false; reason: 'format' } = { ok: false, reason: 'format' };

/** A successful reading. */
export function read<T>(value: T, literal: boolean): Parsed<T> {
  return { ok: true, value, literal };
}
