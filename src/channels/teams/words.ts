// Teams' own words in every shipped locale (what only its cards say); askgate's shared words are in core/i18n.
import { wordsReader, type ChannelWords } from '../shared/channel-words.js';

/** English, the reference: every other locale has exactly its keys and placeholders (test/unit/channel-registry.test.ts). */
const EN = {
  formHint: 'Fill in the card and press {submit}.',
  shortened: '(shortened: see the answer page)',
  shortenedNoLink: '(shortened to fit in Teams)',
  editOnPage: 'The arguments are too long to edit on this card: edit them on the answer page.',
  reasonLabel: 'Why?',
  changesLabel: 'What should change?',
  argumentsLabel: 'Arguments (JSON)',
  reasonEmpty: 'Say why in a few words.',
  notJson: 'This is not valid JSON: check the quotes, commas and brackets. Nothing has been done yet.',
  actionFact: 'Action',
  hashFact: 'Hash',
  recording: 'Your answer is being recorded…',
  notRecorded: 'askgate could not record this: try again.',
} as const;

/** The key of one of Teams' own words. */
export type TeamsWordKey = keyof typeof EN;

/** Teams' words, by shipped locale. */
export const TEAMS_WORDS: ChannelWords<TeamsWordKey> = {
  en: EN,
  'pt-BR': {
    formHint: 'Preencha o cartão e toque em {submit}.',
    shortened: '(resumido: veja a página de resposta)',
    shortenedNoLink: '(resumido para caber no Teams)',
    editOnPage: 'Os argumentos são longos demais para editar neste cartão: edite-os na página de resposta.',
    reasonLabel: 'Por quê?',
    changesLabel: 'O que deve mudar?',
    argumentsLabel: 'Argumentos (JSON)',
    reasonEmpty: 'Diga o motivo em poucas palavras.',
    notJson: 'Isto não é JSON válido: confira as aspas, vírgulas e colchetes. Nada foi feito ainda.',
    actionFact: 'Ação',
    hashFact: 'Hash',
    recording: 'Sua resposta está sendo registrada…',
    notRecorded: 'O askgate não conseguiu registrar isto: tente de novo.',
  },
  es: {
    formHint: 'Completa la tarjeta y pulsa {submit}.',
    shortened: '(acortado: consulta la página de respuesta)',
    shortenedNoLink: '(acortado para caber en Teams)',
    editOnPage:
      'Los argumentos son demasiado largos para editarlos en esta tarjeta: edítalos en la página de respuesta.',
    reasonLabel: '¿Por qué?',
    changesLabel: '¿Qué debería cambiar?',
    argumentsLabel: 'Argumentos (JSON)',
    reasonEmpty: 'Di el motivo en pocas palabras.',
    notJson: 'Esto no es JSON válido: revisa las comillas, las comas y los corchetes. Todavía no se ha hecho nada.',
    actionFact: 'Acción',
    hashFact: 'Hash',
    recording: 'Se está registrando tu respuesta…',
    notRecorded: 'askgate no pudo registrar esto: inténtalo de nuevo.',
  },
  fr: {
    formHint: 'Remplissez la carte et appuyez sur {submit}.',
    shortened: '(raccourci : voir la page de réponse)',
    shortenedNoLink: '(raccourci pour tenir dans Teams)',
    editOnPage:
      'Les arguments sont trop longs pour être modifiés sur cette carte : modifiez-les sur la page de réponse.',
    reasonLabel: 'Pourquoi ?',
    changesLabel: 'Que faut-il changer ?',
    argumentsLabel: 'Arguments (JSON)',
    reasonEmpty: 'Dites pourquoi en quelques mots.',
    notJson:
      'Ce n’est pas du JSON valide : vérifiez les guillemets, les virgules et les crochets. Rien n’a encore été fait.',
    actionFact: 'Action',
    hashFact: 'Hash',
    recording: 'Votre réponse est en cours d’enregistrement…',
    notRecorded: 'askgate n’a pas pu enregistrer ceci : réessayez.',
  },
  de: {
    formHint: 'Fülle die Karte aus und tippe auf {submit}.',
    shortened: '(gekürzt: siehe die Antwortseite)',
    shortenedNoLink: '(gekürzt, damit es in Teams passt)',
    editOnPage:
      'Die Argumente sind zu lang, um sie auf dieser Karte zu bearbeiten: bearbeite sie auf der Antwortseite.',
    reasonLabel: 'Warum?',
    changesLabel: 'Was soll sich ändern?',
    argumentsLabel: 'Argumente (JSON)',
    reasonEmpty: 'Sag in ein paar Worten, warum.',
    notJson: 'Das ist kein gültiges JSON: prüfe Anführungszeichen, Kommas und Klammern. Noch ist nichts geschehen.',
    actionFact: 'Aktion',
    hashFact: 'Hash',
    recording: 'Deine Antwort wird gespeichert…',
    notRecorded: 'askgate konnte das nicht speichern: versuch es noch einmal.',
  },
  ja: {
    formHint: 'カードに入力して「{submit}」を押してください。',
    shortened: '(短縮されています: 回答ページをご覧ください)',
    shortenedNoLink: '(Teams に収まるよう短縮されています)',
    editOnPage: '引数が長すぎてこのカードでは編集できません。回答ページで編集してください。',
    reasonLabel: '理由は?',
    changesLabel: '何を変更すべきですか?',
    argumentsLabel: '引数 (JSON)',
    reasonEmpty: '理由を短く書いてください。',
    notJson: '有効な JSON ではありません。引用符、カンマ、括弧を確認してください。まだ何も実行されていません。',
    actionFact: 'アクション',
    hashFact: 'ハッシュ',
    recording: '回答を記録しています…',
    notRecorded: 'askgate はこれを記録できませんでした。もう一度お試しください。',
  },
};

/** Teams' message `key` in the shipped locale `locale` resolves to (English when none), filled with `params`. */
export const teamsText = wordsReader(TEAMS_WORDS);
