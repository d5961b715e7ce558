// Telegram's own words in every shipped locale (its own-words prompt and placeholder, failure notices, the draft tap hint); askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';
import type { Words } from '../../core/i18n/index.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/i18n-catalogues.test.ts). */
const EN = {
  ownWordsPrompt: 'Reply with your answer in your own words',
  answerPlaceholder: 'Your answer',
  failedTap: 'Sorry, that could not be recorded right now. Please tap again.',
  failedText: 'Sorry, your answer could not be recorded right now. Please send it again.',
  tapHint: 'Tap to answer, or reply to this message.',
  pickSeveral: '(pick one or more)',
  reasonPrompt: 'Reply to this message with why.',
  changesPrompt: 'Reply to this message with the changes you want.',
  editPrompt: 'Reply to this message with the arguments to run: JSON, or one "key: value" line per argument.',
  editUnread: 'That could not be read as JSON or as "key: value" lines.',
} as const;

/** A key of Telegram's own words. */
export type TelegramWordKey = keyof typeof EN;

/** Telegram's words, by shipped locale. */
export const TELEGRAM_WORDS: ChannelWords<TelegramWordKey> = {
  en: EN,
  'pt-BR': {
    ownWordsPrompt: 'Responda com sua resposta em suas palavras',
    answerPlaceholder: 'Sua resposta',
    failedTap: 'Desculpe, não foi possível registrar isso agora. Toque novamente.',
    failedText: 'Desculpe, não foi possível registrar sua resposta agora. Envie-a novamente.',
    tapHint: 'Toque para responder ou responda a esta mensagem.',
    pickSeveral: '(escolha uma ou mais)',
    reasonPrompt: 'Responda a esta mensagem dizendo por quê.',
    changesPrompt: 'Responda a esta mensagem com as mudanças que você quer.',
    editPrompt:
      'Responda a esta mensagem com os argumentos a executar: JSON, ou uma linha "chave: valor" por argumento.',
    editUnread: 'Não foi possível ler isso como JSON nem como linhas "chave: valor".',
  },
  es: {
    ownWordsPrompt: 'Responde con tu respuesta en tus palabras',
    answerPlaceholder: 'Tu respuesta',
    failedTap: 'Lo siento, no se pudo registrar ahora. Toca de nuevo.',
    failedText: 'Lo siento, no se pudo registrar tu respuesta ahora. Envíala de nuevo.',
    tapHint: 'Toca para responder o responde a este mensaje.',
    pickSeveral: '(elige una o más)',
    reasonPrompt: 'Responde a este mensaje diciendo por qué.',
    changesPrompt: 'Responde a este mensaje con los cambios que quieres.',
    editPrompt:
      'Responde a este mensaje con los argumentos a ejecutar: JSON, o una línea "clave: valor" por argumento.',
    editUnread: 'No se pudo leer como JSON ni como líneas "clave: valor".',
  },
  fr: {
    ownWordsPrompt: 'Répondez avec votre réponse, dans vos propres mots',
    answerPlaceholder: 'Votre réponse',
    failedTap: 'Désolé, impossible d’enregistrer cela pour le moment. Touchez à nouveau.',
    failedText: 'Désolé, impossible d’enregistrer votre réponse pour le moment. Renvoyez-la.',
    tapHint: 'Touchez pour répondre, ou répondez à ce message.',
    pickSeveral: '(une ou plusieurs)',
    reasonPrompt: 'Répondez à ce message en disant pourquoi.',
    changesPrompt: 'Répondez à ce message avec les changements souhaités.',
    editPrompt:
      'Répondez à ce message avec les arguments à exécuter : du JSON, ou une ligne « clé: valeur » par argument.',
    editUnread: 'Impossible de lire cela comme du JSON ou des lignes « clé: valeur ».',
  },
  de: {
    ownWordsPrompt: 'Antworte mit deiner Antwort in eigenen Worten',
    answerPlaceholder: 'Deine Antwort',
    failedTap: 'Das konnte gerade nicht gespeichert werden. Bitte tippe noch einmal.',
    failedText: 'Deine Antwort konnte gerade nicht gespeichert werden. Bitte sende sie noch einmal.',
    tapHint: 'Tippe zum Antworten oder antworte auf diese Nachricht.',
    pickSeveral: '(eine oder mehrere)',
    reasonPrompt: 'Antworte auf diese Nachricht mit dem Grund.',
    changesPrompt: 'Antworte auf diese Nachricht mit den gewünschten Änderungen.',
    editPrompt:
      'Antworte auf diese Nachricht mit den auszuführenden Argumenten: JSON oder eine Zeile „Schlüssel: Wert“ pro Argument.',
    editUnread: 'Das ließ sich weder als JSON noch als Zeilen „Schlüssel: Wert“ lesen.',
  },
  ja: {
    ownWordsPrompt: '自分の言葉で回答を返信してください',
    answerPlaceholder: 'あなたの回答',
    failedTap: '申し訳ありません。今は記録できませんでした。もう一度タップしてください。',
    failedText: '申し訳ありません。今は回答を記録できませんでした。もう一度送ってください。',
    tapHint: 'タップして回答するか、このメッセージに返信してください。',
    pickSeveral: '（複数選択可）',
    reasonPrompt: 'このメッセージに理由を返信してください。',
    changesPrompt: 'このメッセージに希望する修正を返信してください。',
    editPrompt: 'このメッセージに実行する引数を返信してください: JSON、または引数ごとに「キー: 値」の行。',
    editUnread: 'JSON としても「キー: 値」の行としても読み取れませんでした。',
  },
};

/** Telegram's message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export const telegramText = wordsReader(TELEGRAM_WORDS);

/** The person's language as Telegram says it (`from.language_code`, an IETF tag such as "es" or "pt-br"), if any. */
export function localeOf(from: { language_code?: string }): { locale?: string } {
  return from.language_code ? { locale: from.language_code } : {};
}

/** A force-reply's placeholder (the input field's hint), in the words the prompt is asked in. */
export interface ForceReply {
  placeholder: string;
}

/** The force-reply of an own-words prompt, in the language of `words`. */
export function forceReplyIn(words: Words): ForceReply {
  return { placeholder: telegramText(words.locale, 'answerPlaceholder') };
}
