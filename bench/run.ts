/**
 * `npm run bench`: runs every scenario of issue 9 in sequence, each on its own private
 * redis-server and askgate child process, then writes BENCHMARKS.md and the latency chart.
 *
 *   npm run bench                     full run (about 55 minutes on 2 cores, 30 of them the
 *                                     1,000,000-pending timeout row; needs ~8 GiB free memory)
 *   npm run bench -- --quick          ~1-minute smoke with small sizes (also BENCH_QUICK=1)
 *   npm run bench -- --only=a,b       some of: baselines, full-cycle, api-cycle, tap, timeouts, million,
 *                                     restart, steps, memory, cost, same-machine (the code before
 *                                     issue 19 against now, interleaved, from a git worktree)
 *   npm run bench -- --only=million --million-count=20000   the 1,000,000-pending timeout row's code
 *                                     at a smaller count (same 1,667 deadlines/s)
 *   npm run bench -- --profile        CPU profile of askgate during the Telegram ×100 row
 *
 * Results: BENCHMARKS.md + bench/latency.svg (full run), bench/results/ otherwise; raw JSON in
 * bench/results/latest-<mode>.json. Diagnostics: BENCH_DEBUG=1 (phase timings, askgate's stdout),
 * BENCH_REDIS_ARGS="--opt value" (extra redis-server arguments for every scenario),
 * BENCH_REDIS_STALLS=<ms>/<everyMs> (Redis blocked while the timeouts fire; see bench/timeouts.ts).
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bullAddRemove, bullLateness, rawRedis } from './baselines.js';
import { latencyChart } from './chart.js';
import { fullCycle, type FullCycleOptions } from './full-cycle.js';
import { loadNow, machineInfo } from './lib/machine.js';
import { summarizeProfile, type ProfileSummary } from './profile-summary.js';
import { redisCost } from './redis-cost.js';
import { renderMarkdown, type BenchResults } from './report.js';
import { tapToAgent } from './tap-to-agent.js';
import { memoryNeededBytes, memoryPerAsk, timeouts } from './timeouts.js';
import { apiCycle } from './api-cycle.js';
import { restart } from './restart.js';
import { growthChart } from './chart.js';
import { growthPoints, latencySeries, NOTES } from './report.js';
import { steps } from './steps.js';
import { sameMachine } from './same-machine.js';

const ROOT = resolve(import.meta.dirname, '..');
const SCENARIOS = [
  'baselines',
  'full-cycle',
  'api-cycle',
  'tap',
  'timeouts',
  'million',
  'restart',
  'steps',
  'memory',
  'cost',
  'same-machine',
] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'million-count': { type: 'string' },
  },
  strict: true,
});
const quick = values.quick || process.env.BENCH_QUICK === '1';
const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null;
for (const s of only ?? [])
  if (!SCENARIOS.includes(s as Scenario))
    throw new Error(`--only: unknown scenario "${s}" (one of ${SCENARIOS.join(', ')})`);
const wanted = (s: Scenario) => !only || only.has(s);

const plan = quick
  ? {
      addRemove: { lanes: [1, 100], ms: 1500 },
      lateness: [{ jobs: 2000, spread: 5 }],
      cycles: [
        { channel: 'telegram', concurrency: 1, warmupMs: 1000, measureMs: 3000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 1500, measureMs: 4000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 1500, measureMs: 4000, replicas: 2 },
        { channel: 'slack', concurrency: 100, warmupMs: 1500, measureMs: 3000 },
        { channel: 'discord', concurrency: 100, warmupMs: 1500, measureMs: 3000 },
      ] as FullCycleOptions[],
      tap: { pending: 1000, tapsPerSecond: 100, tapSeconds: 5 },
      timeouts: [{ count: 2000, spreadSeconds: 5 }],
      million: { count: 5000, spreadSeconds: 3 },
      apiCycle: { warmupCycles: 100, cycles: 500 },
      restart: { count: 5000, sweepDelayMs: 15_000, telegram: true },
      steps: [{ count: 2000, spreadSeconds: 5 }],
      costCycles: 30,
      memory: 2000,
      sameMachine: {
        cyclePairs: 1,
        cycleMeasureMs: 2000,
        tapPairs: 1,
        tap: { pending: 1000, tapsPerSecond: 100, tapSeconds: 5, attribute: false },
      },
    }
  : {
      addRemove: { lanes: [1, 100, 1000], ms: 4000 },
      // The 1,000,000 row is the floor of the 1,000,000-pending timeout row (§3), same rate.
      lateness: [
        { jobs: 100_000, spread: 60 },
        { jobs: 1_000_000, spread: 600 },
      ],
      cycles: [
        { channel: 'telegram', concurrency: 1, warmupMs: 2000, measureMs: 8000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 3000, measureMs: 10_000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 3000, measureMs: 10_000, replicas: 2 },
        { channel: 'telegram', concurrency: 1000, warmupMs: 6000, measureMs: 10_000 },
        { channel: 'slack', concurrency: 100, warmupMs: 3000, measureMs: 10_000 },
        { channel: 'discord', concurrency: 100, warmupMs: 3000, measureMs: 10_000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 3000, measureMs: 10_000, telegramSendIntervalMs: 1000 },
        { channel: 'telegram', concurrency: 100, warmupMs: 3000, measureMs: 10_000, telegramMode: 'polling' },
      ] as FullCycleOptions[],
      tap: { pending: 10_000, tapsPerSecond: 100, tapSeconds: 30 },
      timeouts: [
        { count: 10_000, spreadSeconds: 60 },
        { count: 100_000, spreadSeconds: 60 },
      ],
      // At the 100,000 row's rate: 1,667 deadlines/s, so a 600 s window.
      million: { count: 1_000_000, spreadSeconds: 600 },
      apiCycle: { warmupCycles: 300, cycles: 3000 },
      // The first askgate's sweep delay covers the creation (100,000 at ≥ 1,200 asks/s).
      restart: { count: 100_000, sweepDelayMs: 150_000, telegram: true },
      steps: [{ count: 10_000, spreadSeconds: 60 }],
      costCycles: 200,
      memory: 100_000,
      sameMachine: {
        cyclePairs: 11,
        cycleMeasureMs: 6000,
        tapPairs: 3,
        tap: { pending: 10_000, tapsPerSecond: 100, tapSeconds: 30, attribute: false },
      },
    };

if (values['million-count']) {
  const count = Number(values['million-count']);
  if (!Number.isInteger(count) || count < 100) throw new Error('--million-count: a whole number ≥ 100');
  plan.million = { count, spreadSeconds: Math.max(1, Math.round((count / 1_000_000) * 600)) };
}

const resultsDir = join(ROOT, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });
const profileDir = join(resultsDir, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (msg: string) => console.log(`[bench ${elapsed()}] ${msg}`);

const results: BenchResults & { profile?: ProfileSummary } = {
  mode: quick ? 'quick' : 'full',
  command: `npm run bench${[quick ? ' --quick' : '', only ? ` --only=${[...only].join(',')}` : '', values['million-count'] ? ` --million-count=${values['million-count']}` : '', values.profile ? ' --profile' : ''].join('').replace(/^ /, ' -- ')}`,
  startedAt: new Date().toISOString(),
  durationSeconds: 0,
  machine: machineInfo(),
  loadStart: loadNow(),
  loadEnd: loadNow(),
  baselines: {},
  fullCycle: [],
  timeouts: [],
  failures: [],
};

async function step<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
  log(`${name} ...`);
  const t0 = Date.now();
  try {
    const out = await work();
    log(`${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return out;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`${name} FAILED: ${message}`);
    results.failures.push({ scenario: name, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

log(
  `mode ${results.mode}; load average ${results.loadStart.load.join(' / ')}; ${results.machine.cpuModel}, ${results.machine.cores} cores`,
);

if (wanted('baselines')) {
  results.baselines.raw = await step('baseline: raw Redis', () => rawRedis(quick));
  results.baselines.addRemove = await step('baseline: BullMQ add+remove', () =>
    bullAddRemove(plan.addRemove.lanes, plan.addRemove.ms),
  );
  results.baselines.lateness = [];
  for (const l of plan.lateness) {
    const r = await step(`baseline: BullMQ lateness ${l.jobs} jobs`, () => bullLateness(l.jobs, l.spread));
    if (r) results.baselines.lateness.push(r);
  }
}
if (wanted('full-cycle')) {
  for (const c of plan.cycles) {
    const profiled =
      values.profile &&
      c.channel === 'telegram' &&
      c.concurrency === 100 &&
      !c.telegramMode &&
      !c.telegramSendIntervalMs &&
      !c.replicas;
    const r = await step(
      `full cycle ${c.channel} ×${c.concurrency}${c.telegramMode ? ` ${c.telegramMode}` : ''}${c.telegramSendIntervalMs ? ` pacing ${c.telegramSendIntervalMs}` : ''}${c.replicas ? `, ${c.replicas} replicas` : ''}`,
      () => fullCycle({ ...c, ...(profiled ? { cpuProfDir: profileDir } : {}) }),
    );
    if (r) {
      results.fullCycle.push(r);
      log(
        `  ${r.label}: ${r.cyclesPerSecond.toFixed(0)} cycles/s, tap→agent p50 ${r.tapToAgentMs.p50.toFixed(1)} ms p99 ${r.tapToAgentMs.p99.toFixed(1)} ms, errors ${r.errors}`,
      );
    }
  }
}
if (wanted('same-machine')) {
  results.sameMachine = await step('same machine: the code before issue 19 against now, interleaved', () =>
    sameMachine(plan.sameMachine, log),
  );
}
if (wanted('api-cycle')) {
  results.apiCycle = await step(`one agent, API ask → API answer (${plan.apiCycle.cycles} cycles)`, () =>
    apiCycle(plan.apiCycle),
  );
  if (results.apiCycle)
    log(
      `  p50 ${results.apiCycle.cycleMs.p50.toFixed(2)} ms p99 ${results.apiCycle.cycleMs.p99.toFixed(2)} ms; askgate CPU ${results.apiCycle.askgateCpuMsPerCycle.toFixed(2)} ms/cycle; errors ${results.apiCycle.errors}`,
    );
}
if (wanted('tap')) {
  results.tapToAgent = await step(`tap to agent (${plan.tap.pending} pending)`, () => tapToAgent(plan.tap));
  if (results.tapToAgent)
    log(
      `  p50 ${results.tapToAgent.latencyMs.p50.toFixed(1)} ms p99 ${results.tapToAgent.latencyMs.p99.toFixed(1)} ms`,
    );
}
if (wanted('timeouts')) {
  for (const t of plan.timeouts) {
    const r = await step(`timeouts ${t.count}`, () => timeouts(t));
    if (r) {
      results.timeouts.push(r);
      log(
        `  created ${r.createPerSecond.toFixed(0)}/s; lateness p50 ${r.latenessMs.p50} p99 ${r.latenessMs.p99} max ${r.latenessMs.max} ms; missed ${r.missed}; ${r.memory.bytesPerAsk.toFixed(0)} B/ask`,
      );
    }
  }
}
if (wanted('million')) {
  const t = plan.million;
  const r = await step(
    `timeouts ${t.count} over ${t.spreadSeconds} s (needs ${(memoryNeededBytes(t.count) / 2 ** 30).toFixed(1)} GiB free)`,
    () => timeouts(t),
  );
  if (r) {
    results.timeouts.push(r);
    log(
      `  created ${r.createPerSecond.toFixed(0)}/s; lateness p50 ${r.latenessMs.p50} p99 ${r.latenessMs.p99} max ${r.latenessMs.max} ms; missed ${r.missed}; ${r.memory.bytesPerAsk.toFixed(0)} B/ask; Redis used_memory ${((r.memory.usedMemoryBytes ?? 0) / 2 ** 30).toFixed(2)} GiB`,
    );
  }
}
if (wanted('restart')) {
  const t = plan.restart;
  results.restart = await step(`restart with ${t.count} pending`, () => restart(t));
  if (results.restart) {
    const r = results.restart;
    log(
      `  listening ${r.listeningMs.toFixed(0)} ms, first answer ${r.firstAnswerMs.toFixed(0)} ms (${r.firstAnswerStatus}), first pass ${r.firstPassMs?.toFixed(0) ?? 'not done'} ms; due at kill ${r.dueAtKill}`,
    );
  }
}
if (wanted('steps')) {
  results.steps = [];
  for (const t of plan.steps) {
    const r = await step(`policy steps ${t.count} asks (reminder + escalation each)`, () => steps(t));
    if (r) {
      results.steps.push(r);
      log(
        `  fired ${r.fired}/${r.due} (${r.firedPerSecond.toFixed(0)}/s, busiest second ${r.peakPerSecond}); lateness p50 ${r.latenessMs.p50} p99 ${r.latenessMs.p99} max ${r.latenessMs.max} ms; missed ${r.missed}, early ${r.early}`,
      );
    }
  }
}
if (wanted('memory')) {
  const args = ['--hash-max-listpack-value', '1024'];
  const r = await step(`memory per ask with ${args.join(' ')} (${plan.memory} asks)`, () =>
    memoryPerAsk(plan.memory, args),
  );
  if (r) {
    results.memoryVariants = [r];
    log(`  ${r.bytesPerAsk.toFixed(0)} B/ask`);
  }
}
if (wanted('cost')) {
  results.redisCost = await step(`Redis cost (${plan.costCycles} cycles)`, () => redisCost(plan.costCycles));
}
if (values.profile) {
  try {
    const files = readdirSync(profileDir).map((f) => join(profileDir, f));
    const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
    if (largest) {
      results.profile = summarizeProfile(largest, 25);
      log(`CPU profile: ${largest}`);
    }
  } catch {
    // no profile written
  }
}

results.loadEnd = loadNow();
results.durationSeconds = (Date.now() - started) / 1000;
writeFileSync(join(resultsDir, `latest-${only ? 'partial' : results.mode}.json`), JSON.stringify(results, null, 1));

const series = latencySeries(results);
const partial = only !== null;
const chartFile =
  quick || partial
    ? join(resultsDir, `latency-${partial ? 'partial' : 'quick'}.svg`)
    : join(ROOT, 'bench', 'latency.svg');
const mdFile =
  quick || partial ? join(resultsDir, `BENCHMARKS-${partial ? 'partial' : 'quick'}.md`) : join(ROOT, 'BENCHMARKS.md');
writeFileSync(
  chartFile,
  latencyChart(`askgate latency by percentile (${results.mode} run, ${results.startedAt.slice(0, 10)})`, series),
);
const growthFile =
  quick || partial
    ? join(resultsDir, `growth-${partial ? 'partial' : 'quick'}.svg`)
    : join(ROOT, 'bench', 'growth.svg');
const growth = growthPoints(results);
if (growth.length)
  writeFileSync(
    growthFile,
    growthChart(`askgate cost by pending asks (${results.mode} run, ${results.startedAt.slice(0, 10)})`, growth),
  );
let md = renderMarkdown(
  results,
  quick || partial ? chartFile.slice(resultsDir.length + 1) : 'bench/latency.svg',
  NOTES.map((f) => join(ROOT, 'bench', f)),
  quick || partial ? growthFile.slice(resultsDir.length + 1) : 'bench/growth.svg',
);
if (results.profile) {
  const p = results.profile;
  md += `\n## CPU profile of askgate (Telegram ×100 row, \`--profile\`)\n\nBusy time ${p.busyMs} ms; shares of busy time.\n\n| Package | % |\n|---|---|\n${p.byPackage
    .slice(0, 15)
    .map((r) => `| ${r.name} | ${r.share} |`)
    .join('\n')}\n\n| Function (self) | % |\n|---|---|\n${p.byFunction
    .slice(0, 20)
    .map((r) => `| \`${r.name}\` | ${r.share} |`)
    .join('\n')}\n`;
}
writeFileSync(mdFile, md);
log(
  `wrote ${mdFile} and ${chartFile}${results.failures.length ? `; ${results.failures.length} scenario(s) failed` : ''}`,
);
process.exit(results.failures.length ? 1 : 0);
