// Diagnostic (not part of npm run bench): timeout lateness, optionally with a per-second trace of
// when the timeout jobs reached askgate (BENCH_TRACE_EXPIRE=1) and with some optimisations off
// (BENCH_BEFORE=1 [BENCH_BEFORE_PARTS=pipelining,reread,cancel]).
// Usage: tsx bench/trace-timeouts.ts <count> <spreadSeconds>
import { timeouts } from './timeouts.js';

const [count, spread] = process.argv.slice(2).map(Number);
const r = await timeouts({
  count: count ?? 20_000,
  spreadSeconds: spread ?? 20,
  before: process.env.BENCH_BEFORE === '1',
});
console.log(
  JSON.stringify({
    before: process.env.BENCH_BEFORE_PARTS ?? (process.env.BENCH_BEFORE ? 'all' : 'none'),
    lateness: r.latenessMs,
    span: r.deadlineSpanSeconds,
    create: r.createPerSecond,
    window: {
      elu: r.window.child.eventLoopUtilization,
      cores: r.window.child.cpuCores,
      others: r.window.cpu.othersCores,
      redis: r.window.redis,
    },
  }),
);
