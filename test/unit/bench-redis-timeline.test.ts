import { describe, expect, it } from 'vitest';
import { latenessByRewrite } from '../../bench/lib/redis-timeline.js';

describe('latenessByRewrite (the 1,000,000-pending row set against Redis AOF rewrites)', () => {
  const first = 1_000_000;
  // 200 asks due one per 100 ms from `first`; the ones due in 5.0–7.0 s are 900 ms late, the rest 3 ms.
  const deadlines = Array.from({ length: 200 }, (_, i) => first + i * 100);
  const lateness = deadlines.map((d) => (d >= first + 5000 && d < first + 7000 ? 900 : 3));

  it('puts an ask in the rewrite it fell due in, or within afterMs after its end; the rest outside', () => {
    const split = latenessByRewrite(deadlines, lateness, [{ startMs: first + 4000, endMs: first + 5000 }], first, 2000);
    expect(split.firstDeadlineMs).toBe(first);
    // 4.0 s to 7.0 s (end + 2 s): 30 asks, 20 of them 900 ms late.
    expect(split.during).toEqual([{ fromS: 4, toS: 5, asks: 30, p99Ms: 900, maxMs: 900 }]);
    expect(split.outside).toEqual({ asks: 170, p99Ms: 3, maxMs: 3 });
  });

  it('with the late stretch outside every rewrite, the outside p99 shows it', () => {
    const split = latenessByRewrite(
      deadlines,
      lateness,
      [{ startMs: first + 10_000, endMs: first + 11_000 }],
      first,
      0,
    );
    expect(split.during[0]).toMatchObject({ asks: 10, maxMs: 3 });
    expect(split.outside).toMatchObject({ asks: 190, maxMs: 900 });
    expect(split.outside.p99Ms).toBe(900);
  });

  it('several rewrites each get their own asks; none at all leaves everything outside', () => {
    const two = latenessByRewrite(
      deadlines,
      lateness,
      [
        { startMs: first, endMs: first + 1000 },
        { startMs: first + 5000, endMs: first + 6000 },
      ],
      first,
      0,
    );
    expect(two.during.map((d) => d.asks)).toEqual([10, 10]);
    expect(two.during.map((d) => d.maxMs)).toEqual([3, 900]);
    const none = latenessByRewrite(deadlines, lateness, [], first);
    expect(none.during).toEqual([]);
    expect(none.outside.asks).toBe(200);
  });
});
