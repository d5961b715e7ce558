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
  timeouts: TimeoutsResult[];
  redisCost?: RedisCostResult;
  memoryVariants?: MemoryResult[];
  /** Policy steps (reminders and escalations), section 3b. */
  steps?: StepsResult[];
  ab?: { cycles: FullCycleResult[]; cost: (RedisCostResult & { before: boolean })[]; timeouts?: TimeoutsResult[] };
  failures: { scenario: string; error: string }[];
}

const TARGETS = {
  cyclesPerSecond: 1000,
  bullRatio: 0.3,
  tapP99Ms: 10,
  roundTrips: 8,
  bytesPerAsk: 2048,
  latenessP99Ms: 50,
};

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

const processes = (n: number) => `${n} askgate process${n > 1 ? 'es' : ''}`;

function baselinePairs(results: BenchResults, lanes: number): number | undefined {
  const rows = results.baselines.addRemove ?? [];
  const exact = rows.find((r) => r.lanes === lanes);
  if (exact) return exact.pairsPerSecond;
  return rows.length
    ? rows.reduce((a, b) => (Math.abs(b.lanes - lanes) < Math.abs(a.lanes - lanes) ? b : a)).pairsPerSecond
    : undefined;
}

export function renderMarkdown(results: BenchResults, chartPath: string, notesPath: string): string {
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
  if (busy) {
    L.push(
      `> **The machine was busy while these figures were taken.** Load average ${results.loadStart.load.join(' / ')} (1/5/15 min) at the start and ${results.loadEnd.load.join(' / ')} at the end; other processes used on average ${cores(meanOthers)} of the ${m.cores} cores during the measured windows (per-window figures below). Throughput and tail latencies are therefore pessimistic and noisy; CPU per cycle and Redis commands per cycle are the more stable figures. Re-run \`npm run bench\` on a quiet machine.`,
      '',
    );
  }
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

  // Summary against targets.
  const tg = results.fullCycle.filter(
    (r) => r.channel === 'telegram' && !r.telegramMode?.includes('polling') && !r.telegramSendIntervalMs,
  );
  const fastest = (rows: FullCycleResult[]) =>
    rows.reduce<FullCycleResult | null>((a, b) => (a && a.cyclesPerSecond >= b.cyclesPerSecond ? a : b), null);
  const best = fastest(tg);
  const bestSingle = fastest(tg.filter((r) => r.replicas === 1));
  // "1/100/1,000 runs on 1 askgate process, 100 runs on 2": the rows the best figure was taken from.
  const replicaCounts = [...new Set(tg.map((r) => r.replicas))].sort((a, b) => a - b);
  const bestOf = replicaCounts
    .map(
      (n) =>
        `${tg
          .filter((r) => r.replicas === n)
          .map((r) => num(r.concurrency))
          .join('/')} runs on ${n === replicaCounts[0] ? processes(n) : n}`,
    )
    .join(', ');
  const bestRatio = best ? best.cyclesPerSecond / (baselinePairs(results, best.concurrency) ?? NaN) : NaN;
  const tap = results.tapToAgent;
  const cost = results.redisCost;
  const t100 = results.timeouts.reduce<TimeoutsResult | null>((a, b) => (a && a.count >= b.count ? a : b), null);
  const memory = t100?.memory.bytesPerAsk;
  L.push('## Summary against the targets', '');
  L.push('Targets are benchmarks, never test assertions.', '');
  L.push('| Figure | Target | Measured | |');
  L.push('|---|---|---|---|');
  L.push(
    `| Full cycles/s (Telegram, best of ${bestOf || 'the rows'}) | ≥ ${num(TARGETS.cyclesPerSecond)} | ${best ? `${num(best.cyclesPerSecond)} at ${num(best.concurrency)} runs, ${processes(best.replicas)}` : '—'} | ${met(best ? best.cyclesPerSecond >= TARGETS.cyclesPerSecond : null)} |`,
  );
  if (best && bestSingle && best !== bestSingle)
    L.push(
      `| … with 1 askgate process (best of its rows) | ≥ ${num(TARGETS.cyclesPerSecond)} | ${num(bestSingle.cyclesPerSecond)} at ${num(bestSingle.concurrency)} runs | ${met(bestSingle.cyclesPerSecond >= TARGETS.cyclesPerSecond)} |`,
    );
  L.push(
    `| … as a share of bare BullMQ delayed add+remove (same concurrency) | ≥ ${TARGETS.bullRatio} | ${Number.isFinite(bestRatio) ? bestRatio.toFixed(2) : '—'} | ${met(Number.isFinite(bestRatio) ? bestRatio >= TARGETS.bullRatio : null)} |`,
  );
  L.push(
    `| Tap to agent p99 (${tap ? num(tap.pending) : '—'} pending, ${tap ? tap.tapsPerSecond : '—'} taps/s) | < ${TARGETS.tapP99Ms} ms | ${tap ? `${ms(tap.latencyMs.p99)} ms` : '—'} | ${met(tap ? tap.latencyMs.p99 < TARGETS.tapP99Ms : null)} |`,
  );
  const loaded = results.fullCycle.find((r) => r === best);
  const loadedWrites = loaded && loaded.concurrency > 1 ? loaded.perCycle.clientWrites : undefined;
  L.push(
    `| Redis round trips per cycle: socket writes by askgate, cycles one after another | ≤ ${TARGETS.roundTrips} | ${cost ? `${cost.askgateClient.writesPerCycle.toFixed(1)} (${cost.clientCommandsPerCycle.toFixed(1)} commands sent)` : '—'} | ${met(cost ? cost.askgateClient.writesPerCycle <= TARGETS.roundTrips : null)} |`,
  );
  if (loadedWrites !== undefined)
    L.push(
      `| … the same under load (${loaded!.label}) | ≤ ${TARGETS.roundTrips} | ${loadedWrites.toFixed(1)} (${loaded!.perCycle.clientCommands.toFixed(1)} commands sent) | ${met(loadedWrites <= TARGETS.roundTrips)} |`,
    );
  L.push(
    `| Redis memory per pending ask (${t100 ? num(t100.count) : '—'} pending) | ≤ 2 KB | ${memory !== undefined ? `${num(memory)} B` : '—'} | ${met(memory !== undefined ? memory <= TARGETS.bytesPerAsk : null)} |`,
  );
  for (const v of results.memoryVariants ?? [])
    L.push(
      `| … with \`${v.redisArgs.join(' ')}\` (${num(v.count)} pending) | ≤ 2 KB | ${num(v.bytesPerAsk)} B | ${met(v.bytesPerAsk <= TARGETS.bytesPerAsk)} |`,
    );
  L.push(
    `| Timeout lateness p99 (${t100 ? num(t100.count) : '—'} pending) | < ${TARGETS.latenessP99Ms} ms | ${t100 ? `${ms(t100.latenessMs.p99)} ms` : '—'} | ${met(t100 ? t100.latenessMs.p99 < TARGETS.latenessP99Ms : null)} |`,
  );
  L.push(
    `| Timeouts missed (${t100 ? num(t100.count) : '—'} pending) | 0 | ${t100 ? t100.missed : '—'} | ${met(t100 ? t100.missed === 0 : null)} |`,
  );
  const steps = results.steps?.reduce<StepsResult | null>((a, b) => (a && a.count >= b.count ? a : b), null);
  if (steps) {
    L.push(
      `| Policy step lateness p99 (${num(steps.count)} pending, a reminder and an escalation each; §3b) | < ${TARGETS.latenessP99Ms} ms | ${ms(steps.latenessMs.p99)} ms | ${met(steps.latenessMs.p99 < TARGETS.latenessP99Ms)} |`,
    );
    L.push(
      `| Policy steps missed (${num(steps.count)} pending) | 0 | ${num(steps.missed)} | ${met(steps.missed === 0)} |`,
    );
  }
  L.push('');
  if (results.failures.length) {
    L.push('**Scenarios that failed:**', '');
    for (const f of results.failures) L.push(`- ${f.scenario}: \`${f.error.slice(0, 300)}\``);
    L.push('');
  }

  L.push('## How it is measured', '');
  L.push(
    '- askgate runs as a child process (`bench/askgate-child.ts`: `startAskgate` with the normal config, `REDIS_URL` to the private Redis) so its CPU, event loop and Redis traffic are measured apart from the load generator. The fakes of Telegram, Slack and Discord from `test/fakes` and the load generator share the bench process. Everything runs on the same cores: the figures are for askgate, Redis and the load generator together.',
    '- Agents call `POST /v1/asks?wait=60` (create and long-poll in one call) in a closed loop, one run (`runId`) and one chat per concurrent agent; the cycle ends when that call returns `answered`. A simulated human taps the first option as soon as the fake stores the message.',
    "- **Telegram** runs in webhook mode: the bench posts each tap update to `/telegram/webhook` like Telegram does, at most 40 at a time (Telegram's default `max_connections`). The per-chat send pacing (askgate's default 1 message/s per chat) is set to 0 for the throughput rows through the channel's `minSendIntervalMs` option (bench-only; a chat can never take more than about one message a second on real Telegram, so real throughput needs many chats). One row keeps the 1 s pacing to show its effect. **Slack** runs in HTTP mode (signed `block_actions` posted to `/slack/events`); **Discord** taps arrive as `INTERACTION_CREATE` on the fake gateway.",
    "- Tap to agent: from the moment the tap's update leaves the bench for askgate (webhook POST) to the moment the agent's waiting `GET /v1/asks/:id?wait=600` returns; all pending asks have an agent waiting.",
    '- Timeouts: API asks (no chat) created through `POST /v1/asks`; each gets a `timeoutSeconds` (whole seconds, `ASKGATE_TIMEOUT_MIN_SECONDS=1`) and is sent at the instant that makes `createdAt + timeoutSeconds` land on its target, so the deadlines spread evenly over the spread (a minute in the full run) starting about 5 s after the projected end of creation (projected from a calibration burst of asks that are cancelled again; up to 3,000 asks placed at once, so the create rate is askgate\'s when askgate is the limit). Lateness = `result.at` − `expiresAt` as askgate recorded them; "observed" = when a Redis subscriber to askgate\'s `resolved` channel heard of it − deadline. "Missed" = not resolved, resolved otherwise than by timeout, or later than the reconciler grace (5 s: the reconciler, not the timeout job, ended it).',
    '- **Several askgate processes** (the "2 askgate processes" row): replicas on the same Redis, each its own child process and port, as behind a load balancer. Agent i calls replica i mod N; the tap updates go to the replicas round-robin (one Telegram webhook URL behind a balancer), so an agent waiting on one replica is often answered through a tap on the other (its waiter wakes through askgate\'s Redis pub/sub); the BullMQ workers of every replica take deliveries and timeouts. Their CPU, Redis commands and log lines are summed; ELU is given for the busiest replica and as the mean.',
    '- CPU: per process from `/proc` over each measured window (1.00 = one core busy); "others" is the rest of the machine. ELU = askgate\'s event-loop utilisation. With several askgate processes, the askgate column is their total followed by each process (askgate + askgate-2).',
    '',
  );

  // Full cycle.
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

  // Tap to agent.
  L.push('## 2. Tap to agent', '');
  if (tap) {
    L.push(
      `${num(tap.pending)} asks pending on Telegram (one chat each, every one with an agent waiting), humans tapping at a steady ${tap.tapsPerSecond} taps/s for ${num(tap.taps / tap.tapsPerSecond)} s (${num(tap.taps)} taps; achieved ${tap.achievedTapsPerSecond.toFixed(1)}/s).`,
      '',
    );
    L.push('| p50 | p90 | p99 | max | mean | lost | askgate ELU | CPU: askgate / Redis / bench / others |');
    L.push('|---|---|---|---|---|---|---|---|');
    const w = tap.window;
    L.push(
      `| ${ms(tap.latencyMs.p50)} ms | ${ms(tap.latencyMs.p90)} ms | ${ms(tap.latencyMs.p99)} ms | ${ms(tap.latencyMs.max)} ms | ${ms(tap.latencyMs.mean)} ms | ${tap.lost} | ${w.child.eventLoopUtilization.toFixed(2)} | ${cores(w.child.cpuCores)} / ${cores(w.cpu.byProcess.redis)} / ${cores(w.cpu.byProcess.bench)} / ${cores(w.cpu.othersCores)} |`,
    );
    L.push('');
    L.push(
      `Setting up: ${num(tap.pending)} asks created in ${tap.createSeconds.toFixed(1)} s (${num(tap.createPerSecond)} asks/s through the API, 100 in flight), all delivered after ${tap.deliveredSeconds.toFixed(1)} s. Redis memory with these Telegram asks pending: ${num(tap.redisBytesPerPendingAsk)} B per ask (record with its delivery, conversation index, message binding, timeout job). askgate's event-loop delay during the taps: p50 ${tap.window.child.loopDelayMs.p50} ms, p99 ${tap.window.child.loopDelayMs.p99} ms, max ${tap.window.child.loopDelayMs.max} ms.`,
      '',
    );
  } else L.push('Not run.', '');
  L.push(`![Latency by percentile](${chartPath})`, '');

  // Timeouts.
  L.push('## 3. Timeout precision', '');
  if (results.timeouts.length) {
    L.push(
      '| Pending asks | Created in | Create rate (request p50 / p99) | Deadlines spread over | Lateness p50 / p90 / p99 / max | Observed by a subscriber p50 / p99 / max | Missed | Bare BullMQ, same count and spread: p50 / p99 / max | p99 vs bare BullMQ |',
    );
    L.push('|---|---|---|---|---|---|---|---|---|');
    for (const t of results.timeouts) {
      const base = (results.baselines.lateness ?? []).find((b) => b.jobs === t.count);
      L.push(
        `| ${num(t.count)} | ${t.createSeconds.toFixed(1)} s | ${num(t.createPerSecond)}/s (${ms(t.createMs.p50)} / ${ms(t.createMs.p99)} ms) | ${t.deadlineSpanSeconds.toFixed(0)} s | ${ms(t.latenessMs.p50)} / ${ms(t.latenessMs.p90)} / ${ms(t.latenessMs.p99)} / ${ms(t.latenessMs.max)} ms | ${ms(t.observedMs.p50)} / ${ms(t.observedMs.p99)} / ${ms(t.observedMs.max)} ms | ${t.missed}${t.createErrors ? ` (${t.createErrors} creates failed)` : ''} | ${base ? `${ms(base.latenessMs.p50)} / ${ms(base.latenessMs.p99)} / ${ms(base.latenessMs.max)} ms` : '—'} | ${base ? `${(t.latenessMs.p99 / Math.max(1, base.latenessMs.p99)).toFixed(1)}×` : '—'} |`,
      );
    }
    L.push('');
    for (const t of results.timeouts) {
      const w = t.window;
      L.push(
        `- ${num(t.count)}: ${t.deadlinesBeforeCreateEnd ? `${num(t.deadlinesBeforeCreateEnd)} deadlines fell before creation ended (creation overlapped the firing); ` : ''}while the timeouts fired askgate used ${cores(w.child.cpuCores)} cores (ELU ${w.child.eventLoopUtilization.toFixed(2)}, event-loop delay p99 ${w.child.loopDelayMs.p99} ms, max ${w.child.loopDelayMs.max} ms), Redis ${cores(w.cpu.byProcess.redis)}, other processes ${cores(w.cpu.othersCores)}.`,
      );
    }
    L.push('');
  } else L.push('Not run.', '');

  if (results.steps?.length) L.push(stepsMarkdown(results.steps));

  // Redis cost.
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
  if (t100) {
    L.push(
      `Memory per pending ask at ${num(t100.count)} pending API asks: **${num(t100.memory.bytesPerAsk)} B** (\`INFO memory\` used_memory delta ÷ asks). Median \`MEMORY USAGE\` of one ask's keys: ${Object.entries(
        t100.memory.keys,
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

  // Before/after.
  if (results.ab && (results.ab.cycles.length || results.ab.cost.length)) {
    L.push('## Before and after the optimisations (`--ab`, same run)', '');
    L.push(
      '"before" is askgate with the changes of bench/OPTIMIZATIONS.md switched off inside the bench child (`BENCH_BEFORE=1`: no auto-pipelining, every state change re-reads its record, a timeout job tries to remove itself); runs alternate.',
      '',
    );
    if (results.ab.cycles.length) {
      L.push(
        '| Run | Cycles/s | Tap→agent p50 / p99 ms | askgate CPU ms/cycle | Redis CPU ms/cycle | Commands sent / socket writes per cycle | Other processes (cores) |',
        '|---|---|---|---|---|---|---|',
      );
      for (const r of results.ab.cycles) {
        const w = r.window;
        L.push(
          `| ${r.label} | ${num(r.cyclesPerSecond)} | ${ms(r.tapToAgentMs.p50)} / ${ms(r.tapToAgentMs.p99)} | ${((w.child.cpuCores * 1000) / Math.max(1e-9, r.cyclesPerSecond)).toFixed(2)} | ${(((w.cpu.byProcess.redis ?? NaN) * 1000) / Math.max(1e-9, r.cyclesPerSecond)).toFixed(2)} | ${r.perCycle.clientCommands.toFixed(1)} / ${r.perCycle.clientWrites.toFixed(1)} | ${cores(w.cpu.othersCores)} |`,
        );
      }
      L.push('');
    }
    if (results.ab.cost.length) {
      L.push(
        '| Sequential cycles (Redis cost) | Commands sent | Socket writes | HGET | Commands executed by Redis |',
        '|---|---|---|---|---|',
      );
      for (const c of results.ab.cost) {
        const hget = c.rows.filter((r) => r.command === 'hget').reduce((a, r) => a + r.perCycle, 0);
        L.push(
          `| ${c.before ? 'before' : 'after'} | ${c.clientCommandsPerCycle.toFixed(1)} | ${c.askgateClient.writesPerCycle.toFixed(1)} | ${hget.toFixed(1)} | ${c.serverCommandsPerCycle.toFixed(1)} |`,
        );
      }
      L.push('');
    }
    if (results.ab.timeouts?.length) {
      L.push(
        '| Timeouts | Deadlines/s | Lateness p50 / p90 / p99 / max ms | Missed | askgate CPU (cores) | Redis CPU (cores) | Other processes (cores) |',
        '|---|---|---|---|---|---|---|',
      );
      for (const t of results.ab.timeouts) {
        const w = t.window;
        L.push(
          `| ${num(t.count)} over ${t.spreadSeconds} s ${t.before ? '[before]' : '[after]'} | ${num(t.count / Math.max(1, t.deadlineSpanSeconds))} | ${ms(t.latenessMs.p50)} / ${ms(t.latenessMs.p90)} / ${ms(t.latenessMs.p99)} / ${ms(t.latenessMs.max)} | ${t.missed} | ${cores(w.child.cpuCores)} | ${cores(w.cpu.byProcess.redis)} | ${cores(w.cpu.othersCores)} |`,
        );
      }
      L.push('');
    }
  }

  // Baselines.
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
    const tg = results.fullCycle.find(
      (r) =>
        r.channel === 'telegram' &&
        r.concurrency === 100 &&
        r.replicas === 1 &&
        !r.telegramMode?.includes('polling') &&
        !r.telegramSendIntervalMs,
    );
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
      '| Bare BullMQ delayed-job lateness (worker concurrency 50, handler does nothing) | added in | p50 | p90 | p99 | max | missed |',
      '|---|---|---|---|---|---|---|',
    );
    for (const b of results.baselines.lateness)
      L.push(
        `| ${num(b.jobs)} jobs over ${b.spreadSeconds} s | ${b.addSeconds.toFixed(1)} s | ${ms(b.latenessMs.p50)} | ${ms(b.latenessMs.p90)} | ${ms(b.latenessMs.p99)} | ${ms(b.latenessMs.max)} | ${b.missed} |`,
      );
    L.push('');
  }

  if (existsSync(notesPath)) {
    L.push(readFileSync(notesPath, 'utf8').trim(), '');
  }
  L.push('## Re-running', '');
  L.push(
    '```sh',
    'npm run bench                 # everything, about 10 minutes; writes BENCHMARKS.md and bench/latency.svg',
    'npm run bench -- --quick      # ~1-minute smoke with small sizes; writes bench/results/BENCHMARKS-quick.md',
    'npm run bench -- --only=full-cycle,tap   # some scenarios (baselines, full-cycle, tap, timeouts, memory, cost); writes bench/results/',
    'npm run bench -- --profile    # also writes askgate CPU profiles (node --cpu-prof) of the Telegram ×100 row to bench/results/profiles',
    'npm run bench -- --ab         # adds askgate-before-the-optimisations runs, side by side (about 2 more minutes)',
    'npx tsx bench/one-row.ts telegram 100 8000 [--profile=<dir>] [--replicas=2]   # one full-cycle row, for working on the hot path',
    'npx tsx bench/render.ts       # re-renders BENCHMARKS.md from the last full run (after editing bench/OPTIMIZATIONS.md)',
    '```',
    '',
  );
  L.push('Raw results of the last run: `bench/results/latest-<mode>.json` (`latest-partial.json` for `--only`).', '');
  return L.join('\n');
}
