// askgate's own words in every shipped locale: choosing a locale, filling a message, times in a time zone.
import { en, type MessageKey, type Messages } from './en.js';
import { ptBR } from './pt-BR.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { de } from './de.js';
import { ja } from './ja.js';
import type { LocaleInfo } from './types.js';
import { canonicalLocale, isTimeZone, memo } from '../locale-tags.js';

export type { MessageKey, Messages } from './en.js';
export type { LocaleInfo, Message, Plural } from './types.js';
export { canonicalLocale, isTimeZone } from '../locale-tags.js';

/** A shipped locale: its tag, name, typed skip words and messages. */
export type LocaleFile = LocaleInfo & { readonly messages: Messages };

/** Every shipped locale, by tag; English first (the reference and the last fallback). */
export const LOCALES: ReadonlyMap<string, LocaleFile> = new Map([en, ptBR, es, fr, de, ja].map((l) => [l.tag, l]));

/** The locale used when nothing else is known. */
export const FALLBACK_LOCALE = 'en';

/** Values of a message's placeholders. */
export type Params = Readonly<Record<string, string | number>>;

/**
 * The shipped locale for a tag, or null: the exact tag, else the first shipped locale of the same
 * language (`pt-PT` -> `pt-BR`, `de-AT` -> `de`, `es-419` -> `es`).
 */
export function shippedLocale(tag: string | undefined | null): string | null {
  if (!tag) return null;
  return memo(shipped, tag, () => lookUp(tag));
}

const shipped = new Map<string, string | null>();

function lookUp(tag: string): string | null {
  const canonical = canonicalLocale(tag);
  if (!canonical) return null;
  if (LOCALES.has(canonical)) return canonical;
  const language = canonical.split('-')[0]!.toLowerCase();
  for (const shipped of LOCALES.keys()) if (shipped.split('-')[0] === language) return shipped;
  return null;
}

/** The first of `tags` that a shipped locale serves (see {@link shippedLocale}), else English. */
export function chooseLocale(...tags: readonly (string | undefined | null)[]): string {
  for (const tag of tags) {
    const shipped = shippedLocale(tag);
    if (shipped) return shipped;
  }
  return FALLBACK_LOCALE;
}

function fileOf(locale: string): LocaleFile {
  return LOCALES.get(locale) ?? LOCALES.get(shippedLocale(locale) ?? FALLBACK_LOCALE) ?? en;
}

const pluralRules = new Map<string, Intl.PluralRules>();
function pluralOf(locale: string, count: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(locale);
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(locale)));
  return rules.select(count);
}

/**
 * Fills `{name}` placeholders in one pass: a value that itself holds `{x}` is never read again.
 * A placeholder without a value is left as written.
 */
export function fill(template: string, params: Params = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** The message `key` in `locale` (a shipped tag or any tag {@link shippedLocale} resolves), filled with `params`. */
export function translate(locale: string, key: MessageKey, params: Params = {}): string {
  const file = fileOf(locale);
  const message = file.messages[key];
  if (typeof message === 'string') return fill(message, params);
  const count = typeof params.count === 'number' ? params.count : Number(params.count ?? 0);
  return fill(message[pluralOf(file.tag, count)] ?? message.other, params);
}

/** The words typed replies in `locale` may use to skip: English "skip" always, plus the locale's own. */
export function skipWords(locale: string): readonly string[] {
  return [...new Set(['skip', ...fileOf(locale).skipWords])];
}

/**
 * askgate's words for one audience: a shipped locale and the time zone times are shown in. Views
 * take one; {@link wordsFor} builds it.
 */
export interface Words {
  /** The shipped locale (`en`, `pt-BR`, ...). */
  readonly locale: string;
  /** IANA time zone for times shown (`UTC` by default). */
  readonly timeZone: string;
  /** The message `key`, filled. */
  t(key: MessageKey, params?: Params): string;
  /** "14:02 UTC" (English in UTC) or the locale's short time with its zone, in {@link timeZone}; null when `iso` does not parse. */
  time(iso: string): string | null;
  /** The day of `iso` in {@link timeZone}: "2026-12-05" in English, the locale's medium date otherwise. */
  day(iso: string): string | null;
  /** "a, b and c" with the locale's separators. */
  list(items: readonly string[]): string;
  /** How the chat channels are named ("Slack"), by channel name: data from the shell (the channel registry); none by default. */
  readonly channelNames: ChannelNames;
}

/** Display names of chat channels by channel name (`slack` -> "Slack"). */
export type ChannelNames = ReadonlyMap<string, string>;

const NO_CHANNEL_NAMES: ChannelNames = new Map();

const formats = new Map<string, Intl.DateTimeFormat>();
function format(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify([locale, options]);
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.DateTimeFormat(locale, options)));
  return f;
}

/** The time of `ms` as "HH:MM <zone>" (24 hours) in the locale's digits and zone name. */
function timeOf(locale: string, timeZone: string, ms: number): string {
  const parts = format(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
    timeZoneName: 'short',
  })
    .formatToParts(ms)
    .map((p) => p.value);
  return parts.join('');
}

function dayOf(locale: string, timeZone: string, ms: number): string {
  if (locale !== FALLBACK_LOCALE) return format(locale, { dateStyle: 'medium', timeZone }).format(ms);
  const part = (type: string) =>
    format('en', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone })
      .formatToParts(ms)
      .find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The words made so far, per set of channel names (one set per process: the registry's). */
const shelves = new WeakMap<ChannelNames, Map<string, Words>>();

/**
 * askgate's words in `locale` (resolved with {@link chooseLocale}; English when unknown), times in
 * `timeZone` (UTC when absent or unknown), chat channels named by `channelNames`.
 */
export function wordsFor(
  locale?: string | null,
  timeZone?: string | null,
  channelNames: ChannelNames = NO_CHANNEL_NAMES,
): Words {
  const tag = chooseLocale(locale);
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : 'UTC';
  let shelf = shelves.get(channelNames);
  if (!shelf) shelves.set(channelNames, (shelf = new Map()));
  return memo(shelf, `${tag} ${zone}`, () => makeWords(tag, zone, channelNames));
}

function makeWords(tag: string, zone: string, channelNames: ChannelNames): Words {
  const parse = (iso: string) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? null : ms;
  };
  return {
    locale: tag,
    timeZone: zone,
    channelNames,
    t: (key, params) => translate(tag, key, params),
    time: (iso) => {
      const ms = parse(iso);
      return ms === null ? null : timeOf(tag, zone, ms);
    },
    day: (iso) => {
      const ms = parse(iso);
      return ms === null ? null : dayOf(tag, zone, ms);
    },
    list: (items) =>
      items.length <= 1
        ? items.join('')
        : `${items.slice(0, -1).join(translate(tag, 'list.separator'))}${translate(tag, 'list.and')}${items[items.length - 1]}`,
  };
}

/**
 * The words of an ask: its locale when askgate ships it (else `fallback`, the default locale, else
 * English) and its time zone. A well-formed locale that is not shipped (`ko`) reads `fallback`.
 */
export function wordsOf(
  record: { readonly locale?: string | undefined; readonly timeZone?: string | undefined },
  fallback?: string,
  channelNames?: ChannelNames,
): Words {
  return wordsFor(chooseLocale(record.locale, fallback), record.timeZone, channelNames);
}

/** English in UTC: what every view shows when no locale is given. */
export const ENGLISH: Words = wordsFor(FALLBACK_LOCALE, 'UTC');
