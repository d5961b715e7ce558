// Slack's own words in every shipped locale (the thread and modal notices, the "Other" button); askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/channel-registry.test.ts). */
const EN = {
  notOpened: 'The form could not open. Tap the button again.',
  ownNotOpened: 'The form could not open. Tap Other… again, or reply in this thread with your own words.',
  noForm: 'This question does not fit in a Slack form: reply in this thread with your answer.',
  forged: 'This form is not valid any more. Close it and tap Answer again.',
  lateInvalid: 'Your answer was not recorded:',
  otherPrompt: 'Reply in this thread with your answer in your own words.',
  failed: 'askgate could not record this right now. Please try again.',
  replyInThread: 'Reply in this thread. {instructions}',
  reasonLabel: 'Why?',
  changesLabel: 'What should change?',
  argumentsLabel: 'Arguments (JSON)',
  reasonEmpty: 'Say why in a few words.',
  notJson: 'This is not valid JSON: check the quotes, commas and brackets.',
} as const;

/** Slack's words, by shipped locale. */
export const SLACK_WORDS: ChannelWords<keyof typeof EN> = {
  en: EN,
  'pt-BR': {
    notOpened: 'O formulário não abriu. Toque no botão novamente.',
    ownNotOpened: 'O formulário não abriu. Toque em Outra… de novo ou responda neste fio com suas palavras.',
    noForm: 'Esta pergunta não cabe em um formulário do Slack: responda neste fio com sua resposta.',
    forged: 'Este formulário não é mais válido. Feche-o e toque em Responder de novo.',
    lateInvalid: 'Sua resposta não foi registrada:',
    otherPrompt: 'Responda neste fio com sua resposta em suas palavras.',
    failed: 'O askgate não conseguiu registrar isso agora. Tente novamente.',
    replyInThread: 'Responda neste fio. {instructions}',
    reasonLabel: 'Por quê?',
    changesLabel: 'O que deve mudar?',
    argumentsLabel: 'Argumentos (JSON)',
    reasonEmpty: 'Diga o motivo em poucas palavras.',
    notJson: 'Isto não é JSON válido: confira as aspas, vírgulas e colchetes.',
  },
  es: {
    notOpened: 'El formulario no se pudo abrir. Toca el botón de nuevo.',
    ownNotOpened: 'El formulario no se pudo abrir. Toca Otra… de nuevo o responde en este hilo con tus palabras.',
    noForm: 'Esta pregunta no cabe en un formulario de Slack: responde en este hilo con tu respuesta.',
    forged: 'Este formulario ya no es válido. Ciérralo y toca Responder de nuevo.',
    lateInvalid: 'Tu respuesta no quedó registrada:',
    otherPrompt: 'Responde en este hilo con tu respuesta en tus palabras.',
    failed: 'askgate no pudo registrar esto ahora. Inténtalo de nuevo.',
    replyInThread: 'Responde en este hilo. {instructions}',
    reasonLabel: '¿Por qué?',
    changesLabel: '¿Qué debería cambiar?',
    argumentsLabel: 'Argumentos (JSON)',
    reasonEmpty: 'Di el motivo en pocas palabras.',
    notJson: 'Esto no es JSON válido: revisa las comillas, las comas y los corchetes.',
  },
  fr: {
    notOpened: 'Le formulaire n’a pas pu s’ouvrir. Touchez à nouveau le bouton.',
    ownNotOpened: 'Le formulaire n’a pas pu s’ouvrir. Touchez à nouveau Autre…, ou répondez dans ce fil avec vos mots.',
    noForm: 'Cette question ne tient pas dans un formulaire Slack : répondez dans ce fil avec votre réponse.',
    forged: 'Ce formulaire n’est plus valide. Fermez-le et touchez à nouveau Répondre.',
    lateInvalid: 'Votre réponse n’a pas été enregistrée :',
    otherPrompt: 'Répondez dans ce fil avec votre réponse, dans vos propres mots.',
    failed: 'askgate n’a pas pu enregistrer cela pour le moment. Réessayez.',
    replyInThread: 'Répondez dans ce fil. {instructions}',
    reasonLabel: 'Pourquoi ?',
    changesLabel: 'Que faut-il changer ?',
    argumentsLabel: 'Arguments (JSON)',
    reasonEmpty: 'Dites pourquoi en quelques mots.',
    notJson: 'Ce n’est pas du JSON valide : vérifiez les guillemets, les virgules et les crochets.',
  },
  de: {
    notOpened: 'Das Formular ließ sich nicht öffnen. Tippe noch einmal auf die Schaltfläche.',
    ownNotOpened:
      'Das Formular ließ sich nicht öffnen. Tippe noch einmal auf Andere… oder antworte in diesem Thread mit eigenen Worten.',
    noForm: 'Diese Frage passt nicht in ein Slack-Formular: antworte in diesem Thread mit deiner Antwort.',
    forged: 'Dieses Formular ist nicht mehr gültig. Schließe es und tippe noch einmal auf Antworten.',
    lateInvalid: 'Deine Antwort wurde nicht gespeichert:',
    otherPrompt: 'Antworte in diesem Thread mit deiner Antwort in eigenen Worten.',
    failed: 'askgate konnte das gerade nicht speichern. Bitte versuche es noch einmal.',
    replyInThread: 'Antworte in diesem Thread. {instructions}',
    reasonLabel: 'Warum?',
    changesLabel: 'Was soll sich ändern?',
    argumentsLabel: 'Argumente (JSON)',
    reasonEmpty: 'Sag in ein paar Worten, warum.',
    notJson: 'Das ist kein gültiges JSON: prüfe Anführungszeichen, Kommas und Klammern.',
  },
  ja: {
    notOpened: 'フォームを開けませんでした。もう一度ボタンをタップしてください。',
    ownNotOpened:
      'フォームを開けませんでした。もう一度「その他…」をタップするか、このスレッドで自分の言葉で返信してください。',
    noForm: 'この質問はSlackのフォームに収まりません。このスレッドで回答を返信してください。',
    forged: 'このフォームはもう無効です。閉じてからもう一度「回答」をタップしてください。',
    lateInvalid: '回答は記録されませんでした:',
    otherPrompt: 'このスレッドで、自分の言葉で回答を返信してください。',
    failed: 'askgate は今これを記録できませんでした。もう一度お試しください。',
    replyInThread: 'このスレッドで返信してください。{instructions}',
    reasonLabel: '理由は?',
    changesLabel: '何を変更すべきですか?',
    argumentsLabel: '引数 (JSON)',
    reasonEmpty: '理由を短く書いてください。',
    notJson: '有効な JSON ではありません。引用符、カンマ、括弧を確認してください。',
  },
};

/** Slack's message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export const slackText = wordsReader(SLACK_WORDS);
