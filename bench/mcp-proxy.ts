// Pass-through overhead of `askgate mcp-proxy` (issue 37): the same upstream MCP server (the fake of
// test/fakes/mcp-upstream.ts, a v1 SDK server on stdio) called directly by a v1 client, and through
// the proxy (client -> proxy on stdio -> upstream on stdio), on one machine. Calls alternate between
// the two paths (interleaved), one at a time; the table gives p50/p99 per path and their difference.
// Run: `npx tsx bench/mcp-proxy.ts [--runs=5] [--calls=2000] [--warmup=500]` (calls per path and
// run). No askgate is needed: a pass-through call never asks (ASKGATE_URL points nowhere on purpose).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { calls: { type: 'string' }, warmup: { type: 'string' }, runs: { type: 'string' } },
});
const RUNS = Number(values.runs ?? 5);
const CALLS = Number(values.calls ?? 2000);
const WARMUP = Number(values.warmup ?? 500);
const upstream = [process.execPath, '--import', 'tsx', 'test/fakes/mcp-upstream.ts'];

async function connect(command: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: command[0]!,
      args: command.slice(1),
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'inherit',
    }),
  );
  return client;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (n: number) => `${n.toFixed(3)} ms`;

const direct = await connect(upstream);
const proxied = await connect(
  [
    process.execPath,
    '--import',
    'tsx',
    'src/cli.ts',
    'mcp-proxy',
    '--upstream',
    upstream.map((w) => `"${w}"`).join(' '),
    '--approve',
    'send_email',
  ],
  { ASKGATE_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'warn' },
);
const call = async (client: Client, i: number) => {
  const started = process.hrtime.bigint();
  await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
  return Number(process.hrtime.bigint() - started) / 1e6;
};
for (let i = 0; i < WARMUP; i++) {
  await call(direct, i);
  await call(proxied, i);
}
const times = { direct: [] as number[], proxied: [] as number[] };
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const perRun: { p50: number; p99: number }[] = [];
for (let run = 0; run < RUNS; run++) {
  const round = { direct: [] as number[], proxied: [] as number[] };
  for (let i = 0; i < CALLS; i++) {
    // Alternate which path goes first, so neither always follows the other.
    if (i % 2 === 0) {
      round.direct.push(await call(direct, i));
      round.proxied.push(await call(proxied, i));
    } else {
      round.proxied.push(await call(proxied, i));
      round.direct.push(await call(direct, i));
    }
  }
  const [d, p] = [sorted(round.direct), sorted(round.proxied)];
  perRun.push({ p50: quantile(p, 0.5) - quantile(d, 0.5), p99: quantile(p, 0.99) - quantile(d, 0.99) });
  times.direct.push(...round.direct);
  times.proxied.push(...round.proxied);
}
await Promise.all([direct.close(), proxied.close()]);

const d = sorted(times.direct);
const p = sorted(times.proxied);
console.log(
  `\n${RUNS} runs of ${CALLS} interleaved pass-through calls (tools/call echo) per path, after ${WARMUP} warm-up calls each; all calls pooled\n`,
);
console.log('| path | p50 | p90 | p99 | mean |');
console.log('|---|---|---|---|---|');
for (const [name, s] of [
  ['direct (client -> upstream)', d],
  ['through askgate mcp-proxy', p],
] as const)
  console.log(
    `| ${name} | ${ms(quantile(s, 0.5))} | ${ms(quantile(s, 0.9))} | ${ms(quantile(s, 0.99))} | ${ms(s.reduce((a, b) => a + b, 0) / s.length)} |`,
  );
console.log(
  `| overhead (proxy - direct) | ${ms(quantile(p, 0.5) - quantile(d, 0.5))} | ${ms(quantile(p, 0.9) - quantile(d, 0.9))} | ${ms(quantile(p, 0.99) - quantile(d, 0.99))} | |`,
);
const runsP99 = sorted(perRun.map((r) => r.p99));
console.log(`\np99 overhead per run: ${perRun.map((r) => ms(r.p99)).join(', ')}; median ${ms(quantile(runsP99, 0.5))}`);
