/** Writes BENCHMARKS.md (and the latency chart) from the results of bench/run.ts. */
import { existsSync, readFileSync } from 'node:fs';
import type { MachineInfo } from './lib/machine.js';
import { ms, num } from './lib/stats.js';
import type { FullCycleResult } from './full-cycle.js';
import type { TapToAgentResult } from './tap-to-agent.js';
import type { MemoryResult, TimeoutsResult } from './timeouts.js';
import type { RedisCostResult } from './redis-cost.js';
import type { BullAddRemoveRow, BullLatenessResult, RawRedisResult } from './baselines.js';
import { replicaName, type Window } from './lib/stack.js';
import { stepsMarkdown, type StepsResult } from './steps.js';
import type { ApiCycleResult } from './api-cycle.js';
import type { RestartResult } from './restart.js';
import type { GrowthPoint, Series } from './chart.js';
import type { Rerun } from './merge-results.js';
import { renderSameMachine, sameMachineRatios, TARGET_RATIOS, type SameMachineResult } from './same-machine.js';

/** Notes copied into BENCHMARKS.md after the measurements (files in bench/): the optimisations newest first, then standalone rows. */
export const NOTES = [
  'OPTIMIZATIONS-19.md',
  'OPTIMIZATIONS.md',
  'EVENT-STREAMS-33.md',
  'SEAMS-34.md',
  'TYPED-35.md',
  'GUARD-37.md',
  'CHANNELS-39.md',
  'AUDIT-INSIGHTS-40.md',
  'LONG-WAITS-40.md',
];

export interface BenchResults {
  mode: 'quick' | 'full';
  command: string;
  startedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  loadStart: { uptime: string; load: number[] };
  loadEnd: { uptime: string; load: number[] };
  baselines: { raw?: RawRedisResult; addRemove?: BullAddRemoveRow[]; lateness?: BullLatenessResult[] };
  fullCycle: FullCycleResult[];
  tapToAgent?: TapToAgentResult;
  /** One agent, API ask → API answer → the agent returns (issue 19; absent in older results). */
  apiCycle?: ApiCycleResult;
  /** Restart with many pending asks (issue 19; absent in older results). */
  restart?: RestartResult;
  timeouts: TimeoutsResult[];
  redisCost?: RedisCostResult;
  memoryVariants?: MemoryResult[];
  /** Policy steps (reminders and escalations), section 3b. */
  steps?: StepsResult[];
  /** The code before issue 19 against now, on the same machine (absent in older results). */
  sameMachine?: SameMachineResult;
  failures: { scenario: string; error: string }[];
  /** Later partial runs merged in by `bench/render.ts --merge` (their parts replace this run's). */
  reruns?: Rerun[];
}

/** Issue 9's targets; those issue 19 does not replace still apply. */
const TARGETS = {
  bullRatio: 0.3,
  roundTrips: 8,
  latenessP99Ms: 50,
};

/** Issue 19's table: "before" is the issue's "now" column. */
const T19 = {
  cyclesPerSecond: { before: '965', target: 1500 },
  cpuMsPerCycle: { before: '1.04 ms', target: 0.6 },
  apiCycleP50Ms: { before: '~4.5 ms', target: 2 },
  roundTrips: { before: '32', target: 12 },
  tapP99Ms: { before: '10.3 ms', target: 5 },
  apiBytes: { before: '2,400 B', target: 1200 },
  telegramBytes: { before: '3,509 B', target: 1800 },
  millionLatenessP99Ms: { before: 'not measured', target: 50 },
  restartFirstAnswerMs: { before: 'not measured', target: 2000 },
  restartFirstPassMs: { before: 'not measured', target: 10_000 },
  /** Pending asks of the restart and timeout rows the targets are about. */
  restartCount: 100_000,
  millionCount: 1_000_000,
};

/** The timeout rows by pending count, for the growth table and chart (largest spread kept per count). */
export function growthPoints(results: Pick<BenchResults, 'timeouts'>): GrowthPoint[] {
  const byCount = new Map<number, TimeoutsResult>();
  for (const t of results.timeouts ?? []) if (!t.before) byCount.set(t.count, t);
  return [...byCount.values()]
    .sort((a, b) => a.count - b.count)
    .map((t) => ({
      pending: t.count,
      bytesPerAsk: t.memory.bytesPerAsk,
      createPerSecond: t.createPerSecond,
      latenessP50Ms: t.latenessMs.p50,
      latenessP99Ms: t.latenessMs.p99,
    }));
}

const cores = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(2));
const met = (ok: boolean | null) => (ok === null ? 'not measured' : ok ? '**met**' : '**missed**');

/** Who used the CPU in a window, and what that says about the limit. */
export function limitOf(w: Window, totalCores: number): string {
  const ask = w.child.cpuCores;
  const redis = w.cpu.byProcess.redis ?? NaN;
  const bench = w.cpu.byProcess.bench ?? NaN;
  const others = w.cpu.othersCores;
  const busy = w.cpu.machineBusyCores;
  const parts: string[] = [];
  const n = w.children.length;
  if (w.child.eventLoopUtilization >= 0.9)
    parts.push(
      n > 1
        ? `askgate's event loops (ELU max ${w.child.eventLoopUtilization.toFixed(2)}, mean ${w.child.eventLoopUtilizationMean.toFixed(2)} over ${n} processes)`
        : `askgate's event loop (ELU ${w.child.eventLoopUtilization.toFixed(2)})`,
    );
  if (redis >= 0.85) parts.push(`Redis (${redis.toFixed(2)} cores)`);
  if (busy >= totalCores * 0.9)
    parts.push(
      `the ${totalCores} cores are saturated (askgate ${cores(ask)}, Redis ${cores(redis)}, load generator + fakes ${cores(bench)}, other processes ${cores(others)})`,
    );
  if (parts.length === 0) parts.push('latency bound (nothing saturated: the closed loop waits on round trips)');
  const stalls = Object.entries(w.redis?.latency ?? {}).filter(([, v]) => v >= 50);
  if (stalls.length) parts.push(`Redis reported stalls (${stalls.map(([k, v]) => `${k} ${v} ms`).join(', ')})`);
  if (w.redis?.aofRewrites) parts.push(`${w.redis.aofRewrites} AOF rewrite(s) during the window`);
  if (w.child.loopDelayMs.max >= 50) parts.push(`askgate event-loop delay max ${w.child.loopDelayMs.max} ms`);
  return parts.join('; ');
}

/** askgate's CPU in cores: the total, and with replicas each process's share from /proc (`1.60 (0.80 + 0.80)`). */
function askgateCpu(w: Window): string {
  const each =
    w.children.length > 1 ? ` (${w.children.map((_, i) => cores(w.cpu.byProcess[replicaName(i)])).join(' + ')})` : '';
  return `${cores(w.child.cpuCores)}${each}`;
}

/** askgate's ELU: with replicas, the busiest process's and the mean. */
function askgateElu(w: Window): string {
  return w.children.length > 1
    ? `${w.child.eventLoopUtilization.toFixed(2)} max, ${w.child.eventLoopUtilizationMean.toFixed(2)} mean`
    : w.child.eventLoopUtilization.toFixed(2);
}

function baselinePairs(results: BenchResults, lanes: number): number | undefined {
  const rows = results.baselines.addRemove ?? [];
  const exact = rows.find((r) => r.lanes === lanes);
  if (exact) return exact.pairsPerSecond;
  return rows.length
    ? rows.reduce((a, b) => (Math.abs(b.lanes - lanes) < Math.abs(a.lanes - lanes) ? b : a)).pairsPerSecond
    : undefined;
}

