import { describe, expect, it } from 'vitest';
import { stripQuoted } from '../../src/channels/email/quote-strip.js';

const QUESTION = ['Where should I deploy?', '  1. Staging', '  2. Production'];
const quoted = (prefix = '> ') => QUESTION.map((l) => `${prefix}${l}`).join('\n');

// Replies as the common clients write them: the new text on top, then how each client introduces the quote.
const cases: [string, string, string][] = [
  ['Gmail (en)', `2\n\nOn Mon, Dec 7, 2026 at 6:00 PM askgate <ask@example.com> wrote:\n\n${quoted()}\n`, '2'],
  [
    'Gmail, the attribution wrapped over two lines',
    `Production\n\nOn Mon, Dec 7, 2026 at 6:00 PM askgate questions <\nask@example.com> wrote:\n\n${quoted()}`,
    'Production',
  ],
  ['Gmail (de)', `2\n\nAm Mo., 7. Dez. 2026 um 18:00 Uhr schrieb askgate <ask@example.com>:\n\n${quoted()}`, '2'],
  [
    'Gmail (fr)',
    `Staging\n\nLe lun. 7 déc. 2026 à 18:00, askgate <ask@example.com> a écrit :\n\n${quoted()}`,
    'Staging',
  ],
  ['Gmail (es)', `1\n\nEl lun, 7 dic 2026 a las 18:00, askgate (<ask@example.com>) escribió:\n\n${quoted()}`, '1'],
  [
    'Gmail (pt-BR)',
    `1\n\nEm seg., 7 de dez. de 2026 às 18:00, askgate <ask@example.com> escreveu:\n\n${quoted()}`,
    '1',
  ],
  ['Gmail (ja)', `2\n\n2026年12月7日(月) 18:00 askgate <ask@example.com>:\n\n${quoted()}`, '2'],
  [
    'Outlook (desktop, separator line and header block)',
    `Production, after the freeze\n\n________________________________\nFrom: askgate <ask@example.com>\nSent: Monday, December 7, 2026 6:00 PM\nTo: Alice <alice@example.com>\nSubject: Where should I deploy?\n\n${QUESTION.join('\n')}`,
    'Production, after the freeze',
  ],
  [
    'Outlook (Original Message)',
    `skip\r\n\r\n-----Original Message-----\r\nFrom: askgate <ask@example.com>\r\nSent: Monday, December 7, 2026 6:00 PM\r\nSubject: Where?\r\n\r\n${QUESTION.join('\r\n')}`,
    'skip',
  ],
  [
    'Outlook (de header block, no separator)',
    `2\n\nVon: askgate <ask@example.com>\nGesendet: Montag, 7. Dezember 2026 18:00\nAn: Alice\nBetreff: Wohin?\n\n${QUESTION.join('\n')}`,
    '2',
  ],
  [
    'Apple Mail',
    `Staging\n\nSent from my iPhone\n\n> On 7 Dec 2026, at 18:00, askgate <ask@example.com> wrote:\n>\n${quoted()}`,
    'Staging',
  ],
  [
    'Apple Mail (no trailer)',
    `2\n\n> On 7. Dec 2026, at 18:00, askgate <ask@example.com> wrote:\n> \n${quoted()}`,
    '2',
  ],
  ['Thunderbird', `Production\n\nOn 12/7/26 18:00, askgate wrote:\n${quoted()}\n`, 'Production'],
  [
    'Thunderbird with a signature',
    `2\n\n-- \nAlice Example\nSRE\n\nOn 12/7/26 18:00, askgate wrote:\n${quoted()}`,
    '2',
  ],
  ['a signature without a quote', `1\n-- \nAlice`, '1'],
  ['quoted first, the answer below (bottom posting)', `${quoted()}\n\n2`, '2'],
  [
    'several questions, one per line',
    `1\nlint, tests\n\nOn Mon, Dec 7, 2026 askgate <a@b.c> wrote:\n${quoted()}`,
    '1\nlint, tests',
  ],
  ['no quote at all', '  Production  ', 'Production'],
];

describe('stripQuoted: what a person wrote above or between the quote', () => {
  it.each(cases)('%s', (_client, reply, expected) => {
    expect(stripQuoted(reply)).toBe(expected);
  });

  it('keeps a line that merely mentions "wrote" when no quote follows', () => {
    expect(stripQuoted('Bob wrote the tests, so 2 is fine')).toBe('Bob wrote the tests, so 2 is fine');
  });

  it('a reply that is only the quote is empty', () => {
    expect(stripQuoted(`On Mon, Dec 7, 2026 askgate <a@b.c> wrote:\n${quoted()}`)).toBe('');
  });
});
