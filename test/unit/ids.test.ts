import { describe, expect, it } from 'vitest';
import { newAskId, randomBytesPooled } from '../../src/ids.js';

describe('random ids', () => {
  it('serves each pooled byte once, across refills, at the length asked for', () => {
    const seen: Buffer[] = [];
    for (let i = 0; i < 1000; i++) {
      const bytes = randomBytesPooled(13);
      expect(bytes).toHaveLength(13);
      seen.push(Buffer.from(bytes));
    }
    // 13 000 bytes is three refills of the 4 KB pool: no 13-byte draw repeats another.
    expect(new Set(seen.map((b) => b.toString('hex'))).size).toBe(1000);
    expect(randomBytesPooled(10_000)).toHaveLength(10_000);
  });

  it('makes base62 ask ids of the length asked for, all distinct', () => {
    const ids = Array.from({ length: 20_000 }, () => newAskId());
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^[0-9A-Za-z]{14}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newAskId(30)).toMatch(/^[0-9A-Za-z]{30}$/);
    // Every symbol turns up: the rejection sampling keeps the alphabet uniform.
    expect(new Set(ids.join('')).size).toBe(62);
  });
});
