/**
 * The answer page's own words (src/links/), in every language askgate ships: what only a web page
 * says (a link that is not valid, the time left, a field's label). Everything a chat says too
 * (options, decisions, outcomes, refusals) comes from core/i18n's catalogues.
 */
const EN = {
  title: 'Answer',
  invalidTitle: 'This link is not valid',
  invalidBody: 'It may have expired or been changed. Ask whoever sent it for a new one.',
  closedTitle: 'This question is closed',
  recordedTitle: 'Thank you',
  alreadyAnswered: 'This question was already answered.',
  openUntil: 'Open until {time} ({left} left)',
  answeringAs: 'Answering as {name}',
  zone: 'Times are in {zone}.',
  send: 'Send',
  sendOption: 'You chose an option from the link: check it and press Send.',
  ownWords: 'Your own words',
  reason: 'Reason',
  reasonNeeded: 'Needed to reject or to request changes.',
  editArguments: 'Arguments to run instead (JSON), for Edit',
  arguments: 'Arguments',
  fullHash: 'Full hash',
  decision: 'Your decision',
  fix: 'Nothing was recorded: please fix what is marked below.',
  expected: 'Expected: {expected}',
  counted: 'Your answer was recorded; more matching answers are needed.',
  needReason: 'Say why in Reason to reject or to request changes. Nothing was recorded.',
  editJson: 'The arguments must be a JSON object, such as {"to": "cfo@example.com"}. Nothing was recorded.',
} as const;

/** A key of the page's words. */
export type PageKey = keyof typeof EN;
type PageWords = Readonly<Record<PageKey, string>>;

const PT_BR: PageWords = {
  title: 'Responder',
  invalidTitle: 'Este link não é válido',
  invalidBody: 'Ele pode ter expirado ou sido alterado. Peça um novo a quem o enviou.',
  closedTitle: 'Esta pergunta está encerrada',
  recordedTitle: 'Obrigado',
  alreadyAnswered: 'Esta pergunta já foi respondida.',
  openUntil: 'Aberta até {time} (faltam {left})',
  answeringAs: 'Respondendo como {name}',
  zone: 'Horários no fuso {zone}.',
  send: 'Enviar',
  sendOption: 'Você escolheu uma opção pelo link: confira e toque em Enviar.',
  ownWords: 'Com suas palavras',
  reason: 'Motivo',
  reasonNeeded: 'Necessário para rejeitar ou pedir mudanças.',
  editArguments: 'Argumentos a executar no lugar (JSON), para Editar',
  arguments: 'Argumentos',
  fullHash: 'Hash completo',
  decision: 'Sua decisão',
  fix: 'Nada foi registrado: corrija o que está marcado abaixo.',
  expected: 'Esperado: {expected}',
  counted: 'Sua resposta foi registrada; faltam respostas iguais.',
  needReason: 'Diga o motivo para rejeitar ou pedir mudanças. Nada foi registrado.',
  editJson: 'Os argumentos devem ser um objeto JSON, como {"to": "cfo@example.com"}. Nada foi registrado.',
};

const ES: PageWords = {
  title: 'Responder',
  invalidTitle: 'Este enlace no es válido',
  invalidBody: 'Puede haber caducado o haber sido modificado. Pide uno nuevo a quien lo envió.',
  closedTitle: 'Esta pregunta está cerrada',
  recordedTitle: 'Gracias',
  alreadyAnswered: 'Esta pregunta ya fue respondida.',
  openUntil: 'Abierta hasta {time} (quedan {left})',
  answeringAs: 'Respondiendo como {name}',
  zone: 'Horas en la zona {zone}.',
  send: 'Enviar',
  sendOption: 'Elegiste una opción desde el enlace: revísala y pulsa Enviar.',
  ownWords: 'Con tus palabras',
  reason: 'Motivo',
  reasonNeeded: 'Necesario para rechazar o pedir cambios.',
  editArguments: 'Argumentos a ejecutar en su lugar (JSON), para Editar',
  arguments: 'Argumentos',
  fullHash: 'Hash completo',
  decision: 'Tu decisión',
  fix: 'No se registró nada: corrige lo marcado abajo.',
  expected: 'Se espera: {expected}',
  counted: 'Tu respuesta quedó registrada; faltan respuestas coincidentes.',
  needReason: 'Indica el motivo para rechazar o pedir cambios. No se registró nada.',
  editJson: 'Los argumentos deben ser un objeto JSON, como {"to": "cfo@example.com"}. No se registró nada.',
};

