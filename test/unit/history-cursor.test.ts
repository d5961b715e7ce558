import { describe, expect, it } from 'vitest';
import { HistoryCursor } from '../../src/api/history-cursor.js';
import { canonicalJson } from '../../src/core/canonical-json.js';
import type { HistoryEntry } from '../../src/core/schemas.js';

const at = (s: number) => `2030-01-01T14:00:0${s}.000Z`;
const created = { type: 'created', at: at(0), channel: 'telegram' } as HistoryEntry;
/** As this process builds it: `at` added last. */
const deliveredBuilt = { type: 'delivered', channel: 'telegram', messageId: '101', at: at(1) } as HistoryEntry;
/** The same entry as read back from Redis: `at` second. */
const deliveredRead = { type: 'delivered', at: at(1), channel: 'telegram', messageId: '101' } as HistoryEntry;
const rejected = { type: 'reply_rejected', at: at(2), userId: '5', reason: 'forbidden' } as HistoryEntry;
const hint = { type: 'hint_sent', at: at(3), userId: '6' } as HistoryEntry;
const answered = { type: 'answered', at: at(4), userId: '6' } as HistoryEntry;

const sent = (cursor: HistoryCursor, history: HistoryEntry[]) =>
  cursor.fresh(history).map(({ entry, index }) => [index, entry.type]);

describe('HistoryCursor: each entry of an ask history sent once', () => {
  it('does not send an entry again when a re-read has its keys in another order', () => {
    const cursor = new HistoryCursor(0);
    expect(sent(cursor, [created, deliveredBuilt])).toEqual([
      [0, 'created'],
      [1, 'delivered'],
    ]);
    // The old cursor compared plain JSON, took this for a trimmed history and sent `delivered` again.
    expect(sent(cursor, [created, deliveredRead, rejected])).toEqual([[2, 'reply_rejected']]);
    expect(sent(cursor, [created, deliveredBuilt, rejected, hint])).toEqual([[3, 'hint_sent']]);
  });

  it.each([
    ['nothing new', [created, deliveredRead], []],
    ['one new', [created, deliveredRead, rejected], [[2, 'reply_rejected']]],
    // Capped history: `created` kept, the oldest after it dropped; found by content.
    ['trimmed by one, one new', [created, deliveredRead, hint], [[2, 'hint_sent']]],
    [
      'trimmed past the last sent',
      [created, hint, answered],
      [
        [1, 'hint_sent'],
        [2, 'answered'],
      ],
    ],
  ] as [string, HistoryEntry[], [number, string][]][])('after created and delivered: %s', (_name, next, expected) => {
    const cursor = new HistoryCursor(0);
    cursor.fresh([created, deliveredBuilt]);
    expect(sent(cursor, next)).toEqual(expected);
  });

  it('starts after a Last-Event-ID, and sends nothing for a history no longer than that', () => {
    expect(sent(new HistoryCursor(2), [created, deliveredRead, rejected])).toEqual([[2, 'reply_rejected']]);
    expect(sent(new HistoryCursor(5), [created, deliveredRead])).toEqual([]);
  });

  it('canonicalJson: equal data gives equal text whatever the key order, nested too', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [2, { e: 0, f: 1 }] }, b: 1 }),
    );
    expect(canonicalJson(deliveredBuilt)).toBe(canonicalJson(deliveredRead));
    expect(canonicalJson(deliveredBuilt)).not.toBe(canonicalJson({ ...deliveredRead, messageId: '102' }));
    expect(JSON.parse(canonicalJson({ ['__proto__']: 1, a: 2 }))).toEqual(JSON.parse('{"__proto__":1,"a":2}'));
  });
});
