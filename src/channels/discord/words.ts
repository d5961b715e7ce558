// Discord's own words in every shipped locale (the notices of a reply it cannot read and of a failure); askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/channel-registry.test.ts). */
const EN = {
  unreadable:
    'I could not read that reply: use the buttons on the question, or mention me in your reply (@ the bot) with your answer.',
  failed: 'Something went wrong while recording that; please try again in a moment.',
} as const;

/** Discord's words, by shipped locale. */
export const DISCORD_WORDS: ChannelWords<keyof typeof EN> = {
  en: EN,
  'pt-BR': {
    unreadable:
      'Não consegui ler essa resposta: use os botões da pergunta ou me mencione na sua resposta (@ o bot) com sua resposta.',
    failed: 'Algo deu errado ao registrar isso; tente novamente em instantes.',
  },
  es: {
    unreadable:
      'No pude leer esa respuesta: usa los botones de la pregunta o mencióname en tu respuesta (@ el bot) con tu respuesta.',
    failed: 'Algo salió mal al registrar eso; inténtalo de nuevo en un momento.',
  },
  fr: {
    unreadable:
      'Je n’ai pas pu lire cette réponse : utilisez les boutons de la question, ou mentionnez-moi dans votre réponse (@ le bot) avec votre réponse.',
    failed: 'Un problème est survenu pendant l’enregistrement ; réessayez dans un instant.',
  },
  de: {
    unreadable:
      'Ich konnte diese Antwort nicht lesen: nutze die Schaltflächen der Frage oder erwähne mich in deiner Antwort (@ der Bot) mit deiner Antwort.',
    failed: 'Beim Speichern ist etwas schiefgegangen; bitte versuche es gleich noch einmal.',
  },
  ja: {
    unreadable:
      'その返信を読み取れませんでした。質問のボタンを使うか、返信で私にメンション（@ボット）して回答してください。',
    failed: '記録中に問題が発生しました。少ししてからもう一度お試しください。',
  },
};

/** Discord's message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export const discordText = wordsReader(DISCORD_WORDS);
