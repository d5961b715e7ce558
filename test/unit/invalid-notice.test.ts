import { describe, expect, it } from 'vitest';
import { askRecord } from '../helpers/records.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { invalidNotice } from '../../src/core/notices.js';

const record = askRecord(
  [{ id: 'q1', question: 'Go?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] }],
  {
    policy: { agree: 2 },
  },
);

describe('invalidNotice: a refused answer or skip is told in the person’s words', () => {
  const rows: [string, 'skip' | 'answer', string][] = [
    ['en', 'skip', 'This question needs 2 matching answers: tap an option.'],
    ['pt-BR', 'skip', 'Esta pergunta precisa de 2 respostas iguais: toque em uma opção.'],
    ['es', 'skip', 'Esta pregunta necesita 2 respuestas coincidentes: toca una opción.'],
    ['fr', 'skip', 'Cette question demande 2 réponses concordantes : touchez une option.'],
    ['de', 'skip', 'Diese Frage braucht 2 übereinstimmende Antworten: tippe auf eine Option.'],
    ['ja', 'skip', 'この質問には一致する回答が2件必要です。選択肢をタップしてください。'],
    ['en', 'answer', 'This answer does not fit the question.'],
    ['de', 'answer', 'Diese Antwort passt nicht zur Frage.'],
  ];
  it.each(rows)('%s, %s', (locale, type, text) => {
    expect(invalidNotice(record, { type }, wordsFor(locale))).toBe(text);
  });
});
