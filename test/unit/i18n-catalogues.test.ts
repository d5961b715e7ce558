import { describe, expect, it } from 'vitest';
import {
  chooseLocale,
  fill,
  LOCALES,
  shippedLocale,
  translate,
  wordsFor,
  wordsOf,
  type LocaleFile,
  type Message,
} from '../../src/core/i18n/index.js';
import { CONSOLE_LOCALES } from '../../src/console/i18n/index.js';
import { CHANNELS } from '../../src/channels/registry.js';

const english = LOCALES.get('en')!;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
const forms = (m: Message): [string, string][] => (typeof m === 'string' ? [['', m]] : Object.entries(m));

type Catalogue = Readonly<Record<string, Message>>;

/** What is wrong with a locale's messages, compared with English and the locale's plural rules. */
function messageProblems(tag: string, messages: Catalogue, english: Catalogue): string[] {
  const problems: string[] = [];
  const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories;
  const keys = new Set(Object.keys(messages));
  for (const key of Object.keys(english)) if (!keys.has(key)) problems.push(`${key}: missing`);
  for (const [key, message] of Object.entries(messages)) {
    const reference = Object.hasOwn(english, key) ? english[key] : undefined;
    if (reference === undefined) {
      problems.push(`${key}: not an English key`);
      continue;
    }
    const expected = placeholders(typeof reference === 'string' ? reference : reference.other);
    for (const [form, text] of forms(message)) {
      if (placeholders(text).join() !== expected.join())
        problems.push(`${key}${form && `.${form}`}: placeholders ${placeholders(text)} instead of ${expected}`);
    }
    if (typeof reference !== typeof message) problems.push(`${key}: plural in one catalogue only`);
    if (typeof message !== 'string') {
      for (const c of categories) if (!(c in message)) problems.push(`${key}: no "${c}" form`);
      for (const c of Object.keys(message))
        if (!categories.includes(c as Intl.LDMLPluralRule)) problems.push(`${key}: "${c}" is not a ${tag} form`);
    }
  }
  return problems;
}

/** What is wrong with a catalogue: its messages, and a locale without skip words. */
function catalogueProblems(file: LocaleFile): string[] {
  return [
    ...messageProblems(file.tag, file.messages, english.messages),
    ...(file.skipWords.length === 0 ? ['no skip words'] : []),
  ];
}

describe('catalogues', () => {
  it('ships at least en, pt-BR, es, fr, de and ja', () => {
    expect([...LOCALES.keys()]).toEqual(expect.arrayContaining(['en', 'pt-BR', 'es', 'fr', 'de', 'ja']));
    for (const [tag, file] of LOCALES) expect(Intl.getCanonicalLocales(file.tag)).toEqual([tag]);
  });

  it.each([...LOCALES.keys()])('%s is complete: every key, the same placeholders, every plural form', (tag) => {
    expect(catalogueProblems(LOCALES.get(tag)!)).toEqual([]);
  });

  it.each([...LOCALES.keys()])('%s console words are complete', (tag) => {
    expect(CONSOLE_LOCALES.has(tag)).toBe(true);
    expect(messageProblems(tag, CONSOLE_LOCALES.get(tag)!, CONSOLE_LOCALES.get('en')!)).toEqual([]);
  });

  // What only one channel says lives in its folder (the descriptor's `words`), checked the same way.
  const channelWords = CHANNELS.flatMap((c) => (c.words ? [[c.name, c.words] as const] : []));
  it.each(channelWords.flatMap(([name, words]) => [...LOCALES.keys()].map((tag) => [name, tag, words] as const)))(
    '%s words in %s are complete',
    (_name, tag, words) => {
      expect(Object.hasOwn(words, tag)).toBe(true);
      expect(messageProblems(tag, words[tag]!, words.en)).toEqual([]);
    },
  );

  it('channel words come in the shipped locales only', () => {
    expect(channelWords.map(([name]) => name)).toEqual(['telegram', 'slack', 'discord', 'email', 'teams']);
    for (const [name, words] of channelWords)
      expect([name, Object.keys(words).sort()]).toEqual([name, [...LOCALES.keys()].sort()]);
  });

  it.each([...LOCALES.keys()])('%s holds no channel’s own words: no key starts with a channel name', (tag) => {
    const channelKeys = Object.keys(LOCALES.get(tag)!.messages).filter((key) =>
      CHANNELS.some((c) => key.startsWith(`${c.name}.`)),
    );
    expect(channelKeys).toEqual([]);
  });

  it('the check fails on a missing key, a changed placeholder, a missing plural form', () => {
    const fr = LOCALES.get('fr')!;
    const { 'control.skip': _gone, ...rest } = fr.messages;
    const broken = {
      ...fr,
      messages: {
        ...rest,
        'notice.expiredAt': 'Cette question a expiré à {heure}',
        'left.minutes': { one: 'dans {count} minute', other: 'dans {count} minutes' },
      },
    } as unknown as LocaleFile;
    expect(catalogueProblems(broken)).toEqual([
      'control.skip: missing',
      'notice.expiredAt: placeholders heure instead of time',
      'left.minutes: no "many" form',
    ]);
  });

  it.each([...LOCALES.keys()])('%s: thread channels find the words they swap in the instructions', (tag) => {
    const t = (key: Parameters<typeof translate>[1]) => translate(tag, key);
    expect(t('prompt.buttons')).toContain(t('phrase.replyToMessage'));
    expect(t('prompt.form')).toContain(t('phrase.replyToMessage'));
  });
});