export function renderMarkdown(
  results: BenchResults,
  chartPath: string,
  notesPaths: string | string[],
  growthPath = 'bench/growth.svg',
): string {
  return [
    ...headerSection(results),
    ...machineSection(results),
    ...summarySection(results),
    ...(results.sameMachine ? renderSameMachine(results.sameMachine) : []),
    ...howItIsMeasuredSection(),
    ...fullCycleSection(results),
    ...apiCycleSection(results.apiCycle),
    ...tapSection(results.tapToAgent, chartPath),
    ...timeoutsSection(results),
    ...growthSection(results, growthPath),
    ...(results.steps?.length ? [stepsMarkdown(results.steps)] : []),
    ...restartSection(results.restart),
    ...redisCostSection(results),
    ...baselinesSection(results),
    ...notesSection(notesPaths),
    ...rerunningSection(),
  ].join('\n');
}

/** The timeout rows of this run's own askgate (older results may hold rows of the removed `--ab` mode). */
const ownTimeouts = (results: BenchResults): TimeoutsResult[] => results.timeouts.filter((t) => !t.before);

/** The row with the most pending asks. */
const largestTimeouts = (rows: TimeoutsResult[]): TimeoutsResult | null =>
  rows.reduce<TimeoutsResult | null>((a, b) => (a && a.count >= b.count ? a : b), null);

/** The row whose Redis memory per pending API ask is quoted: 100,000 pending, else the largest. */
function apiMemoryRow(results: BenchResults): TimeoutsResult | null {
  const own = ownTimeouts(results);
  return own.find((t) => t.count === 100_000) ?? largestTimeouts(own);
}

/** The title, where the figures come from, merged re-runs, and a warning when the machine was busy. */
function headerSection(results: BenchResults): string[] {
  const m = results.machine;
  const L: string[] = [];
  const others = [
    ...results.fullCycle.map((r) => r.window.cpu.othersCores),
    ...results.timeouts.map((t) => t.window.cpu.othersCores),
    ...(results.tapToAgent ? [results.tapToAgent.window.cpu.othersCores] : []),
  ].filter(Number.isFinite);
  const meanOthers = others.length ? others.reduce((a, b) => a + b, 0) / others.length : NaN;
  // Measured in the windows themselves: the load average at the start trails whatever ran just before
  // (often the previous bench run), so it is shown but does not decide.
  const busy = meanOthers > 0.2;

  L.push('# askgate benchmarks', '');
  L.push(
    `Written by \`${results.command}\` (bench/run.ts) on ${results.startedAt}; ${results.mode} mode, ${Math.round(results.durationSeconds)} s. Do not edit by hand: re-run the bench.`,
    '',
  );
  for (const r of results.reruns ?? [])
    L.push(
      `Re-run on ${r.startedAt} with \`${r.command}\` (${Math.round(r.durationSeconds)} s), merged by \`bench/render.ts --merge\`: it replaced the full run's ${inWords(r.parts)} (the machine and load figures are the full run's).`,
      '',
    );
  if (busy) {
    L.push(
      `> **The machine was busy while these figures were taken.** Load average ${results.loadStart.load.join(' / ')} (1/5/15 min) at the start and ${results.loadEnd.load.join(' / ')} at the end; other processes used on average ${cores(meanOthers)} of the ${m.cores} cores during the measured windows (per-window figures below). Throughput and tail latencies are therefore pessimistic and noisy; CPU per cycle and Redis commands per cycle are the more stable figures. Re-run \`npm run bench\` on a quiet machine.`,
      '',
    );
  }
  return L;
}

