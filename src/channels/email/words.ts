// Email's own words in every shipped locale (the link lines, the reply-only line);
// askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/channel-registry.test.ts). */
const EN = {
  options: 'Choose an option (a page opens where you confirm it):',
  page: 'Answer on the page:',
  pageLink: 'Open the answer page',
  replyOnly: 'Answer by replying to this email.',
} as const;

/** Email's words, by shipped locale. */
export const EMAIL_WORDS: ChannelWords<keyof typeof EN> = {
  en: EN,
  'pt-BR': {
    options: 'Escolha uma opção (abre uma página onde você confirma):',
    page: 'Responda na página:',
    pageLink: 'Abrir a página de resposta',
    replyOnly: 'Responda respondendo a este e-mail.',
  },
  es: {
    options: 'Elige una opción (se abre una página donde la confirmas):',
    page: 'Responde en la página:',
    pageLink: 'Abrir la página de respuesta',
    replyOnly: 'Responde contestando a este correo.',
  },
  fr: {
    options: 'Choisissez une option (une page s’ouvre pour la confirmer) :',
    page: 'Répondez sur la page :',
    pageLink: 'Ouvrir la page de réponse',
    replyOnly: 'Répondez en répondant à cet e-mail.',
  },
  de: {
    options: 'Wählen Sie eine Option (eine Seite öffnet sich zum Bestätigen):',
    page: 'Auf der Seite antworten:',
    pageLink: 'Antwortseite öffnen',
    replyOnly: 'Antworten Sie, indem Sie auf diese E-Mail antworten.',
  },
  ja: {
    options: '選択肢を選んでください（確認するページが開きます）:',
    page: 'ページで回答:',
    pageLink: '回答ページを開く',
    replyOnly: 'このメールに返信して回答してください。',
  },
};

/** Email's word `key` in the shipped locale `locale` resolves to (English when none). */
export const emailText = wordsReader(EMAIL_WORDS);
