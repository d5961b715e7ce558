/**
 * Re-renders BENCHMARKS.md from the last full run (bench/results/latest-full.json), e.g. after
 * editing bench/OPTIMIZATIONS.md, without measuring again: `npx tsx bench/render.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderMarkdown } from './report.js';

const ROOT = join(import.meta.dirname, '..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'latest-full.json'), 'utf8')) as Parameters<
  typeof renderMarkdown
>[0];
writeFileSync(
  join(ROOT, 'BENCHMARKS.md'),
  renderMarkdown(results, 'bench/latency.svg', join(ROOT, 'bench', 'OPTIMIZATIONS.md')),
);
console.log('rewrote BENCHMARKS.md from bench/results/latest-full.json');