/** ## Machine. */
function machineSection(results: BenchResults): string[] {
  const m = results.machine;
  const L: string[] = [];
  L.push('## Machine', '');
  L.push('| | |', '|---|---|');
  L.push(`| CPU | ${m.cpuModel}, ${m.cores} cores |`);
  L.push(`| Memory | ${m.memoryGiB} GiB |`);
  L.push(`| OS | ${m.kernel} |`);
  L.push(`| Node | ${m.node} |`);
  L.push(
    `| Redis | ${m.redis} (private \`redis-server --hz 100 --appendonly yes --appendfsync everysec --maxmemory-policy noeviction --save ''\`, a fresh one per scenario) |`,
  );
  L.push(
    `| Packages | ${Object.entries(m.packages)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
  );
  L.push(`| Load average at start | ${results.loadStart.load.join(' / ')} (\`${results.loadStart.uptime}\`) |`);
  L.push(`| Load average at end | ${results.loadEnd.load.join(' / ')} (\`${results.loadEnd.uptime}\`) |`);
  L.push('');
  return L;
}

/** ## Summary against the targets: issue 19's, the same-machine ratios, issue 9's, failed scenarios. */
function summarySection(results: BenchResults): string[] {
  return [...issue19Targets(results), ...sameMachineLine(results), ...issue9Targets(results), ...failures(results)];
}

/** The Telegram webhook rows of the full cycle (no pacing), the ones the targets speak of. */
const targetRows = (results: BenchResults): FullCycleResult[] =>
  results.fullCycle.filter(
    (r) => r.channel === 'telegram' && !r.telegramMode?.includes('polling') && !r.telegramSendIntervalMs,
  );

/** The row with the most cycles per second. */
const fastest = (rows: FullCycleResult[]) =>
  rows.reduce<FullCycleResult | null>((a, b) => (a && a.cyclesPerSecond >= b.cyclesPerSecond ? a : b), null);

/** The heading and issue 19's table of targets. */
function issue19Targets(results: BenchResults): string[] {
  const L: string[] = [];
  const tg = targetRows(results);
  const bestSingle = fastest(tg.filter((r) => r.replicas === 1));
  const singleOf = tg
    .filter((r) => r.replicas === 1)
    .map((r) => num(r.concurrency))
    .join('/');
  const tap = results.tapToAgent;
  const cost = results.redisCost;
  const api = results.apiCycle;
  const rs = results.restart;
  const own = ownTimeouts(results);
  const largest = largestTimeouts(own);
  const t100 = own.find((t) => t.count === 100_000) ?? null;
  const apiMemory = apiMemoryRow(results);
  const cpuRow = bestSingle;
  const cpuPerCycle = cpuRow ? (cpuRow.window.child.cpuCores * 1000) / Math.max(1e-9, cpuRow.cyclesPerSecond) : NaN;
  const at = (n: number) => `at ${num(n)} pending`;
  const row19 = (figure: string, before: string, target: string, measured: string, ok: boolean | null) =>
    L.push(`| ${figure} | ${before} | ${target} | ${measured} | ${met(ok)} |`);
  L.push('## Summary against the targets', '');
  L.push(
    'Targets are benchmarks, never test assertions. The targets of issue 19 ("before" is the issue\'s "now" column, measured before its changes):',
    '',
  );
  L.push('| Figure | Before | Target | Measured now | |');
  L.push('|---|---|---|---|---|');
  row19(
    `Full cycles/s, Telegram webhook, 1 askgate process (best of ${singleOf ? `${singleOf} runs` : 'the rows'})`,
    T19.cyclesPerSecond.before,
    `≥ ${num(T19.cyclesPerSecond.target)}`,
    bestSingle ? `${num(bestSingle.cyclesPerSecond)} at ${num(bestSingle.concurrency)} runs` : '—',
    bestSingle ? bestSingle.cyclesPerSecond >= T19.cyclesPerSecond.target : null,
  );
  row19(
    `askgate CPU per full cycle${cpuRow ? ` (the row above, ${cpuRow.label})` : ''}`,
    T19.cpuMsPerCycle.before,
    `≤ ${T19.cpuMsPerCycle.target} ms`,
    Number.isFinite(cpuPerCycle) ? `${cpuPerCycle.toFixed(2)} ms` : '—',
    Number.isFinite(cpuPerCycle) ? cpuPerCycle <= T19.cpuMsPerCycle.target : null,
  );
  row19(
    'One agent, API ask → API answer → agent returns, durable mode, p50 (§1b)',
    T19.apiCycleP50Ms.before,
    `≤ ${T19.apiCycleP50Ms.target} ms`,
    api ? `${ms(api.cycleMs.p50)} ms (p99 ${ms(api.cycleMs.p99)} ms)` : '—',
    api ? api.cycleMs.p50 <= T19.apiCycleP50Ms.target : null,
  );
  row19(
    'Sequential Redis round trips per full cycle (socket writes by askgate, cycles one after another)',
    T19.roundTrips.before,
    `≤ ${T19.roundTrips.target}`,
    cost
      ? `${cost.askgateClient.writesPerCycle.toFixed(1)} (${cost.clientCommandsPerCycle.toFixed(1)} commands sent)`
      : '—',
    cost ? cost.askgateClient.writesPerCycle <= T19.roundTrips.target : null,
  );
  row19(
    `Tap → agent p99, ${tap ? num(tap.pending) : '10,000'} pending, ${tap ? tap.tapsPerSecond : 100} taps/s`,
    T19.tapP99Ms.before,
    `≤ ${T19.tapP99Ms.target} ms`,
    tap ? `${ms(tap.latencyMs.p99)} ms` : '—',
    tap ? tap.latencyMs.p99 <= T19.tapP99Ms.target : null,
  );
  row19(
    `Redis memory per pending API ask, default Redis settings${apiMemory ? ` (${at(apiMemory.count)})` : ''}`,
    T19.apiBytes.before,
    `≤ ${num(T19.apiBytes.target)} B`,
    apiMemory ? `${num(apiMemory.memory.bytesPerAsk)} B` : '—',
    apiMemory ? apiMemory.memory.bytesPerAsk <= T19.apiBytes.target : null,
  );
  row19(
    `… per pending Telegram ask (record, delivery, indexes, job${tap ? `; ${at(tap.pending)}` : ''})`,
    T19.telegramBytes.before,
    `≤ ${num(T19.telegramBytes.target)} B`,
    tap ? `${num(tap.redisBytesPerPendingAsk)} B` : '—',
    tap ? tap.redisBytesPerPendingAsk <= T19.telegramBytes.target : null,
  );
  const million = largest && largest.count >= T19.millionCount ? largest : null;
  row19(
    `Timeouts at ${num(T19.millionCount)} pending: lateness p99 / missed (§3)`,
    T19.millionLatenessP99Ms.before,
    `< ${T19.millionLatenessP99Ms.target} ms / 0`,
    million
      ? `${ms(million.latenessMs.p99)} ms / ${num(million.missed)}`
      : largest && largest.count > (t100?.count ?? 0)
        ? `not at ${num(T19.millionCount)}; ${at(largest.count)}: ${ms(largest.latenessMs.p99)} ms / ${num(largest.missed)}`
        : '—',
    million ? million.latenessMs.p99 < T19.millionLatenessP99Ms.target && million.missed === 0 : null,
  );
  const fullRestart = rs && rs.count >= T19.restartCount ? rs : null;
  const restartText = (r: RestartResult) =>
    `${(r.firstAnswerMs / 1000).toFixed(2)} s / ${r.firstPassMs === null ? 'not done' : `${(r.firstPassMs / 1000).toFixed(2)} s`} (from the spawn; listening at ${(r.listeningMs / 1000).toFixed(2)} s${r.emptyListeningMs !== undefined ? `, with an empty Redis at ${(r.emptyListeningMs / 1000).toFixed(2)} s` : ''})`;
  row19(
    `Restart with ${num(T19.restartCount)} pending: first answer served / first reconciler pass done (§6)`,
    T19.restartFirstAnswerMs.before,
    `< ${T19.restartFirstAnswerMs.target / 1000} s / < ${T19.restartFirstPassMs.target / 1000} s`,
    fullRestart
      ? restartText(fullRestart)
      : rs
        ? `not at ${num(T19.restartCount)}; ${at(rs.count)}: ${restartText(rs)}`
        : '—',
    fullRestart
      ? fullRestart.firstAnswerMs < T19.restartFirstAnswerMs.target &&
          fullRestart.firstPassMs !== null &&
          fullRestart.firstPassMs < T19.restartFirstPassMs.target
      : null,
  );
  L.push('');
  return L;
}

/** The ratios against the code before issue 19 on this machine (when the run measured them). */
function sameMachineLine(results: BenchResults): string[] {
  const L: string[] = [];
  if (results.sameMachine) {
    const r = sameMachineRatios(results.sameMachine);
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '—');
    L.push(
      `Against the code before issue 19 on this same machine, in interleaved runs (medians; see "Same machine" below): full cycles/s ${x(r.cyclesPerSecond)} (the target asks ≥ ${x(TARGET_RATIOS.cyclesPerSecond)}), askgate CPU per cycle ${x(r.cpuMsPerCycle)} (≤ ${x(TARGET_RATIOS.cpuMsPerCycle)}), tap → agent p99 ${x(r.tapP99)} (≤ ${x(TARGET_RATIOS.tapP99)}).`,
      '',
    );
  }
  return L;
}

/** Issue 9's targets that issue 19 does not replace. */
function issue9Targets(results: BenchResults): string[] {
  const L: string[] = [];
  const tg = targetRows(results);
  const best = fastest(tg);
  const bestRatio = best ? best.cyclesPerSecond / (baselinePairs(results, best.concurrency) ?? NaN) : NaN;
  const t100 = ownTimeouts(results).find((t) => t.count === 100_000) ?? null;
  L.push("Issue 9's targets that issue 19 does not replace:", '');
  L.push('| Figure | Target | Measured | |');
  L.push('|---|---|---|---|');
  L.push(
    `| Full cycles/s as a share of bare BullMQ delayed add+remove (same concurrency; best Telegram row${best ? `, ${best.label}` : ''}) | ≥ ${TARGETS.bullRatio} | ${Number.isFinite(bestRatio) ? bestRatio.toFixed(2) : '—'} | ${met(Number.isFinite(bestRatio) ? bestRatio >= TARGETS.bullRatio : null)} |`,
  );
  const loaded = results.fullCycle.find((r) => r === best);
  const loadedWrites = loaded && loaded.concurrency > 1 ? loaded.perCycle.clientWrites : undefined;
  L.push(
    `| Redis round trips per cycle under load (${loaded ? loaded.label : '—'}) | ≤ ${TARGETS.roundTrips} | ${loadedWrites !== undefined ? `${loadedWrites.toFixed(1)} (${loaded!.perCycle.clientCommands.toFixed(1)} commands sent)` : '—'} | ${met(loadedWrites !== undefined ? loadedWrites <= TARGETS.roundTrips : null)} |`,
  );
  L.push(
    `| Timeout lateness p99 / missed (${t100 ? num(t100.count) : '100,000'} pending) | < ${TARGETS.latenessP99Ms} ms / 0 | ${t100 ? `${ms(t100.latenessMs.p99)} ms / ${num(t100.missed)}` : '—'} | ${met(t100 ? t100.latenessMs.p99 < TARGETS.latenessP99Ms && t100.missed === 0 : null)} |`,
  );
  const steps = results.steps?.reduce<StepsResult | null>((a, b) => (a && a.count >= b.count ? a : b), null);
  L.push(
    `| Policy step lateness p99 / missed (${steps ? num(steps.count) : '—'} pending, a reminder and an escalation each; §3b) | < ${TARGETS.latenessP99Ms} ms / 0 | ${steps ? `${ms(steps.latenessMs.p99)} ms / ${num(steps.missed)}` : '—'} | ${met(steps ? steps.latenessMs.p99 < TARGETS.latenessP99Ms && steps.missed === 0 : null)} |`,
  );
  L.push('');
  return L;
}

