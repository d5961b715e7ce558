/**
 * Re-renders BENCHMARKS.md from the last full run (bench/results/latest-full.json), e.g. after
 * editing bench/OPTIMIZATIONS-19.md or bench/OPTIMIZATIONS.md, without measuring again (and
 * bench/growth.svg from the same results): `npx tsx bench/render.ts`.
 *
 *   npx tsx bench/render.ts --from=bench/results/latest-partial.json --to=/tmp/B.md
 *                           other results, written elsewhere (the growth chart beside --to)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { growthChart } from './chart.js';
import { growthPoints, NOTES, renderMarkdown } from './report.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true });
const from = resolve(values.from ?? join(ROOT, 'bench', 'results', 'latest-full.json'));
const to = resolve(values.to ?? join(ROOT, 'BENCHMARKS.md'));
if (!existsSync(from)) {
  console.error(`no results at ${from}: run \`npm run bench\` first (or pass --from=<results.json>)`);
  process.exit(1);
}
const results = JSON.parse(readFileSync(from, 'utf8')) as Parameters<typeof renderMarkdown>[0];
const growthFile = values.to ? join(dirname(to), 'growth.svg') : join(ROOT, 'bench', 'growth.svg');
const growth = growthPoints(results);
if (growth.length)
  writeFileSync(
    growthFile,
    growthChart(`askgate cost by pending asks (${results.mode} run, ${results.startedAt.slice(0, 10)})`, growth),
  );
writeFileSync(
  to,
  renderMarkdown(
    results,
    values.to ? relative(dirname(to), join(ROOT, 'bench', 'latency.svg')) : 'bench/latency.svg',
    NOTES.map((f) => join(ROOT, 'bench', f)),
    values.to ? 'growth.svg' : 'bench/growth.svg',
  ),
);
console.log(`rewrote ${relative(ROOT, to) || to} from ${relative(ROOT, from)}`);
