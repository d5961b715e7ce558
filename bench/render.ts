/**
 * Re-renders BENCHMARKS.md from the last full run (bench/results/latest-full.json), e.g. after
 * editing bench/OPTIMIZATIONS-19.md or bench/OPTIMIZATIONS.md, without measuring again (and
 * bench/growth.svg from the same results): `npx tsx bench/render.ts`.
 *
 *   npx tsx bench/render.ts --from=bench/results/latest-partial.json --to=/tmp/B.md
 *                           other results, written elsewhere (the charts beside --to)
 *   npx tsx bench/render.ts --merge=bench/results/latest-partial.json
 *                           first puts a partial run's parts (e.g. `--only=tap,same-machine` after
 *                           a change to the tap row) into the full results, saved back to --from,
 *                           and BENCHMARKS.md says which parts were re-run and when
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { growthChart, latencyChart } from './chart.js';
import { growthPoints, latencySeries, NOTES, renderMarkdown, type BenchResults } from './report.js';
import { mergeResults } from './merge-results.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { from: { type: 'string' }, to: { type: 'string' }, merge: { type: 'string' } },
  strict: true,
});
const from = resolve(values.from ?? join(ROOT, 'bench', 'results', 'latest-full.json'));
const to = resolve(values.to ?? join(ROOT, 'BENCHMARKS.md'));
if (!existsSync(from)) {
  console.error(`no results at ${from}: run \`npm run bench\` first (or pass --from=<results.json>)`);
  process.exit(1);
}
let results = JSON.parse(readFileSync(from, 'utf8')) as BenchResults;
if (values.merge) {
  results = mergeResults(results, JSON.parse(readFileSync(resolve(values.merge), 'utf8')) as BenchResults);
  writeFileSync(from, JSON.stringify(results, null, 1));
  console.log(
    `merged ${relative(ROOT, resolve(values.merge))} into ${relative(ROOT, from)}: ${results.reruns!.at(-1)!.parts.join(', ')}`,
  );
}
const chartFile = values.to ? join(dirname(to), 'latency.svg') : join(ROOT, 'bench', 'latency.svg');
writeFileSync(
  chartFile,
  latencyChart(
    `askgate latency by percentile (${results.mode} run, ${results.startedAt.slice(0, 10)})`,
    latencySeries(results),
  ),
);
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
    values.to ? 'latency.svg' : 'bench/latency.svg',
    NOTES.map((f) => join(ROOT, 'bench', f)),
    values.to ? 'growth.svg' : 'bench/growth.svg',
  ),
);
console.log(`rewrote ${relative(ROOT, to) || to} from ${relative(ROOT, from)}`);
