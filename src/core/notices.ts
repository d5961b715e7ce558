import type { InboundOutcome } from './ports.js';

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