/** The scenarios that failed, with the start of their error. */
function failures(results: BenchResults): string[] {
  const L: string[] = [];
  if (results.failures.length) {
    L.push('**Scenarios that failed:**', '');
    for (const f of results.failures) L.push(`- ${f.scenario}: \`${f.error.slice(0, 300)}\``);
    L.push('');
  }
  return L;
}

/** ## How it is measured. */
function howItIsMeasuredSection(): string[] {
  const L: string[] = [];
  L.push('## How it is measured', '');
  L.push(
    '- askgate runs as a child process (`bench/askgate-child.ts`: `startAskgate` with the normal config, `REDIS_URL` to the private Redis) so its CPU, event loop and Redis traffic are measured apart from the load generator. The fakes of Telegram, Slack and Discord from `test/fakes` and the load generator share the bench process. Everything runs on the same cores: the figures are for askgate, Redis and the load generator together.',
    '- Agents call `POST /v1/asks?wait=60` (create and long-poll in one call) in a closed loop, one run (`runId`) and one chat per concurrent agent; the cycle ends when that call returns `answered`. A simulated human taps the first option as soon as the fake stores the message.',
    "- **Telegram** runs in webhook mode: the bench posts each tap update to `/telegram/webhook` like Telegram does, at most 40 at a time (Telegram's default `max_connections`). The per-chat send pacing (askgate's default 1 message/s per chat) is set to 0 for the throughput rows through the channel's `minSendIntervalMs` option (bench-only; a chat can never take more than about one message a second on real Telegram, so real throughput needs many chats). One row keeps the 1 s pacing to show its effect. **Slack** runs in HTTP mode (signed `block_actions` posted to `/slack/events`); **Discord** taps arrive as `INTERACTION_CREATE` on the fake gateway.",
    "- Tap to agent: from the moment the tap's update leaves the bench for askgate (webhook POST) to the moment the agent's waiting `GET /v1/asks/:id?wait=600` returns; all pending asks have an agent waiting.",
    '- Timeouts: API asks (no chat) created through `POST /v1/asks`; each gets a `timeoutSeconds` (whole seconds, `ASKGATE_TIMEOUT_MIN_SECONDS=1`) and is sent at the instant that makes `createdAt + timeoutSeconds` land on its target, so the deadlines spread evenly over the spread (a minute for 10,000 and 100,000 pending, ten minutes for 1,000,000: 1,667 deadlines/s like the 100,000 row) starting about 5 s after the projected end of creation (projected from a calibration burst of asks that are cancelled again; up to 3,000 asks placed at once on a fixed set of loops, so the create rate is askgate\'s when askgate is the limit; the load generator keeps only typed arrays per ask, and its CPU while creating is given under each row). Lateness = `result.at` − `expiresAt` as askgate recorded them; "observed" = when a Redis subscriber to askgate\'s `resolved` channel heard of it − deadline. "Missed" = not resolved, resolved otherwise than by timeout, or later than the reconciler grace (5 s: the reconciler, not the timeout job, ended it).',
    '- **Several askgate processes** (the "2 askgate processes" row): replicas on the same Redis, each its own child process and port, as behind a load balancer. Agent i calls replica i mod N; the tap updates go to the replicas round-robin (one Telegram webhook URL behind a balancer), so an agent waiting on one replica is often answered through a tap on the other (its waiter wakes through askgate\'s Redis pub/sub); the BullMQ workers of every replica take deliveries and timeouts. Their CPU, Redis commands and log lines are summed; ELU is given for the busiest replica and as the mean.',
    '- CPU: per process from `/proc` over each measured window (1.00 = one core busy); "others" is the rest of the machine. ELU = askgate\'s event-loop utilisation. With several askgate processes, the askgate column is their total followed by each process (askgate + askgate-2).',
    '',
  );
  return L;
}

/** ## 1. Full cycle. */
function fullCycleSection(results: BenchResults): string[] {
  const m = results.machine;
  const L: string[] = [];
  L.push('## 1. Full cycle: ask → delivery → tap → the agent returns', '');
  L.push(
    '| Channel × concurrent runs | Cycles/s | vs bare BullMQ add+remove | Cycle p50 / p99 ms | Tap→agent p50 / p99 ms | askgate CPU ms/cycle | Redis CPU ms/cycle | askgate ELU | CPU: askgate / Redis / bench / others (cores) | Errors |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results.fullCycle) {
    const base = baselinePairs(results, r.concurrency);
    const w = r.window;
    const redisCores = w.cpu.byProcess.redis ?? NaN;
    L.push(
      `| ${r.label} | ${num(r.cyclesPerSecond)} | ${base ? (r.cyclesPerSecond / base).toFixed(2) : '—'} | ${ms(r.cycleMs.p50)} / ${ms(r.cycleMs.p99)} | ${ms(r.tapToAgentMs.p50)} / ${ms(r.tapToAgentMs.p99)} | ${((w.child.cpuCores * 1000) / Math.max(1e-9, r.cyclesPerSecond)).toFixed(2)} | ${((redisCores * 1000) / Math.max(1e-9, r.cyclesPerSecond)).toFixed(2)} | ${askgateElu(w)} | ${askgateCpu(w)} / ${cores(redisCores)} / ${cores(w.cpu.byProcess.bench)} / ${cores(w.cpu.othersCores)} | ${r.errors + r.counts.tapErrors}${r.askgateProblems.count ? ` (${r.askgateProblems.count} log lines)` : ''} |`,
    );
  }
  L.push('');
  L.push('What limits each row:', '');
  for (const r of results.fullCycle) L.push(`- ${r.label}: ${limitOf(r.window, m.cores)}.`);
  L.push('');
  for (const r of results.fullCycle.filter((x) => x.tapToAgentByReplica)) {
    const { same, cross } = r.tapToAgentByReplica!;
    L.push(
      `${r.label}, tap to agent by where the tap arrived: on the replica the agent waits on p50 ${ms(same.p50)} / p99 ${ms(same.p99)} ms (${num(same.count)} cycles); on another replica, so the wake crossed Redis pub/sub, p50 ${ms(cross.p50)} / p99 ${ms(cross.p99)} ms (${num(cross.count)} cycles).`,
      '',
    );
  }
  const problems = results.fullCycle.filter((r) => r.askgateProblems.count || r.errorSamples.length);
  if (problems.length) {
    L.push('<details><summary>Errors and askgate warnings</summary>', '');
    for (const r of problems) {
      L.push(`**${r.label}**`, '');
      for (const s of [...r.errorSamples, ...r.askgateProblems.samples]) L.push(`    ${s}`);
      L.push('');
    }
    L.push('</details>', '');
  }
  return L;
}