const FR: PageWords = {
  title: 'Répondre',
  invalidTitle: 'Ce lien n’est pas valide',
  invalidBody: 'Il a peut-être expiré ou été modifié. Demandez-en un nouveau à qui vous l’a envoyé.',
  closedTitle: 'Cette question est close',
  recordedTitle: 'Merci',
  alreadyAnswered: 'Cette question a déjà reçu une réponse.',
  openUntil: 'Ouverte jusqu’à {time} (encore {left})',
  answeringAs: 'Vous répondez en tant que {name}',
  zone: 'Heures dans le fuseau {zone}.',
  send: 'Envoyer',
  sendOption: 'Vous avez choisi une option depuis le lien : vérifiez-la et appuyez sur Envoyer.',
  ownWords: 'Avec vos mots',
  reason: 'Raison',
  reasonNeeded: 'Nécessaire pour refuser ou demander des changements.',
  editArguments: 'Arguments à exécuter à la place (JSON), pour Modifier',
  arguments: 'Arguments',
  fullHash: 'Empreinte complète',
  decision: 'Votre décision',
  fix: 'Rien n’a été enregistré : corrigez ce qui est signalé ci-dessous.',
  expected: 'Attendu : {expected}',
  counted: 'Votre réponse est enregistrée ; d’autres réponses identiques sont nécessaires.',
  needReason: 'Indiquez la raison pour refuser ou demander des changements. Rien n’a été enregistré.',
  editJson: 'Les arguments doivent être un objet JSON, comme {"to": "cfo@example.com"}. Rien n’a été enregistré.',
};

const DE: PageWords = {
  title: 'Antworten',
  invalidTitle: 'Dieser Link ist nicht gültig',
  invalidBody: 'Er ist vielleicht abgelaufen oder wurde verändert. Bitten Sie den Absender um einen neuen.',
  closedTitle: 'Diese Frage ist geschlossen',
  recordedTitle: 'Danke',
  alreadyAnswered: 'Diese Frage wurde bereits beantwortet.',
  openUntil: 'Offen bis {time} (noch {left})',
  answeringAs: 'Sie antworten als {name}',
  zone: 'Zeiten in der Zone {zone}.',
  send: 'Senden',
  sendOption: 'Sie haben über den Link eine Option gewählt: prüfen Sie sie und drücken Sie Senden.',
  ownWords: 'In eigenen Worten',
  reason: 'Grund',
  reasonNeeded: 'Nötig zum Ablehnen oder um Änderungen zu verlangen.',
  editArguments: 'Stattdessen auszuführende Argumente (JSON), für Bearbeiten',
  arguments: 'Argumente',
  fullHash: 'Vollständiger Hash',
  decision: 'Ihre Entscheidung',
  fix: 'Nichts wurde gespeichert: bitte korrigieren Sie das Markierte.',
  expected: 'Erwartet: {expected}',
  counted: 'Ihre Antwort ist gespeichert; weitere gleiche Antworten sind nötig.',
  needReason: 'Geben Sie einen Grund an, um abzulehnen oder Änderungen zu verlangen. Nichts wurde gespeichert.',
  editJson: 'Die Argumente müssen ein JSON-Objekt sein, etwa {"to": "cfo@example.com"}. Nichts wurde gespeichert.',
};

const JA: PageWords = {
  title: '回答',
  invalidTitle: 'このリンクは無効です',
  invalidBody: '期限切れか、変更された可能性があります。送信者に新しいリンクを依頼してください。',
  closedTitle: 'この質問は締め切られました',
  recordedTitle: 'ありがとうございます',
  alreadyAnswered: 'この質問にはすでに回答があります。',
  openUntil: '{time} まで受付中（残り {left}）',
  answeringAs: '{name} として回答',
  zone: '時刻は {zone} です。',
  send: '送信',
  sendOption: 'リンクから選択肢を選びました。確認して「送信」を押してください。',
  ownWords: '自由記述',
  reason: '理由',
  reasonNeeded: '却下または変更依頼には必須です。',
  editArguments: '代わりに実行する引数（JSON、編集用）',
  arguments: '引数',
  fullHash: '完全なハッシュ',
  decision: 'あなたの判断',
  fix: '何も記録されていません。下の印の箇所を直してください。',
  expected: '期待される値: {expected}',
  counted: '回答を記録しました。さらに一致する回答が必要です。',
  needReason: '却下または変更依頼には理由を書いてください。何も記録されていません。',
  editJson: '引数は {"to": "cfo@example.com"} のような JSON オブジェクトにしてください。何も記録されていません。',
};

const PAGES: ReadonlyMap<string, PageWords> = new Map([
  ['en', EN],
  ['pt-BR', PT_BR],
  ['es', ES],
  ['fr', FR],
  ['de', DE],
  ['ja', JA],
]);

/** The page's words in a shipped `locale` (English for any other), `{name}` placeholders filled. */
export function pageWords(locale: string): (key: PageKey, params?: Record<string, string>) => string {
  const words = PAGES.get(locale) ?? EN;
  return (key, params = {}) => words[key].replace(/\{(\w+)\}/g, (m, name: string) => params[name] ?? m);
}

/** The locales the page speaks (the same as core/i18n's; a test keeps them together). */
export const PAGE_LOCALES: readonly string[] = [...PAGES.keys()];
