// Diagnostic (not part of npm run bench): timeout lateness of one row, with askgate's and the
// machine's load while the timeouts fired.
// Usage: tsx bench/trace-timeouts.ts <count> <spreadSeconds>
import { timeouts } from './timeouts.js';

const [count, spread] = process.argv.slice(2).map(Number);
const r = await timeouts({ count: count ?? 20_000, spreadSeconds: spread ?? 20 });
console.log(
  JSON.stringify({
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