/** ## 1b. One agent through the API. */
function apiCycleSection(api: ApiCycleResult | undefined): string[] {
  const L: string[] = [];
  L.push('## 1b. One agent: API ask → API answer → the agent returns', '');
  if (api) {
    const w = api.window;
    L.push(
      `One agent in a closed loop calls \`POST /v1/asks?wait=60\` (an API ask, no chat; durable mode, askgate's normal Redis backend); a second HTTP client hears of the ask from askgate's history announcement on Redis pub/sub and answers it at once with \`POST /v1/asks/:id/answer\`; the cycle ends when the agent's call returns \`answered\`. ${num(api.cycles)} cycles after a warm-up, one after another.`,
      '',
    );
    L.push(
      '| Cycles | Cycle p50 / p90 / p99 / max | Ask sent → answerer heard of it p50 / p99 | Answer sent → agent returned p50 / p99 | askgate CPU ms/cycle | Commands sent / socket writes / commands Redis executed, per cycle | CPU: askgate / Redis / bench / others (cores) | Errors |',
      '|---|---|---|---|---|---|---|---|',
    );
    L.push(
      `| ${num(api.cycles)} (${num(api.cyclesPerSecond)}/s) | ${ms(api.cycleMs.p50)} / ${ms(api.cycleMs.p90)} / ${ms(api.cycleMs.p99)} / ${ms(api.cycleMs.max)} ms | ${ms(api.seenMs.p50)} / ${ms(api.seenMs.p99)} ms | ${ms(api.answerToAgentMs.p50)} / ${ms(api.answerToAgentMs.p99)} ms | ${api.askgateCpuMsPerCycle.toFixed(2)} | ${api.perCycle.clientCommands.toFixed(1)} / ${api.perCycle.clientWrites.toFixed(1)} / ${api.perCycle.redisServerCommands.toFixed(1)} | ${cores(w.child.cpuCores)} / ${cores(w.cpu.byProcess.redis)} / ${cores(w.cpu.byProcess.bench)} / ${cores(w.cpu.othersCores)} | ${api.errors}${api.fallbacks ? ` (${api.fallbacks} asks found by polling the run: no announcement within 200 ms)` : ''}${api.askgateProblems.count ? ` (${api.askgateProblems.count} log lines)` : ''} |`,
    );
    L.push('');
    if (api.errorSamples.length || api.askgateProblems.samples.length) {
      L.push('<details><summary>Errors and askgate warnings</summary>', '');
      for (const e of [...api.errorSamples, ...api.askgateProblems.samples]) L.push(`    ${e}`);
      L.push('', '</details>', '');
    }
  } else L.push('Not measured in this run (`--only=api-cycle`).', '');
  return L;
}

/** ## 2. Tap to agent, with the latency chart. */
function tapSection(tap: TapToAgentResult | undefined, chartPath: string): string[] {
  const L: string[] = [];
  L.push('## 2. Tap to agent', '');
  if (tap) {
    L.push(
      `${num(tap.pending)} asks pending on Telegram (one chat each, every one with an agent waiting), humans tapping at a steady ${tap.tapsPerSecond} taps/s for ${num(tap.taps / tap.tapsPerSecond)} s (${num(tap.taps)} taps; achieved ${tap.achievedTapsPerSecond.toFixed(1)}/s).${warmupLine(tap)}`,
      '',
    );
    L.push('| p50 | p90 | p99 | max | mean | lost | askgate ELU | CPU: askgate / Redis / bench / others |');
    L.push('|---|---|---|---|---|---|---|---|');
    const w = tap.window;
    L.push(
      `| ${ms(tap.latencyMs.p50)} ms | ${ms(tap.latencyMs.p90)} ms | ${ms(tap.latencyMs.p99)} ms | ${ms(tap.latencyMs.max)} ms | ${ms(tap.latencyMs.mean)} ms | ${tap.lost}${tap.lost && tap.lostWhy ? ` (${tap.lostWhy.tapErrors} tap posts and ${tap.lostWhy.pollErrors} waiting calls failed)` : ''} | ${w.child.eventLoopUtilization.toFixed(2)} | ${cores(w.child.cpuCores)} / ${cores(w.cpu.byProcess.redis)} / ${cores(w.cpu.byProcess.bench)} / ${cores(w.cpu.othersCores)} |`,
    );
    L.push('');
    L.push(
      `Setting up: ${num(tap.pending + (tap.warmup?.taps ?? 0))} asks created in ${tap.createSeconds.toFixed(1)} s (${num(tap.createPerSecond)} asks/s through the API, 100 in flight), all delivered after ${tap.deliveredSeconds.toFixed(1)} s. Redis memory with these Telegram asks pending: ${num(tap.redisBytesPerPendingAsk)} B per ask (record with its delivery, conversation index, message binding, timeout job). askgate's event-loop delay during the taps: p50 ${tap.window.child.loopDelayMs.p50} ms, p99 ${tap.window.child.loopDelayMs.p99} ms, max ${tap.window.child.loopDelayMs.max} ms.${gcLine(tap.window.child.gc, tap.window.seconds)}`,
      '',
    );
    if (tap.gc) {
      const o = tap.gc.latencyOutsidePausesMs;
      L.push(
        `Taps against garbage collection: ${num(tap.gc.tapsDuringAPause)} of ${num(tap.taps - tap.lost)} taps were in flight (update sent → agent returned) while askgate (${num(tap.gc.askgatePauses)} pauses) or the bench process, which runs the fake Telegram and the waiting agents (${num(tap.gc.benchPauses)} pauses), paused for GC. The other ${num(o.count)} taps: p50 ${ms(o.p50)} ms, p90 ${ms(o.p90)} ms, p99 ${ms(o.p99)} ms, max ${ms(o.max)} ms.`,
        '',
      );
    }
    if (tap.stalls) {
      const st = tap.stalls;
      const o = st.latencyOutsideStallsMs;
      L.push(
        `Taps against event-loop stalls (a loop more than 3 ms late to its 1 ms timer: a long task, a burst of callbacks, a GC pause, the process descheduled): askgate's loop stalled ${num(st.askgateStalls)} times during the taps and ${num(st.tapsDuringAskgateStall)} taps were in flight during one; of the others, ${num(st.tapsDuringBenchStall)} were in flight while the bench process's loop stalled (${num(st.benchStalls)} stalls). The ${num(o.count)} taps neither loop held up: p50 ${ms(o.p50)} ms, p90 ${ms(o.p90)} ms, p99 ${ms(o.p99)} ms, max ${ms(o.max)} ms.`,
        '',
      );
    }
  } else L.push('Not run.', '');
  L.push(`![Latency by percentile](${chartPath})`, '');
  return L;
}

