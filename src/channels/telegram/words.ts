import type { User } from 'grammy/types';
import type { Words } from '../../core/i18n/index.js';

/** The person's language as Telegram says it (`from.language_code`, an IETF tag such as "es" or "pt-br"), if any. */
export function localeOf(from: User): { locale?: string } {
  return from.language_code ? { locale: from.language_code } : {};
}

/** A force-reply's placeholder (the input field's hint), in the words the prompt is asked in. */
export interface ForceReply {
  placeholder: string;
}

/** The force-reply of an own-words prompt, in `words`. */
export function forceReplyIn(words: Words): ForceReply {
  return { placeholder: words.t('telegram.answerPlaceholder') };
}
