/**
 * Issue 35's figure: a typed-question cycle costs no more Redis commands than a choice cycle. Runs
 * the Redis cost bench (bench/redis-cost.ts) three times on this machine, one after another: a
 * choice answered by a tap (today's row), a choice answered by a typed reply ("Staging"), and a
 * number question answered by a typed reply ("3.5"). The reply pair is the fair
 * comparison (same inbound path); the tap row is the reference.
 * Run: npx tsx bench/typed-cost.ts [cycles]   (default 200)
 */
import { redisCost, TAP_CHOICE, type CostShape, type RedisCostResult } from './redis-cost.js';

const cycles = Number(process.argv[2] ?? 200);
const choice = {
  id: 'env',
  question: 'Where should I deploy? (bench)',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const number = { id: 'gb', question: 'How much space? (bench)', kind: 'number', min: 1, max: 100, unit: 'GB' };
const shapes: [string, CostShape][] = [
  ['choice, tap', TAP_CHOICE],
  ['choice, typed reply "Staging"', { questions: [choice], answer: { reply: 'Staging', promptMarker: '(bench)' } }],
  ['number, typed reply "3.5"', { questions: [{ ...number }], answer: { reply: '3.5', promptMarker: '(bench)' } }],
];

const rows: [string, RedisCostResult][] = [];
for (const [name, shape] of shapes) rows.push([name, await redisCost(cycles, shape)]);
console.log(
  `| cycle (${cycles} cycles each, same machine, one after another) | client commands / cycle | executed by Redis / cycle | askgate socket writes / cycle |`,
);
console.log('|---|---:|---:|---:|');
for (const [name, r] of rows)
  console.log(
    `| ${name} | ${r.clientCommandsPerCycle.toFixed(2)} | ${r.serverCommandsPerCycle.toFixed(2)} | ${r.askgateClient.writesPerCycle.toFixed(2)} |`,
  );
process.exit(0);
