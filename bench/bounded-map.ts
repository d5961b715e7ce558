// Micro-benchmark of change 32 (not part of npm run bench): 200,000 sets of new keys into a cache of
// 1,000 / 10,000 / 100,000 entries, evicting the oldest with a fresh `keys().next()` (before) and
// with BoundedMap's kept iterator (now). Usage: npx tsx bench/bounded-map.ts
import { BoundedMap } from '../src/core/bounded-map.js';

const SETS = 200_000;

function freshIterator(max: number): void {
  const m = new Map<string, object>();
  for (let i = 0; i < SETS; i++) {
    const key = `ask${i}`;
    m.delete(key);
    m.set(key, { i });
    if (m.size > max) m.delete(m.keys().next().value!);
  }
}

function bounded(max: number): void {
  const m = new BoundedMap<string, object>(max);
  for (let i = 0; i < SETS; i++) m.set(`ask${i}`, { i });
}

const time = (run: () => void): number => {
  const t0 = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

for (const max of [1_000, 10_000, 100_000])
  console.log(
    `${max} entries: fresh keys().next() ${time(() => freshIterator(max)).toFixed(0)} ms, BoundedMap ${time(() => bounded(max)).toFixed(0)} ms (${SETS} sets)`,
  );
