import { describe, expect, it } from 'vitest';
import { deadlineOf, fromMs, isDeadline, toMs } from '../../src/store/iso-times.js';

/** The conversions as they were before they were remembered: the cached ones must agree. */
const plain = {
  toMs(iso: string): string | number {
    const ms = Date.parse(iso);
    return Number.isFinite(ms) && new Date(ms).toISOString() === iso ? ms : iso;
  },
  deadlineOf(createdAt: string, timeoutSeconds: number): string | undefined {
    const at = Date.parse(createdAt) + timeoutSeconds * 1000;
    return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at).toISOString() : undefined;
  },
};

describe('iso-times', () => {
  it.each([
    ['2026-12-05T07:00:00.123Z', 1796454000123],
    ['1970-01-01T00:00:00.000Z', 0],
    ['2026-12-05T07:00:00Z', '2026-12-05T07:00:00Z'], // not the canonical text: kept as it is
    ['2026-12-05T08:00:00.123+01:00', '2026-12-05T08:00:00.123+01:00'],
    ['not a time', 'not a time'],
    ['', ''],
  ])('toMs(%j) is %j, the first time and the next', (iso, expected) => {
    expect(toMs(iso)).toBe(expected);
    expect(toMs(iso)).toBe(expected);
  });

  it('fromMs gives the ISO time, or the number when it is no time', () => {
    expect(fromMs(1796454000123)).toBe('2026-12-05T07:00:00.123Z');
    expect(fromMs(1796454000123)).toBe('2026-12-05T07:00:00.123Z');
    expect(fromMs(8.64e15 + 1)).toBe(8.64e15 + 1);
    expect(fromMs(Number.NaN)).toBeNaN();
  });

  it('agrees with the plain conversions over many more times than it remembers', () => {
    const base = Date.UTC(2026, 11, 5);
    for (let i = 0; i < 10_000; i++) {
      const ms = base + i * 7919;
      const iso = new Date(ms).toISOString();
      expect(toMs(iso)).toBe(ms);
      expect(fromMs(ms)).toBe(iso);
      const timeout = 30 + (i % 3571);
      const deadline = plain.deadlineOf(iso, timeout);
      expect(deadlineOf(iso, timeout)).toBe(deadline);
      expect(isDeadline(deadline!, iso, timeout)).toBe(true);
      expect(isDeadline(deadline!, iso, timeout + 1)).toBe(false);
      expect(toMs(iso.replace('Z', '+00:00'))).toBe(plain.toMs(iso.replace('Z', '+00:00')));
    }
  });

  it('isDeadline is false where the text differs from the computed deadline, true only where it is it', () => {
    const created = '2026-12-05T07:00:00.000Z';
    expect(isDeadline('2026-12-05T07:10:00.000Z', created, 600)).toBe(true);
    expect(isDeadline('2026-12-05T07:10:00Z', created, 600)).toBe(false); // same instant, other text
    expect(isDeadline('2026-12-05T07:10:00.000Z', 'garbage', 600)).toBe(false);
    expect(isDeadline('2026-12-05T07:10:00.000Z', '2026-12-05T07:00:00Z', 600)).toBe(true); // as deadlineOf
    expect(plain.deadlineOf('2026-12-05T07:00:00Z', 600)).toBe('2026-12-05T07:10:00.000Z');
    expect(deadlineOf('garbage', 600)).toBeUndefined();
    expect(deadlineOf(created, 8.64e12)).toBeUndefined();
  });
});
