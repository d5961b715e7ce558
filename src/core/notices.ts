import type { FormOpening, InboundOutcome } from './ports.js';
import { FALLBACK_LOCALE, type Words } from './i18n/index.js';

/** Marks the language an outcome is in when it is not English (see {@link InboundOutcome}); `ignored` stays bare. */
export function spoken<T extends InboundOutcome | FormOpening>(outcome: T, words: Words): T {
  return outcome.kind === 'ignored' || words.locale === FALLBACK_LOCALE
    ? outcome
    : { ...outcome, locale: words.locale };
}

/**
 * The text to show a person for an outcome, or null to stay silent. `ownWordsPrompt` replaces the
 * core's prompt after an "Other" tap, for platforms that phrase it their own way.
 */
export function outcomeNotice(outcome: InboundOutcome, ownWordsPrompt?: string): string | null {
  switch (outcome.kind) {
    case 'ignored':
      return null;
    case 'need_text':
      return ownWordsPrompt ?? outcome.prompt;
    case 'partial':
      return outcome.prompt;
    case 'invalid':
      return outcome.hint;
    default:
      return outcome.summary;
  }
}
