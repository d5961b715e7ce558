import type { FormOpening, InboundOutcome } from './channel-ports.js';
import { decisionProblem } from './approval/decide.js';
import { decisionWord } from './approval/decisions.js';
import type { AskEvent } from './ask-events.js';
import { FALLBACK_LOCALE, wordsFor, type Words } from './i18n/index.js';
import type { AskRecord } from './schemas.js';
import { agreeOf } from './policy.js';

/** Marks the language an outcome is in when it is not English (see {@link InboundOutcome}); `ignored` stays bare. */
export function spoken<T extends InboundOutcome | FormOpening>(outcome: T, words: Words): T {
  return outcome.kind === 'ignored' || words.locale === FALLBACK_LOCALE
    ? outcome
    : { ...outcome, locale: words.locale };
}

/**
 * The words of an outcome's language, for what a channel adds beside it (its own-words prompt, a
 * failure notice): a channel reads its own words in their `.locale`.
 */
export function outcomeWords(outcome: InboundOutcome | FormOpening): Words {
  return wordsFor(outcome.locale ?? FALLBACK_LOCALE);
}

/**
 * What a person reads when the lifecycle refused their answer or skip as `invalid` (the API gets
 * the transition's own issues instead): a skip of an ask that needs several matching answers, else
 * an answer that does not fit the question (the channels check answers first, so that one is rare).
 */
export function invalidNotice(record: AskRecord, event: AskEvent | { type: 'answer' | 'skip' }, words: Words): string {
  if (event.type === 'skip') return words.t('notice.skipRefused', { count: agreeOf(record) });
  if (event.type === 'decide') {
    const problem = decisionProblem(record, event);
    if (problem?.path[0] === 'reason')
      return words.t('approval.needReason', { word: decisionWord(event.decision, words) });
    if (problem?.message.startsWith('you requested')) return words.t('approval.ownRequest');
  }
  return words.t('notice.answerInvalid');
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
