// Discord's own words in every shipped locale (the notices of a reply it cannot read and of a failure, the fields of an approval's modals); askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/channel-registry.test.ts). */
const EN = {
  unreadable:
    'I could not read that reply: use the buttons on the question, or mention me in your reply (@ the bot) with your answer.',
  failed: 'Something went wrong while recording that; please try again in a moment.',
  reason: 'Why?',
  changes: 'What should change?',
  argumentsJson: 'The arguments, as JSON',
  notJson: 'The arguments must be a JSON object, like {"to": "cfo@example.com"}.',
  noReason: 'Say why: the reason cannot be empty.',
  tapAgain: 'Tap {label} to try again.',
} as const;

/** Discord's words, by shipped locale. */
export const DISCORD_WORDS: ChannelWords<keyof typeof EN> = {
  en: EN,
  'pt-BR': {
    unreadable:
      'Não consegui ler essa resposta: use os botões da pergunta ou me mencione na sua resposta (@ o bot) com sua resposta.',
    failed: 'Algo deu errado ao registrar isso; tente novamente em instantes.',
    reason: 'Por quê?',
    changes: 'O que deve mudar?',
    argumentsJson: 'Os argumentos, em JSON',
    notJson: 'Os argumentos devem ser um objeto JSON, como {"to": "cfo@example.com"}.',
    noReason: 'Diga por quê: o motivo não pode ficar vazio.',
    tapAgain: 'Toque em {label} para tentar de novo.',
  },
  es: {
    unreadable:
      'No pude leer esa respuesta: usa los botones de la pregunta o mencióname en tu respuesta (@ el bot) con tu respuesta.',
    failed: 'Algo salió mal al registrar eso; inténtalo de nuevo en un momento.',
    reason: '¿Por qué?',
    changes: '¿Qué debería cambiar?',
    argumentsJson: 'Los argumentos, en JSON',
    notJson: 'Los argumentos deben ser un objeto JSON, como {"to": "cfo@example.com"}.',
    noReason: 'Di por qué: el motivo no puede quedar vacío.',
    tapAgain: 'Toca {label} para intentarlo de nuevo.',
  },
  fr: {
    unreadable:
      'Je n’ai pas pu lire cette réponse : utilisez les boutons de la question, ou mentionnez-moi dans votre réponse (@ le bot) avec votre réponse.',
    failed: 'Un problème est survenu pendant l’enregistrement ; réessayez dans un instant.',
    reason: 'Pourquoi ?',
    changes: 'Que faut-il changer ?',
    argumentsJson: 'Les arguments, en JSON',
    notJson: 'Les arguments doivent être un objet JSON, comme {"to": "cfo@example.com"}.',
    noReason: 'Dites pourquoi : la raison ne peut pas être vide.',
    tapAgain: 'Touchez {label} pour réessayer.',
  },
  de: {
    unreadable:
      'Ich konnte diese Antwort nicht lesen: nutze die Schaltflächen der Frage oder erwähne mich in deiner Antwort (@ der Bot) mit deiner Antwort.',
    failed: 'Beim Speichern ist etwas schiefgegangen; bitte versuche es gleich noch einmal.',
    reason: 'Warum?',
    changes: 'Was soll sich ändern?',
    argumentsJson: 'Die Argumente als JSON',
    notJson: 'Die Argumente müssen ein JSON-Objekt sein, etwa {"to": "cfo@example.com"}.',
    noReason: 'Sag, warum: die Begründung darf nicht leer sein.',
    tapAgain: 'Tippe auf {label}, um es erneut zu versuchen.',
  },
  ja: {
    unreadable:
      'その返信を読み取れませんでした。質問のボタンを使うか、返信で私にメンション（@ボット）して回答してください。',
    failed: '記録中に問題が発生しました。少ししてからもう一度お試しください。',
    reason: '理由',
    changes: '何を変更すべきですか？',
    argumentsJson: '引数（JSON）',
    notJson: '引数は {"to": "cfo@example.com"} のような JSON オブジェクトにしてください。',
    noReason: '理由を入力してください（空欄にはできません）。',
    tapAgain: '{label} をタップしてもう一度お試しください。',
  },
};

/** Discord's message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export const discordText = wordsReader(DISCORD_WORDS);
