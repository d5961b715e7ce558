// What each locale brings to reading: its numeric date order and number separators (Intl), and its words' language.
import { memo } from './cache.js';

/** The languages with words (month names, today/tomorrow, connectors): the six askgate ships. */
export type WordLanguage = 'en' | 'pt' | 'es' | 'fr' | 'de' | 'ja';
const WORD_LANGUAGES: readonly string[] = ['en', 'pt', 'es', 'fr', 'de', 'ja'];

/** The fields of a numeric date, in the order a locale writes them. */
export type DateField = 'year' | 'month' | 'day';

/** How one locale reads typed numbers and dates. */
export interface LocaleReading {
  /** Canonical BCP 47 tag. */
  readonly tag: string;
  /** Whose words are read: the tag's language when shipped, else English. */
  readonly language: WordLanguage;
  /** Numeric date order, e.g. month, day, year for en-US. */
  readonly dateOrder: readonly DateField[];
  /** The decimal separator ("." or "," for every shipped locale). */
  readonly decimal: string;
  /** Characters accepted between groups of three digits (never the decimal separator). */
  readonly groups: readonly string[];
}

const readings = new Map<string, LocaleReading | null>();
const EN_FALLBACK = 'en';

/**
 * The readings of `locales` in order, malformed tags skipped and duplicates dropped; English when
 * none is usable (an empty list included).
 */
export function localeReadings(locales: readonly string[]): LocaleReading[] {
  const out: LocaleReading[] = [];
  for (const tag of locales) {
    const reading = memo(readings, tag, () => readingOf(tag));
    if (reading && !out.some((r) => r.tag === reading.tag)) out.push(reading);
  }
  return out.length > 0 ? out : [memo(readings, EN_FALLBACK, () => readingOf(EN_FALLBACK))!];
}

/** The word language of one tag (`pt-PT` reads Portuguese words, `ko` English ones). */
export function wordLanguage(tag: string): WordLanguage {
  try {
    const language = new Intl.Locale(tag).language;
    return WORD_LANGUAGES.includes(language) ? (language as WordLanguage) : 'en';
  } catch {
    return 'en';
  }
}

function readingOf(raw: string): LocaleReading | null {
  let tag: string;
  try {
    const canonical = Intl.getCanonicalLocales(raw)[0];
    if (!canonical) return null;
    tag = canonical;
  } catch {
    return null;
  }
  const numberParts = new Intl.NumberFormat(tag, { numberingSystem: 'latn' }).formatToParts(1234567.5);
  const decimal = numberParts.find((p) => p.type === 'decimal')?.value ?? '.';
  const group = separatorChar(numberParts.find((p) => p.type === 'group')?.value ?? ',');
  // Spaces group digits in every locale (the SI style "1 000 000"); in a comma-decimal locale a dot
  // does too ("1.000" is a thousand there, see numbers.ts for the "1.5" case).
  const groups = [...new Set([group, ' ', ...(decimal === ',' ? ['.'] : [])])].filter((g) => g !== decimal);
  const dateOrder = new Intl.DateTimeFormat(tag, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    calendar: 'gregory',
    numberingSystem: 'latn',
    timeZone: 'UTC',
  })
    .formatToParts(0)
    .map((p) => p.type)
    .filter((t): t is DateField => t === 'year' || t === 'month' || t === 'day');
  return { tag, language: wordLanguage(tag), dateOrder, decimal, groups };
}

/** A separator as it looks after reading normalization: any space is " ", a typographic apostrophe "'". */
function separatorChar(s: string): string {
  if (/^\s$/u.test(s)) return ' ';
  return s.normalize('NFKC').replace(/[\u2018\u2019\u02BC]/g, "'");
}
