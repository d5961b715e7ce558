/**
 * Re-renders BENCHMARKS.md from the last full run (bench/results/latest-full.json), e.g. after
 * editing bench/OPTIMIZATIONS-19.md or bench/OPTIMIZATIONS.md, without measuring again (and
 * bench/growth.svg from the same results): `npx tsx bench/render.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { growthChart } from './chart.js';
import { growthPoints, NOTES, renderMarkdown } from './report.js';

const ROOT = join(import.meta.dirname, '..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'latest-full.json'), 'utf8')) as Parameters<
  typeof renderMarkdown
>[0];
writeFileSync(
  join(ROOT, 'BENCHMARKS.md'),
  renderMarkdown(
    results,
    'bench/latency.svg',
    NOTES.map((f) => join(ROOT, 'bench', f)),
    'bench/growth.svg',
  ),
);
const growth = growthPoints(results);
if (growth.length)
  writeFileSync(
    join(ROOT, 'bench', 'growth.svg'),
    growthChart(`askgate cost by pending asks (${results.mode} run, ${results.startedAt.slice(0, 10)})`, growth),
  );
console.log('rewrote BENCHMARKS.md from bench/results/latest-full.json');
