import { describe, expect, it } from 'vitest';
import { parseReply, type ParsedReply } from '../../src/core/reply-parser.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';

const env: Question = {
  id: 'env',
  question: 'Onde?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const tags: Question = { id: 'tags', question: 'Quais?', multiSelect: true, options: [{ label: 'a' }, { label: 'b' }] };
const pularLabel: Question = {
  id: 'act',
  question: 'E agora?',
  multiSelect: false,
  options: [{ label: 'Pular' }, { label: 'Ficar' }],
};
const skip: ParsedReply = { kind: 'skip' };
const own = (id: string, text: string): ParsedReply => ({ kind: 'answers', answers: { [id]: [text] } });

describe('typed replies in the ask locale', () => {
  it.each([
    ['pt-BR', 'pular', skip],
    ['pt-BR', 'Pular!', skip],
    ['pt-BR', '  PULAR.  ', skip],
    ['pt-BR', 'skip', skip],
    ['pt-PT', 'pular', skip],
    ['es', 'omitir', skip],
    ['es', 'Saltar', skip],
    ['fr', 'passer', skip],
    ['de', 'überspringen', skip],
    ['de', 'ÜBERSPRINGEN', skip],
    ['de', 'ueberspringen', skip],
    ['ja', 'スキップ', skip],
    ['ja', 'ｽｷｯﾌﾟ', skip],
    ['ja', 'スキップ。', skip],
    // Another language's skip word, or one inside a sentence, is the person's own words.
    ['en', 'pular', own('env', 'pular')],
    ['es', 'pular', own('env', 'pular')],
    ['pt-BR', 'pular isso', own('env', 'pular isso')],
    ['pt-BR', 'outro', own('env', 'outro')],
    // Numbers and labels as in English.
    ['pt-BR', '2', { kind: 'answers', answers: { env: ['Production'] } }],
    ['de', 'staging', { kind: 'answers', answers: { env: ['Staging'] } }],
  ] as const)('%s: %j', (locale, text, expected) => {
    expect(parseReply([env], text, {}, wordsFor(locale))).toEqual(expected);
  });

  it('an option labelled like the skip word is that option', () => {
    expect(parseReply([pularLabel], 'pular', {}, wordsFor('pt-BR'))).toEqual({
      kind: 'answers',
      answers: { act: ['Pular'] },
    });
    expect(parseReply([pularLabel, tags], 'pular', {}, wordsFor('pt-BR'))).toEqual({
      kind: 'answers',
      answers: { act: ['Pular'] },
    });
  });

  it('a whole-message skip word skips several questions; one line of it is refused in the locale', () => {
    const pt = wordsFor('pt-BR');
    expect(parseReply([env, tags], 'pular', {}, pt)).toEqual(skip);
    expect(parseReply([env, tags], '1: 1\n2: pular', {}, pt)).toEqual({
      kind: 'invalid',
      hint: 'Pergunta 2: envie "pular" sozinho para pular a pergunta inteira; as perguntas não podem ser puladas uma a uma.',
    });
  });

  it('hints are in the given words, English by default', () => {
    expect(parseReply([env], '7')).toEqual({
      kind: 'invalid',
      hint: 'There is no option 7. Reply with a number from 1 to 2, an option name, or your own words; send "skip" to skip.',
    });
    expect(parseReply([env], '7', {}, wordsFor('es'))).toEqual({
      kind: 'invalid',
      hint: 'No existe la opción 7. Responde con un número del 1 al 2, el nombre de una opción o tus palabras; envía "omitir" para omitir.',
    });
    expect(parseReply([env, tags], '1: 7', {}, wordsFor('de'))).toMatchObject({
      hint: expect.stringMatching(/^Frage 1: es gibt keine Option 7\. Antworte mit/),
    });
  });

  it('the skip words of several locales (the ask and the person) all count', () => {
    expect(parseReply([env], 'omitir', {}, wordsFor('pt-BR'), ['pt-BR', 'es'])).toEqual(skip);
    expect(parseReply([env], 'omitir', {}, wordsFor('pt-BR'))).toEqual(own('env', 'omitir'));
  });
});