/** ## 3. Timeout precision. */
function timeoutsSection(results: BenchResults): string[] {
  const L: string[] = [];
  L.push('## 3. Timeout precision', '');
  if (results.timeouts.length) {
    L.push(
      '| Pending asks | Created in | Create rate (request p50 / p99) | Deadlines spread over | Lateness p50 / p90 / p99 / max | Observed by a subscriber p50 / p99 / max | Missed | Bare BullMQ, same count and spread: p50 / p99 / max | p99 vs bare BullMQ |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|');
    for (const t of results.timeouts) {
      const base = (results.baselines.lateness ?? []).find((b) => b.jobs === t.count);
      L.push(
        `| ${num(t.count)} | ${t.createSeconds.toFixed(1)} s | ${num(t.createPerSecond)}/s (${ms(t.createMs.p50)} / ${ms(t.createMs.p99)} ms) | ${t.deadlineSpanSeconds.toFixed(0)} s | ${ms(t.latenessMs.p50)} / ${ms(t.latenessMs.p90)} / ${ms(t.latenessMs.p99)} / ${ms(t.latenessMs.max)} ms | ${ms(t.observedMs.p50)} / ${ms(t.observedMs.p99)} / ${ms(t.observedMs.max)} ms${t.observedSampled && t.observedSampled > 1 ? ` (every ${t.observedSampled}th ask)` : ''} | ${t.missed}${t.createErrors ? ` (${t.createErrors} creates failed)` : ''} | ${base ? `${ms(base.latenessMs.p50)} / ${ms(base.latenessMs.p99)} / ${ms(base.latenessMs.max)} ms` : '—'} | ${base ? `${(t.latenessMs.p99 / Math.max(1, base.latenessMs.p99)).toFixed(1)}×` : '—'} |`,
      );
    }
    L.push('');
    for (const t of results.timeouts) {
      const w = t.window;
      L.push(
        `- ${num(t.count)}: ${t.createCpu ? `while the asks were created the load generator used ${cores(t.createCpu.byProcess.bench)} cores, askgate ${cores(t.createCpu.byProcess.askgate)}, Redis ${cores(t.createCpu.byProcess.redis)}, other processes ${cores(t.createCpu.othersCores)}; ` : ''}${t.deadlinesBeforeCreateEnd ? `${num(t.deadlinesBeforeCreateEnd)} deadlines fell before creation ended (creation overlapped the firing); ` : t.idleBeforeDeadlinesSeconds !== undefined ? `the first deadline came ${t.idleBeforeDeadlinesSeconds.toFixed(0)} s after the creation ended; ` : ''}while the timeouts fired askgate used ${cores(w.child.cpuCores)} cores (ELU ${w.child.eventLoopUtilization.toFixed(2)}, event-loop delay p99 ${w.child.loopDelayMs.p99} ms, max ${w.child.loopDelayMs.max} ms), Redis ${cores(w.cpu.byProcess.redis)}, other processes ${cores(w.cpu.othersCores)}.`,
      );
    }
    for (const t of results.timeouts.filter((x) => x.createErrorSamples?.length))
      L.push(
        `- ${num(t.count)}: ${num(t.createErrors)} creates failed, e.g. ${t.createErrorSamples!.map((e) => `\`${e}\``).join(', ')}.`,
      );
    L.push('');
  } else L.push('Not run.', '');
  return L;
}

/** ### Growth with the number of pending asks, and the largest row's lateness by slice. */
function growthSection(results: BenchResults, growthPath: string): string[] {
  const own = ownTimeouts(results);
  const L: string[] = [];
  L.push(`### Growth: ${num(10_000)} → ${num(T19.millionCount)} pending`, '');
  const growth = growthPoints(results);
  if (growth.length > 1 || (growth.length === 1 && growth[0]!.pending >= T19.millionCount)) {
    const rowsOf = new Map(own.map((t) => [t.count, t]));
    L.push(
      'The timeout rows above side by side: Redis bytes per pending API ask, how fast askgate took the asks, and how late their timeouts fired.',
      '',
    );
    L.push(
      '| Pending asks | Redis B/ask | Redis used_memory / RSS with all pending | Create rate | Deadlines/s | Lateness p50 / p99 | Missed |',
      '|---|---|---|---|---|---|---|',
    );
    for (const g of growth) {
      const t = rowsOf.get(g.pending)!;
      const mib = (b: number | undefined) => (b === undefined ? '—' : `${num(b / 2 ** 20)} MiB`);
      L.push(
        `| ${num(g.pending)} | ${num(g.bytesPerAsk)} | ${mib(t.memory.usedMemoryBytes)} / ${mib(t.memory.rssBytes)} | ${num(g.createPerSecond)}/s | ${num(t.count / Math.max(1, t.deadlineSpanSeconds))} | ${ms(g.latenessP50Ms)} / ${ms(g.latenessP99Ms)} ms | ${num(t.missed)} |`,
      );
    }
    L.push('', `![Cost growth by pending asks](${growthPath})`, '');
  } else
    L.push(
      `Not measured in this run: needs the timeout rows at several counts (\`--only=timeouts,million\`; the ${num(T19.millionCount)} row is \`million\`).`,
      '',
    );

  const largestRow = largestTimeouts(own);
  if (largestRow && largestRow.count >= 100_000) L.push(...lateSlices(largestRow), '');
  return L;
}

/** ## 6. Restart with many pending asks. */
function restartSection(rs: RestartResult | undefined): string[] {
  const L: string[] = [];
  L.push(`## 6. Restart with ${rs ? num(rs.count) : num(T19.restartCount)} pending asks`, '');
  if (rs) {
    const ok = (v: number | null) => (v === null ? 'not done within 300 s' : `${(v / 1000).toFixed(2)} s`);
    L.push(
      `${num(rs.count)} ${rs.telegram ? 'asks to a Telegram chat each (1-hour timeout), created and delivered' : 'API asks (1-hour timeout) created'} in ${rs.createSeconds.toFixed(1)} s (${num(rs.createPerSecond)}/s${rs.createErrors ? `, ${num(rs.createErrors)} failed` : ''}) on askgate with \`ASKGATE_SWEEP_DELAY_MS=${rs.sweepDelayMs}\`; askgate killed with SIGKILL with ${num(rs.marksAtKill)} sweep marks stored, ${num(rs.dueAtKill)} of them due; then every mark was made due (${num(rs.dueAtRestart)}: the worst case, a crash that leaves every ask to re-check; a delivered ask's mark otherwise sits at its deadline), and askgate restarted ${rs.downSeconds.toFixed(1)} s after the kill (default settings). Times from the new process's spawn (Node and tsx loading included${rs.emptyListeningMs !== undefined ? `; the same start on an empty Redis, the first process, listened after ${(rs.emptyListeningMs / 1000).toFixed(2)} s` : ''}):`,
      '',
    );
    L.push(
      '| Listening | First answer served (an agent waits on a pending ask, another client answers it) | First reconciler pass done (no sweep mark due) | askgate event-loop delay during the pass p50 / p99 / max | askgate CPU during the pass | Redis commands during the pass |',
      '|---|---|---|---|---|---|',
    );
    const d = rs.duringPass;
    L.push(
      `| ${ok(rs.listeningMs)} | ${ok(rs.firstAnswerMs)} (${ok(rs.firstAnswerAfterListenMs)} after listening; ${rs.firstAnswerStatus}) | ${ok(rs.firstPassMs)}${rs.firstPassAfterListenMs !== null ? ` (${ok(rs.firstPassAfterListenMs)} after listening)` : ''} | ${d.loopDelayMs.p50} / ${d.loopDelayMs.p99} / ${d.loopDelayMs.max} ms | ${num(d.cpuMs)} ms | ${num(d.redisCommands)} |`,
    );
    L.push('');
    if (rs.askgateProblems.count)
      L.push(
        `askgate logged ${rs.askgateProblems.count} warning/error lines after the restart, e.g. \`${(rs.askgateProblems.samples[0] ?? '').slice(0, 200)}\`.`,
        '',
      );
  } else L.push('Not measured in this run (`--only=restart`).', '');
  return L;
}