describe('choosing a locale', () => {
  it.each([
    ['pt-BR', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['es-MX', 'es'],
    ['es-419', 'es'],
    ['de-AT', 'de'],
    ['fr-CA', 'fr'],
    ['ja-JP', 'ja'],
    ['en-GB', 'en'],
    ['zh-Hans', null],
    ['ko', null],
    ['not a tag', null],
    ['', null],
    ['__proto__', null],
  ])('%s -> %s', (tag, shipped) => {
    expect(shippedLocale(tag)).toBe(shipped);
  });

  it('the person, else the ask, else the default, else English', () => {
    expect(chooseLocale('es', 'pt-BR', 'de')).toBe('es');
    expect(chooseLocale(undefined, 'pt-BR', 'de')).toBe('pt-BR');
    expect(chooseLocale('ko', undefined, 'de')).toBe('de');
    expect(chooseLocale('ko', 'zz-!!')).toBe('en');
    expect(chooseLocale()).toBe('en');
  });

  it("an ask's words: its locale when shipped, else the default locale, else English", () => {
    expect(wordsOf({ locale: 'pt-BR' }, 'de').locale).toBe('pt-BR');
    expect(wordsOf({}, 'de').locale).toBe('de');
    // A well-formed tag askgate does not ship reads ASKGATE_DEFAULT_LOCALE, not English.
    expect(wordsOf({ locale: 'ko' }, 'de').locale).toBe('de');
    expect(wordsOf({ locale: 'ko' }).locale).toBe('en');
  });
});

describe('filling messages', () => {
  it('fills in one pass: a value holding a placeholder stays as typed', () => {
    expect(fill('by {name} in {channel}', { name: '{channel}', channel: 'Slack' })).toBe('by {channel} in Slack');
    expect(fill('{toString} {constructor}', {})).toBe('{toString} {constructor}');
  });

  it('picks the plural form by the locale rules', () => {
    expect(translate('en', 'left.minutes', { count: 1 })).toBe('in 1 minute');
    expect(translate('en', 'left.minutes', { count: 2 })).toBe('in 2 minutes');
    expect(translate('fr', 'list.more', { count: 1 })).toBe(' et 1 autre');
    expect(translate('fr', 'list.more', { count: 2 })).toBe(' et 2 autres');
    expect(translate('ja', 'left.minutes', { count: 1 })).toBe('あと1分');
    expect(translate('pt-PT', 'control.skip')).toBe('Pular');
    expect(translate('xx', 'control.skip')).toBe('Skip');
  });

  it('shows times in the time zone, English in UTC as "HH:MM UTC"', () => {
    const at = '2026-12-04T14:02:00.000Z';
    expect(wordsFor('en').time(at)).toBe('14:02 UTC');
    expect(wordsFor('en').day(at)).toBe('2026-12-04');
    expect(wordsFor('pt-BR', 'America/Sao_Paulo').time(at)).toMatch(/^11:02\b/);
    expect(wordsFor('ja', 'Asia/Tokyo').time(at)).toMatch(/^23:02\b/);
    expect(wordsFor('de', 'Europe/Berlin').day('2026-12-04T23:30:00Z')).toBe('05.12.2026');
    expect(wordsFor('en', 'Not/AZone').timeZone).toBe('UTC');
    expect(wordsFor('en').time('yesterday')).toBeNull();
  });
});
