/**
 * A message with plural forms, chosen by the `count` parameter through `Intl.PluralRules` of the
 * locale: every category the locale's rules name must be present (the catalogue test checks it).
 */
export type Plural = Readonly<Partial<Record<Intl.LDMLPluralRule, string>>> & { readonly other: string };

/** One catalogue entry: a template with `{name}` placeholders, or plural forms of one. */
export type Message = string | Plural;

/** What a locale file holds besides its messages: its name and the words a typed reply may use. */
export interface LocaleInfo {
  /** The BCP 47 tag of the catalogue (canonical form). */
  readonly tag: string;
  /** The language's own name, for a language switch ("Deutsch"). */
  readonly name: string;
  /** Typed replies that skip the ask, lower case, besides English "skip" (e.g. "pular"). */
  readonly skipWords: readonly string[];
}
