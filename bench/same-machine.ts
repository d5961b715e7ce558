/**
 * The code before issue 19, measured again on the run's own machine, in runs interleaved with the
 * code as it is: machines differ by up to 3× from session to session, so the targets that depend
 * on the CPU (cycles/s, CPU per cycle, the tap tail) are read as ratios against that code as well
 * as by their absolute figures, which were set on one machine.
 *
 * The code before runs from a git worktree of {@link BEFORE_ISSUE_19} (its dependencies are the
 * same ones: node_modules is linked). The full-cycle pairs run each tree's own `bench/one-row.ts`;
 * the tap pairs run this checkout's `tapToAgent` (fakes, agents, tap generator, warm-up) against
 * each tree's askgate child, so only askgate differs between the two runs of a pair. Every run is
 * a subprocess of its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { TapToAgentOptions } from './tap-to-agent.js';
import { ms, num } from './lib/stats.js';

/** The last commit before issue 19's changes: the "before" of its targets. */
export const BEFORE_ISSUE_19 = '2b6e1a8';

const ROOT = resolve(import.meta.dirname, '..');

/** The issue's own before and target figures, whose quotients are the ratios asked for. */
export const TARGET_RATIOS = {
  cyclesPerSecond: 1500 / 965,
  cpuMsPerCycle: 0.6 / 1.04,
  tapP99: 5 / 10.3,
};

export interface SameMachineOptions {
  /** Interleaved pairs of the Telegram × 100 full-cycle row. */
  cyclePairs: number;
  cycleMeasureMs: number;
  /** Interleaved pairs of the tap row. */
  tapPairs: number;
  tap: TapToAgentOptions;
}

/** One run of the full-cycle row. */
export interface CycleRun {
  cyclesPerSecond: number;
  cpuMsPerCycle: number;
}

/** One run of the tap row. */
export interface TapRun {
  p50: number;
  p99: number;
  max: number;
  taps: number;
  lost: number;
}

export interface SameMachineResult {
  rev: string;
  cycles: { before: CycleRun; now: CycleRun }[];
  taps: { before: TapRun; now: TapRun }[];
  tap: TapToAgentOptions;
}

/** Runs the pairs, the code before first in the 1st, 3rd, … pair and second in the others. */
export async function sameMachine(opts: SameMachineOptions, log: (msg: string) => void): Promise<SameMachineResult> {
  const before = prepareTree(BEFORE_ISSUE_19);
  try {
    const result: SameMachineResult = { rev: BEFORE_ISSUE_19, cycles: [], taps: [], tap: opts.tap };
    for (let i = 0; i < opts.cyclePairs; i++) {
      const pair = await inOrder(i, (tree) => cycleRun(tree, opts.cycleMeasureMs), before);
      log(
        `  pair ${i + 1}: before ${num(pair.before.cyclesPerSecond)} cycles/s at ${pair.before.cpuMsPerCycle} ms, now ${num(pair.now.cyclesPerSecond)} at ${pair.now.cpuMsPerCycle} ms`,
      );
      result.cycles.push(pair);
    }
    for (let i = 0; i < opts.tapPairs; i++) {
      const pair = await inOrder(i, (tree) => tapRun(tree, opts.tap), before);
      log(`  tap pair ${i + 1}: p99 before ${ms(pair.before.p99)} ms, now ${ms(pair.now.p99)} ms`);
      result.taps.push(pair);
    }
    return result;
  } finally {
    removeTree(before);
  }
}

async function inOrder<T>(
  i: number,
  run: (tree: string) => Promise<T>,
  before: string,
): Promise<{ before: T; now: T }> {
  if (i % 2 === 0) {
    const b = await run(before);
    return { before: b, now: await run(ROOT) };
  }
  const now = await run(ROOT);
  return { before: await run(before), now };
}

/** A worktree of `rev` with the checkout's node_modules linked in. */
function prepareTree(rev: string): string {
  const dir = join(tmpdir(), `askgate-bench-${rev}-${process.pid}`);
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', '--force', dir, rev], { stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function removeTree(dir: string): void {
  try {
    execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
  } catch {
    // left for `git worktree prune`
  }
}

/** Runs `node --import tsx <args>` in `tree` and returns its stdout; rejects on a non-zero exit. */
function runIn(tree: string, args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: tree, env: process.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', rej);
    child.on('close', (code) =>
      code === 0 ? res(out) : rej(new Error(`${args.join(' ')} in ${tree} exited ${code}: ${err.slice(-800)}`)),
    );
  });
}

/** The Telegram × 100 row of `tree`, from its `bench/one-row.ts` line. */
export async function cycleRun(tree: string, measureMs: number): Promise<CycleRun> {
  const out = await runIn(tree, ['bench/one-row.ts', 'telegram', '100', String(measureMs)]);
  return parseCycleLine(out);
}

/** Reads `… N cycles/s, …; CPU ms/cycle askgate X …` (the line both trees' one-row.ts print). */
export function parseCycleLine(out: string): CycleRun {
  const cycles = /(\d+) cycles\/s/.exec(out);
  const cpu = /CPU ms\/cycle askgate ([\d.]+)/.exec(out);
  if (!cycles || !cpu) throw new Error(`no full-cycle figures in: ${out.slice(-400)}`);
  return { cyclesPerSecond: Number(cycles[1]), cpuMsPerCycle: Number(cpu[1]) };
}

