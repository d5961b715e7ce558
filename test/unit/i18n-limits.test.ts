import { describe, expect, it } from 'vitest';
import { LOCALES, translate, type MessageKey } from '../../src/core/i18n/index.js';
// The limits are the channels' own (each descriptor's `wordLimits`); the registry keeps the strictest per word.
import { CHANNELS, WORD_LIMITS as CONTROL_LIMITS } from '../../src/channels/registry.js';
import { wordsReader } from '../../src/channels/shared/channel-words.js';
import { BUTTON_TEXT_MAX as SLACK_BUTTON_TEXT_MAX } from '../../src/channels/slack/limits.js';
import { LABEL_MAX as DISCORD_BUTTON_LABEL_MAX } from '../../src/channels/discord/label-limits.js';
import { TOAST_MAX_CHARS as TELEGRAM_TOAST_MAX } from '../../src/channels/telegram/label-limits.js';

// Placeholders filled with their widest realistic values: three questions, two-digit numbers.
const WIDEST = { n: 3, total: 3, count: 99 };

describe('control words fit the platforms in every language', () => {
  const rows = [...LOCALES.keys()].flatMap((tag) =>
    [...CONTROL_LIMITS].map(([key, max]) => [tag, key, max] as [string, MessageKey, number]),
  );

  it.each(rows)('%s %s fits in %i', (tag, key, max) => {
    const text = translate(tag, key, WIDEST);
    expect(text.trim()).not.toBe('');
    expect(text.length).toBeLessThanOrEqual(max);
  });

  // A channel's own words (its `words.ts`) fit where it shows them, by its descriptor's `ownWordLimits`.
  const own = CHANNELS.flatMap((c) =>
    c.words && c.ownWordLimits
      ? [...LOCALES.keys()].flatMap((tag) =>
          [...c.ownWordLimits!].map(([key, max]) => [c.name, tag, key, max] as const),
        )
      : [],
  );
  it.each(own)('%s words: %s %s fits in %i', (name, tag, key, max) => {
    const words = CHANNELS.find((c) => c.name === name)!.words!;
    expect(Object.hasOwn(words.en, key)).toBe(true);
    const text = wordsReader(words)(tag, key, WIDEST);
    expect(text.trim()).not.toBe('');
    expect(text.length).toBeLessThanOrEqual(max);
  });

  it('checks the own-word limits the channels declare', () => {
    expect(own.filter(([, tag]) => tag === 'en').map(([name, , key, max]) => `${name} ${key} ${max}`)).toEqual([
      'telegram answerPlaceholder 64',
      'teams reasonLabel 120',
      'teams changesLabel 120',
      'teams argumentsLabel 120',
      'teams actionFact 120',
      'teams hashFact 120',
    ]);
  });

  it('covers every control key of the catalogues', () => {
    const controls = Object.keys(LOCALES.get('en')!.messages).filter((k) => k.startsWith('control.'));
    expect(controls.filter((k) => !CONTROL_LIMITS.has(k as MessageKey))).toEqual([]);
  });

  it('the limits are the platforms’ own', () => {
    expect([SLACK_BUTTON_TEXT_MAX, DISCORD_BUTTON_LABEL_MAX, CONTROL_LIMITS.get('control.ownWords')]).toEqual([
      75, 80, 45,
    ]);
  });

  // Notices are Telegram toasts (answerCallbackQuery text <= 200): the words askgate adds leave room for names.
  it.each([...LOCALES.keys()])('%s notices leave room for a name in a Telegram toast', (tag) => {
    const keys = Object.keys(LOCALES.get('en')!.messages).filter((k) => k.startsWith('notice.')) as MessageKey[];
    for (const key of keys) {
      const text = translate(tag, key, { ...WIDEST, needed: 10, time: '23:59 GMT-03:00', base: '', place: '' });
      expect([key, text.length <= TELEGRAM_TOAST_MAX - 60]).toEqual([key, true]);
    }
  });
});