/** ## 4. Redis cost: commands and writes per cycle, then memory per pending ask. */
function redisCostSection(results: BenchResults): string[] {
  const cost = results.redisCost;
  const apiMemory = apiMemoryRow(results);
  const L: string[] = [];
  L.push('## 4. Redis cost', '');
  if (cost) {
    L.push(
      `One Telegram run, ${cost.cycles} cycles one after another (ask, delivery, tap, answer, message edit), MONITOR on, net of the idle background (${cost.idlePerSecond.toFixed(1)} commands/s while idle: BullMQ workers' blocking polls and the reconciler).`,
      '',
    );
    L.push('| Per cycle | |', '|---|---|');
    L.push(`| Commands sent by askgate's clients (each EVALSHA once) | ${cost.clientCommandsPerCycle.toFixed(1)} |`);
    L.push(
      `| Socket writes by askgate (round trips on the wire: a command alone, or one pipeline) | ${cost.askgateClient.writesPerCycle.toFixed(1)} |`,
    );
    L.push(
      `| Commands Redis executed (INFO commandstats, script-internal calls included) | ${cost.serverCommandsPerCycle.toFixed(1)} |`,
    );
    L.push(
      `| By connection | ${Object.entries(cost.byConnection)
        .map(([k, v]) => `${k.replace(/^\{bench\}:/, 'BullMQ ')}: ${v}`)
        .join(', ')} |`,
    );
    L.push('');
    const satur = results.fullCycle.filter((r) => r.concurrency >= 100 && !r.telegramSendIntervalMs);
    if (satur.length) {
      L.push('Under load (the full-cycle windows), per completed cycle:', '');
      L.push('| Row | Commands sent | Socket writes | Commands executed by Redis |', '|---|---|---|---|');
      for (const r of satur)
        L.push(
          `| ${r.label} | ${r.perCycle.clientCommands.toFixed(1)} | ${r.perCycle.clientWrites.toFixed(1)} | ${r.perCycle.redisServerCommands.toFixed(1)} |`,
        );
      L.push('');
    }
    L.push('<details><summary>Commands per cycle by command and connection</summary>', '');
    L.push('| Command (EVALSHA by script) | Connection | Per cycle |', '|---|---|---|');
    for (const r of cost.rows)
      L.push(`| ${r.command} | ${r.connection.replace(/^\{bench\}:/, 'BullMQ ')} | ${r.perCycle} |`);
    L.push('', '</details>', '');
  } else L.push('Round trips not measured.', '');
  if (apiMemory) {
    L.push(
      `Memory per pending ask at ${num(apiMemory.count)} pending API asks: **${num(apiMemory.memory.bytesPerAsk)} B** (\`INFO memory\` used_memory delta ÷ asks). Median \`MEMORY USAGE\` of one ask's keys: ${Object.entries(
        apiMemory.memory.keys,
      )
        .map(([k, v]) => `${k} ${num(v)} B`)
        .join(
          ', ',
        )}; the rest is index entries (BullMQ delayed set, the reconciler's sweep set, BullMQ's event stream) and allocator overhead.`,
      '',
    );
  }

  for (const v of results.memoryVariants ?? []) {
    L.push(
      `With \`redis-server ${v.redisArgs.join(' ')}\` (hashes whose values are up to 1 KB stay in the compact listpack encoding; the ask document and BullMQ's job options are longer than the default 64 B): **${num(v.bytesPerAsk)} B** per pending ask at ${num(v.count)} pending; ${Object.entries(
        v.keys,
      )
        .map(([k, b]) => `${k} ${num(b)} B`)
        .join(', ')}.`,
      '',
    );
  }
  return L;
}

