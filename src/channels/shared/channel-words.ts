// A channel's own words (what only it says) live in its folder; askgate's shared words are in core/i18n.
import { chooseLocale, fill, type Params } from '../../core/i18n/index.js';

/** A channel's own words by shipped locale: English and every other shipped locale, each with the same keys. */
export type ChannelWords<K extends string = string> = { readonly en: Readonly<Record<K, string>> } & {
  readonly [locale: string]: Readonly<Record<K, string>>;
};

/** Reads a channel's words: the message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export function wordsReader<K extends string>(
  words: ChannelWords<K>,
): (locale: string | null | undefined, key: K, params?: Params) => string {
  return (locale, key, params) => fill((words[chooseLocale(locale)] ?? words.en)[key], params);
}