const TAP_SCRIPT = `import { tapToAgent } from '../tap-to-agent.js';
const r = await tapToAgent(JSON.parse(process.argv[2]));
console.log('TAP ' + JSON.stringify({ p50: r.latencyMs.p50, p99: r.latencyMs.p99, max: r.latencyMs.max, taps: r.taps, lost: r.lost }));
process.exit(0);
`;

/** The tap row against `tree`'s askgate (this checkout's `tapToAgent`, from a script in bench/results/). */
async function tapRun(tree: string, tap: TapToAgentOptions): Promise<TapRun> {
  const dir = join(ROOT, 'bench', 'results');
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const script = join(dir, `same-machine-tap-${process.pid}.mts`);
  writeFileSync(script, TAP_SCRIPT);
  const options: TapToAgentOptions = tree === ROOT ? tap : { ...tap, tree };
  const out = await runIn(ROOT, [relative(ROOT, script), JSON.stringify(options)]).finally(() =>
    rmSync(script, { force: true }),
  );
  const line = out.split('\n').find((l) => l.startsWith('TAP '));
  if (!line) throw new Error(`no tap figures in: ${out.slice(-400)}`);
  return JSON.parse(line.slice(4)) as TapRun;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The median ratios now / before of the three figures (NaN where there are no pairs). */
export function sameMachineRatios(r: SameMachineResult): {
  cyclesPerSecond: number;
  cpuMsPerCycle: number;
  tapP99: number;
} {
  return {
    cyclesPerSecond: medianRatio(r.cycles, (c) => c.cyclesPerSecond),
    cpuMsPerCycle: medianRatio(r.cycles, (c) => c.cpuMsPerCycle),
    tapP99: medianRatio(r.taps, (t) => t.p99),
  };
}

/** The median over `pairs` of a figure now / before (NaN without pairs). */
function medianRatio<T>(pairs: { before: T; now: T }[], figure: (run: T) => number): number {
  return pairs.length ? median(pairs.map((p) => figure(p.now) / figure(p.before))) : NaN;
}

/** The report's section: each pair, the median ratios and the ratios the targets ask for. */
export function renderSameMachine(r: SameMachineResult): string[] {
  const L: string[] = [];
  const verdict = (ratio: number, target: number, higherIsBetter: boolean) =>
    !Number.isFinite(ratio)
      ? 'not measured'
      : (higherIsBetter ? ratio >= target : ratio <= target)
        ? '**met**'
        : '**missed**';
  const list = (xs: number[], f: (x: number) => string) => xs.map((v) => f(v)).join(' / ');
  const x = (v: number) => `${v.toFixed(2)}×`;
  L.push('## Same machine: the code before issue 19', '');
  L.push(
    `The absolute targets were set on one machine; machines here differ by up to 3× from session to session. So the run also measures the code before issue 19 (commit ${r.rev}, from a git worktree) on this machine, in runs interleaved with the code now (the before code first in odd pairs, second in even ones), and reads the ratio each target asks for (target / the issue's "now"). The full-cycle pairs run each tree's own \`bench/one-row.ts\`; the tap pairs run this bench's tap row (fakes, agents, tap generator, ${r.tap.warmupSeconds ?? 5} s of warm-up taps) against each tree's askgate.`,
    '',
  );
  L.push(
    '| Figure | Before issue 19, each run | Now, each run | Ratio now / before, each pair | Median ratio | Ratio the target asks for | |',
  );
  L.push('|---|---|---|---|---|---|---|');
  /** One figure's row: each run before and now, each pair's ratio, their median, the target's ratio. */
  const row = <T>(
    title: string,
    pairs: { before: T; now: T }[],
    figure: (run: T) => number,
    show: (v: number) => string,
    target?: { ratio: number; from: string; higherIsBetter: boolean },
  ) => {
    const ratio = medianRatio(pairs, figure);
    const goal = target
      ? `${target.higherIsBetter ? '≥' : '≤'} ${x(target.ratio)} (${target.from}) | ${verdict(ratio, target.ratio, target.higherIsBetter)}`
      : '|';
    L.push(
      `| ${title} | ${list(
        pairs.map((p) => figure(p.before)),
        show,
      )} | ${list(
        pairs.map((p) => figure(p.now)),
        show,
      )} | ${list(
        pairs.map((p) => figure(p.now) / figure(p.before)),
        x,
      )} | ${x(ratio)} | ${goal} |`,
    );
  };
  const twoPlaces = (v: number) => v.toFixed(2);
  if (r.cycles.length) {
    row('Full cycles/s, Telegram × 100 (`bench/one-row.ts telegram 100`)', r.cycles, (c) => c.cyclesPerSecond, num, {
      ratio: TARGET_RATIOS.cyclesPerSecond,
      from: '1,500 / 965',
      higherIsBetter: true,
    });
    row('askgate CPU per full cycle, same runs (ms)', r.cycles, (c) => c.cpuMsPerCycle, twoPlaces, {
      ratio: TARGET_RATIOS.cpuMsPerCycle,
      from: '0.6 / 1.04',
      higherIsBetter: false,
    });
  }
  if (r.taps.length) {
    const plan = `${num(r.tap.pending)} pending, ${r.tap.tapsPerSecond} taps/s for ${r.tap.tapSeconds} s`;
    row(`Tap → agent p99, ${plan} (ms)`, r.taps, (t) => t.p99, ms, {
      ratio: TARGET_RATIOS.tapP99,
      from: '5 / 10.3',
      higherIsBetter: false,
    });
    row('Tap → agent p50, same runs (ms)', r.taps, (t) => t.p50, ms);
  }
  L.push('');
  return L;
}
