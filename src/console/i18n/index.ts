// The web console's own words in every shipped locale; core/i18n's LOCALES names the locales.
import { LOCALES } from '../../core/i18n/index.js';
import { CONSOLE_EN, type ConsoleMessages } from './en.js';
import { CONSOLE_PTBR } from './pt-BR.js';
import { CONSOLE_ES } from './es.js';
import { CONSOLE_FR } from './fr.js';
import { CONSOLE_DE } from './de.js';
import { CONSOLE_JA } from './ja.js';

export type { ConsoleKey, ConsoleMessages } from './en.js';

/** The web console's own words, by shipped locale (the same tags as core/i18n's `LOCALES`). */
export const CONSOLE_LOCALES: ReadonlyMap<string, ConsoleMessages> = new Map<string, ConsoleMessages>([
  ['en', CONSOLE_EN],
  ['pt-BR', CONSOLE_PTBR],
  ['es', CONSOLE_ES],
  ['fr', CONSOLE_FR],
  ['de', CONSOLE_DE],
  ['ja', CONSOLE_JA],
]);

/** What the console's browser script gets: every shipped locale's name and console words. */
export function consoleCatalogue(): { names: Record<string, string>; messages: Record<string, ConsoleMessages> } {
  return {
    names: Object.fromEntries([...LOCALES].map(([tag, file]) => [tag, file.name])),
    messages: Object.fromEntries(CONSOLE_LOCALES),
  };
}
