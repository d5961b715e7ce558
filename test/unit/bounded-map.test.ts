import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/core/bounded-map.js';

/** The same operations on a plain array kept in set order: the reference the map must match. */
function reference(max: number) {
  let order: [number, number][] = [];
  return {
    set(k: number, v: number) {
      order = order.filter(([key]) => key !== k);
      order.push([k, v]);
      while (order.length > max) order.shift();
    },
    delete(k: number) {
      order = order.filter(([key]) => key !== k);
    },
    keys: () => order.map(([k]) => k),
    get: (k: number) => order.find(([key]) => key === k)?.[1],
  };
}

describe('BoundedMap', () => {
  it('forgets the least recently set entry past the bound; setting again makes an entry the newest', () => {
    const m = new BoundedMap<string, number>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    m.set('a', 10);
    m.set('d', 4);
    expect(m.has('b')).toBe(false);
    expect([m.get('a'), m.get('c'), m.get('d'), m.size]).toEqual([10, 3, 4, 3]);
    m.set('e', 5);
    expect(m.has('c')).toBe(false);
    expect(m.get('a')).toBe(10);
  });

  it('with a bound of 0 keeps nothing', () => {
    const m = new BoundedMap<string, number>(0);
    m.set('a', 1);
    expect([m.size, m.get('a')]).toEqual([0, undefined]);
    m.set('b', 2);
    expect(m.size).toBe(0);
  });

  it('stays right after it was emptied by deletes (its kept iterator had reached the end)', () => {
    const m = new BoundedMap<string, number>(1);
    m.set('a', 1);
    m.set('b', 2);
    m.delete('b');
    expect(m.size).toBe(0);
    m.set('c', 3);
    m.set('d', 4);
    expect([m.has('c'), m.get('d'), m.size]).toEqual([false, 4, 1]);
  });

  it('matches a reference list through 20,000 random sets and deletes over 300 keys', () => {
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (const max of [1, 5, 64]) {
      const m = new BoundedMap<number, number>(max);
      const ref = reference(max);
      for (let i = 0; i < 20_000; i++) {
        const k = random(300);
        if (random(4) === 0) {
          m.delete(k);
          ref.delete(k);
        } else {
          m.set(k, i);
          ref.set(k, i);
        }
        expect(m.size).toBe(ref.keys().length);
        const probe = random(300);
        expect(m.get(probe)).toBe(ref.get(probe));
      }
      for (const k of ref.keys()) expect(m.get(k)).toBe(ref.get(k));
    }
  });
});