/** ## 5. Baselines: Redis and bare BullMQ on the same Redis settings. */
function baselinesSection(results: BenchResults): string[] {
  const m = results.machine;
  const L: string[] = [];
  L.push('## 5. Baselines (same run, same Redis settings)', '');
  const raw = results.baselines.raw;
  if (raw) {
    L.push('| redis-benchmark | clients | pipeline | requests/s | p50 ms |', '|---|---|---|---|---|');
    for (const r of raw.redisBenchmark)
      L.push(`| ${r.test} | ${r.clients} | ${r.pipeline} | ${num(r.rps)} | ${r.p50ms} |`);
    L.push('');
    L.push(
      `ioredis from Node, one connection: ${num(raw.ioredisConcurrentGetsPerSecond)} awaited GETs/s with 100 in flight; ${num(raw.ioredisPipelinedSetsPerSecond)} SETs/s in pipelines of 1,000.`,
      '',
    );
    const tg = telegram100(results);
    const redisMs = tg ? ((tg.window.cpu.byProcess.redis ?? NaN) * 1000) / tg.cyclesPerSecond : NaN;
    const multi = results.fullCycle.find((r) => r.replicas > 1);
    if (Number.isFinite(redisMs))
      L.push(
        `Redis-bound ceiling of askgate: Redis spent ${redisMs.toFixed(2)} ms of CPU per Telegram cycle (${tg!.label} row), so one Redis core would carry about ${num(1000 / redisMs)} cycles/s if askgate itself scaled out (several processes${multi ? `; the ${multi.label} row reached ${num(multi.cyclesPerSecond)} cycles/s on the same ${m.cores} cores` : ''}).`,
        '',
      );
  }
  if (results.baselines.addRemove?.length) {
    L.push(
      "| Bare BullMQ: add a delayed job (askgate's timeout-job options) + remove it | pairs/s | CPU: bench / Redis |",
      '|---|---|---|',
    );
    for (const r of results.baselines.addRemove)
      L.push(
        `| ${r.lanes} concurrent loop${r.lanes > 1 ? 's' : ''} | ${num(r.pairsPerSecond)} | ${cores(r.cpu.byProcess.bench)} / ${cores(r.cpu.byProcess.redis)} |`,
      );
    L.push('');
  }
  if (results.baselines.lateness?.length) {
    L.push(
      '| Bare BullMQ delayed-job lateness (worker concurrency 50, handler does nothing) | added in | p50 | p90 | p99 | max | missed | AOF rewrites while due |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const b of results.baselines.lateness)
      L.push(
        `| ${num(b.jobs)} jobs over ${b.spreadSeconds} s | ${b.addSeconds.toFixed(1)} s | ${ms(b.latenessMs.p50)} | ${ms(b.latenessMs.p90)} | ${ms(b.latenessMs.p99)} | ${ms(b.latenessMs.max)} | ${b.missed} | ${b.redis ? num(b.redis.aofRewrites) : '—'} |`,
      );
    L.push('');
  }
  return L;
}

/** The notes files (the optimisations, standalone rows), as they are. */
function notesSection(notesPaths: string | string[]): string[] {
  const L: string[] = [];
  for (const notes of typeof notesPaths === 'string' ? [notesPaths] : notesPaths)
    if (existsSync(notes)) L.push(readFileSync(notes, 'utf8').trim(), '');
  return L;
}

/** ## Re-running: the commands. */
function rerunningSection(): string[] {
  const L: string[] = [];
  L.push('## Re-running', '');
  L.push(
    '```sh',
    'npm run bench                 # everything, about 55 minutes (the 1,000,000-pending row ~30 of them); writes BENCHMARKS.md, bench/latency.svg and bench/growth.svg',
    'npm run bench -- --quick      # ~1-minute smoke with small sizes; writes bench/results/BENCHMARKS-quick.md',
    'npm run bench -- --only=full-cycle,tap   # some scenarios (baselines, full-cycle, api-cycle, tap, timeouts, million, restart, steps, memory, cost, same-machine); writes bench/results/',
    'npm run bench -- --only=same-machine   # the code before issue 19 (a git worktree of 2b6e1a8) against now, interleaved on this machine (about 10 minutes)',
    'npm run bench -- --only=million --million-count=20000   # the 1,000,000-pending timeout row at a smaller count, same 1,667 deadlines/s',
    'npm run bench -- --profile    # also writes askgate CPU profiles (node --cpu-prof) of the Telegram ×100 row to bench/results/profiles',
    'npx tsx bench/one-row.ts telegram 100 8000 [--profile=<dir>] [--replicas=2]   # one full-cycle row, for working on the hot path',
    `BENCH_CHILD_ENV='{"ASKGATE_SWEEP_DELAY_MS":"300000"}' npx tsx bench/one-row.ts telegram 100 8000   # any askgate setting for the bench's askgate processes (BENCH_NODE_FLAGS: node flags, e.g. --trace-gc-nvp)`,
    'BENCH_REDIS_STALLS=250/1000 BENCH_REDIS_ARGS="--enable-debug-command local" npx tsx bench/trace-timeouts.ts 100000 60   # the timeout row while Redis is blocked (DEBUG SLEEP) 250 ms of every second',
    "npx tsx bench/aof-per-timeout.ts 500   # what an ask's creation and its timeout append to the AOF, by command",
    "npx tsx bench/bounded-map.ts  # the bounded caches' eviction (change 32) against a fresh keys().next()",
    'npx tsx bench/event-streams.ts --streams=2000 [--tree=<checkout>]   # what open event streams cost (issue 33), against any checkout',
    "BENCH_HEAP_SAMPLE_DIR=$PWD/bench/results npx tsx bench/one-row.ts telegram 100 6000 && npx tsx bench/heap-summary.ts bench/results/heap-*.heapprofile   # where askgate's allocations in the measured window come from",
    'npx tsx bench/render.ts       # re-renders BENCHMARKS.md and the charts from the last full run (after editing bench/OPTIMIZATIONS-19.md)',
    'npx tsx bench/render.ts --merge=bench/results/latest-partial.json   # puts a partial run (e.g. --only=tap,same-machine after a change to the tap row) into the last full run and re-renders; BENCHMARKS.md names what was re-run and when',
    '```',
    '',
  );
  L.push('Raw results of the last run: `bench/results/latest-<mode>.json` (`latest-partial.json` for `--only`).', '');
  return L;
}

/** askgate's garbage-collection pauses over a window, by kind (empty when the run did not record them). */
function gcLine(
  gc: Record<string, { count: number; totalMs: number; maxMs: number }> | undefined,
  seconds: number,
): string {
  const kinds = Object.entries(gc ?? {}).filter(([, p]) => p.count > 0);
  if (kinds.length === 0) return '';
  const total = kinds.reduce((a, [, p]) => a + p.totalMs, 0);
  const parts = kinds.map(([kind, p]) => `${num(p.count)} ${kind} (longest ${p.maxMs.toFixed(1)} ms)`);
  return ` Garbage collection paused askgate ${parts.join(', ')}: ${num(total)} ms in ${seconds.toFixed(0)} s (${((100 * total) / (seconds * 1000)).toFixed(1)} % of the time).`;
}

/**
 * Where in the window a timeout row's tail lies: its lateness samples (in deadline order) cut into
 * 50 slices of the span; the slices whose p99 is over 250 ms, and the p99 of all the others.
 */
function lateSlices(t: TimeoutsResult): string[] {
  const slices = 50;
  const n = t.samples.length;
  if (n < slices * 10) return [];
  const width = t.deadlineSpanSeconds / slices;
  const p99 = (v: number[]) => v.slice().sort((a, b) => a - b)[Math.floor(v.length * 0.99)] ?? NaN;
  const bad: string[] = [];
  const rest: number[] = [];
  for (let i = 0; i < slices; i++) {
    const part = t.samples.slice(Math.floor((i * n) / slices), Math.floor(((i + 1) * n) / slices));
    const q = p99(part);
    if (q > 250) bad.push(`${num(i * width)}–${num((i + 1) * width)} s (p99 ${num(q)} ms)`);
    else rest.push(...part);
  }
  const r = t.window.redis;
  return [
    `Where the ${num(t.count)}-pending row's tail lies: its lateness by ${num(width)}-second slice of the ${num(t.deadlineSpanSeconds)} s of deadlines. ` +
      (bad.length
        ? `${bad.length} of ${slices} slices hold it: ${bad.join(', ')}; the other ${slices - bad.length} slices together have p99 ${num(p99(rest))} ms. `
        : `No slice has p99 over 250 ms. `) +
      `Redis rewrote its AOF ${r.aofRewrites} times in that window (last fork ${r.latestForkMs.toFixed(0)} ms; latency events since start, max ms: ${
        Object.entries(r.latency)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }).` +
      rewriteLine(t),
  ];
}

/** The row's lateness set against Redis's AOF rewrites while it fired (results before the timeline: nothing). */
function rewriteLine(t: TimeoutsResult): string {
  const split = t.byRewrite;
  const tl = t.redisTimeline;
  if (!split || !tl) return '';
  const due = split.during.filter((d) => d.asks > 0);
  const early = split.during.length - due.length;
  const spans = due.map(
    (d) =>
      `${num(d.fromS)}–${num(d.toS)} s (${num(d.asks)} asks due in it or within 5 s after: p99 ${num(d.p99Ms)} ms, max ${num(d.maxMs)} ms)`,
  );
  const worst = [...tl.events].sort((a, b) => b.ms - a.ms).slice(0, 5);
  return (
    ` Set against the rewrites as Redis reported them (polled every 100 ms): ${spans.length ? spans.join(', ') : 'none while the timeouts fired'}${early ? ` (and ${early} before the first deadline, no ask due in it)` : ''}; ` +
    `the ${num(split.outside.asks)} asks due outside them: p99 ${num(split.outside.p99Ms)} ms, max ${num(split.outside.maxMs)} ms. ` +
    `The AOF grew ${num(tl.aofBytesWritten / 2 ** 20)} MiB while they fired (${num(tl.aofBytesWritten / Math.max(1, t.count))} B per timeout)` +
    `${tl.delayedFsyncs ? `, ${num(tl.delayedFsyncs)} delayed fsyncs` : ''}; its worst latency events: ${
      worst.map((e) => `${e.event} ${num(e.ms)} ms at ${num((e.atMs - split.firstDeadlineMs) / 1000)} s`).join(', ') ||
      'none'
    }.`
  );
}

/** What the tap row did before its measured taps, and what those taps met (results before it had a warm-up: nothing). */
function warmupLine(tap: TapToAgentResult): string {
  if (!tap.warmup?.taps) return '';
  const w = tap.warmup.latencyMs;
  return ` Before them, ${num(tap.warmup.taps)} warm-up taps at the same rate on asks of their own (created with the others, not counted here): the first taps after the agents' waiting calls opened met askgate's scavenges of those calls, a moment rather than ${num(tap.pending)} asks pending (see "What the tap row measured before the warm-up" under the optimisations for issue 19). The warm-up taps: p50 ${ms(w.p50)} ms, p99 ${ms(w.p99)} ms, max ${ms(w.max)} ms.`;
}

/** The latency chart's series: the tap row, the Telegram ×100 full cycle, timeout lateness, bare BullMQ lateness. */
export function latencySeries(results: BenchResults): Series[] {
  const tg100 = telegram100(results);
  // Timeout lateness from 100,000 pending up (the largest row alone if none is that large).
  const largeTimeouts = results.timeouts.filter((t) => t.count >= 100_000);
  const timeoutSeries = largeTimeouts.length ? largeTimeouts : results.timeouts.slice(-1);
  return [
    ...(results.tapToAgent
      ? [
          {
            name: `tap → agent, ${results.tapToAgent.pending.toLocaleString('en-US')} pending, ${results.tapToAgent.tapsPerSecond} taps/s`,
            values: results.tapToAgent.samples,
          },
        ]
      : []),
    ...(tg100
      ? [{ name: `tap → agent, full cycle Telegram ×100 (saturated)`, values: tg100.samples.tapToAgentMs }]
      : []),
    ...(tg100 ? [{ name: `ask → answer, full cycle Telegram ×100 (saturated)`, values: tg100.samples.cycleMs }] : []),
    ...timeoutSeries.map((t) => ({
      name: `timeout lateness, ${t.count.toLocaleString('en-US')} pending`,
      values: t.samples,
    })),
    ...(results.baselines.lateness ?? []).map((b) => ({
      name: `bare BullMQ delayed-job lateness, ${b.jobs.toLocaleString('en-US')} jobs`,
      values: b.samples,
    })),
  ];
}

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The Telegram × 100 full-cycle row: one askgate process, webhook mode, no send pacing. */
function telegram100(results: BenchResults): FullCycleResult | undefined {
  return results.fullCycle.find(
    (r) =>
      r.channel === 'telegram' &&
      r.concurrency === 100 &&
      r.replicas === 1 &&
      !r.telegramMode?.includes('polling') &&
      !r.telegramSendIntervalMs,
  );
}
