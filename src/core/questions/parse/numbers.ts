// Reading a typed number: the locale's decimal and group separators, a sign, an optional unit; nothing else.
import { memo } from './cache.js';
import { localeReadings, type LocaleReading } from './locales.js';
import { readable } from './text.js';
import { FORMAT, read, type ParseContext, type Parsed } from './types.js';

/** The canonical form (the HTTP API's, and the only one `strict` reads). */
const CANONICAL = /^-?\d+(?:\.\d+)?$/;
/** More significant digits would not survive a round trip through a JSON number. */
export const MAX_SIGNIFICANT_DIGITS = 15;
const MINUS = /^[-\u2212]/;

/**
 * Reads a number. Strict: only `-?\d+(\.\d+)?`. Otherwise, in each of `ctx.locales` in turn (the
 * first that reads it wins): an optional sign ("-", U+2212 "−" or "+"), digits with the locale's
 * decimal separator, optionally grouped by threes with the locale's group separator or a space
 * (and, in a comma-decimal locale, a dot: "1.000" is 1000 in de/pt-BR/es/fr, while "1.5" and
 * "0.500", which cannot be groups, are decimals), and `unit` (any case) before or after. A group
 * is exactly three digits after a first group of one to three ("1,00" is not a number in en). No
 * exponents, hex, Infinity or NaN; at most 15 significant digits. Always `literal`.
 */
export function parseNumber(text: string, ctx: ParseContext, unit?: string): Parsed<number> {
  if (ctx.strict) {
    const trimmed = text.trim();
    return CANONICAL.test(trimmed) ? fromCanonical(trimmed) : FORMAT;
  }
  const s = readable(text);
  if (s === null) return FORMAT;
  const parts = signAndBody(s, unit);
  if (!parts) return FORMAT;
  for (const reading of localeReadings(ctx.locales)) {
    const canonical = canonicalBody(parts.body, reading);
    if (canonical === null) continue;
    const parsed = fromCanonical(parts.negative ? `-${canonical}` : canonical);
    if (parsed.ok) return parsed;
  }
  return FORMAT;
}

/** The sign and the digits of `s` once `unit` (if any) is taken off either end; null when malformed. */
function signAndBody(s: string, unit: string | undefined): { negative: boolean; body: string } | null {
  const u = unit?.normalize('NFKC').trim().toLowerCase() || undefined;
  let rest = s;
  let sign: string | null = null;
  const takeSign = () => {
    if (sign === null && /^[-\u2212+]/.test(rest)) {
      sign = rest[0]!;
      rest = rest.slice(1);
    }
  };
  takeSign();
  if (u !== undefined && rest.toLowerCase().startsWith(u)) {
    rest = rest.slice(u.length).trimStart();
    takeSign();
  } else if (u !== undefined && rest.toLowerCase().endsWith(u)) {
    rest = rest.slice(0, rest.length - u.length).trimEnd();
  }
  if (!/^[\d.,' ]*\d$/.test(rest)) return null;
  return { negative: sign !== null && MINUS.test(sign), body: rest };
}

interface NumberShapes {
  grouped: RegExp[];
  decimal: RegExp;
}
const shapes = new Map<string, NumberShapes>();

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function shapesOf(reading: LocaleReading): NumberShapes {
  return memo(shapes, reading.tag, () => {
    const d = escape(reading.decimal);
    return {
      grouped: reading.groups.map((g) => new RegExp(`^([1-9]\\d{0,2}(?:${escape(g)}\\d{3})+)(?:${d}(\\d+))?$`)),
      decimal: new RegExp(`^(\\d*)${d}(\\d+)$`),
    };
  });
}

/** `body` (unsigned) in canonical form as `reading` reads it, or null. */
function canonicalBody(body: string, reading: LocaleReading): string | null {
  if (/^\d+$/.test(body)) return body;
  const { grouped, decimal } = shapesOf(reading);
  for (const shape of grouped) {
    const m = shape.exec(body);
    if (m) return m[1]!.replace(/\D/g, '') + (m[2] === undefined ? '' : `.${m[2]}`);
  }
  // The locale's decimal separator, else (in a comma-decimal locale) the canonical dot: a dot that
  // could be a group was read as one above.
  const m = decimal.exec(body) ?? (reading.decimal === '.' ? null : /^(\d*)\.(\d+)$/.exec(body));
  return m ? `${m[1] || '0'}.${m[2]}` : null;
}

/** The number of a canonical numeral, refused past {@link MAX_SIGNIFICANT_DIGITS}; -0 is 0. */
function fromCanonical(numeral: string): Parsed<number> {
  const [int = '', frac = ''] = numeral.replace('-', '').split('.');
  const whole = int.replace(/^0+/, '');
  const digits = whole === '' ? frac.replace(/^0+/, '').replace(/0+$/, '') : whole + frac.replace(/0+$/, '');
  if (digits.length > MAX_SIGNIFICANT_DIGITS) return FORMAT;
  const value = Number(numeral);
  return read(Object.is(value, -0) ? 0 : value, true);
}
