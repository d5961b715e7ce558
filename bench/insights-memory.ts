/**
 * Redis memory of one day of insights (issue 40, part 3): the rollups of `asks` settled asks
 * (default 100,000) applied by the same script the commit runs (store/scripts.ts ROLLUP), on a
 * private redis-server, then `MEMORY USAGE` of the day's hash.
 *   tsx bench/insights-memory.ts [asks=100000]
 * Two spreads: "typical" (20 agents, 6 channels, 300 people, seeded), and "worst" (more agents,
 * channels and people than the caps of core/insights.ts keep, every one with every answer bucket,
 * outcome, decision and delay): the caps bound the day's hash whatever the traffic.
 */
import { startRedisOnly } from './lib/stack.js';
import { rollupArgs } from '../src/store/along-ops.js';
import { ROLLUP } from '../src/store/scripts.js';
import { rollupOf } from '../src/core/insights.js';
import type { AskRecord } from '../src/core/schemas.js';
import { seeded } from '../test/helpers/seeded.js';

const asks = Number(process.argv[2] ?? 100_000);
const DAY = Date.parse('2030-03-09T00:00:00Z');
const REASONS = ['timeout', 'skipped', 'cancelled', 'undelivered', 'superseded'] as const;

/** A settled ask: answered 70 % of the time after a spread of waits, else ended for one of the reasons. */
function settled(i: number, pick: (n: number) => number, worst: boolean): AskRecord {
  const wait = worst ? 1.5 ** (i % 40) : Math.exp(pick(1000) / 80); // 1 s … ~3 h, skewed
  const created = DAY + pick(80_000_000) / 1000;
  const at = new Date(created + wait * 1000).toISOString();
  const agent = worst ? `agent-${i % 101}` : `agent-${pick(20)}`;
  const channel = worst ? `ch-${i % 21}` : ['telegram', 'slack', 'discord', 'email', 'whatsapp', 'teams'][pick(6)]!;
  const person = worst ? `user-${(i * 7) % 211}` : `user-${pick(300)}`;
  const approval = (worst ? i % 2 : pick(4)) === 0;
  const answered = (worst ? i % 10 : pick(10)) < 7;
  const decisions = ['approve', 'reject', 'request_changes', 'edit'] as const;
  return {
    id: `a${i}`,
    runId: `r${i}`,
    agent,
    version: 1,
    rev: 3,
    status: answered ? 'answered' : 'no_answer',
    questions: [],
    ...(approval
      ? { approval: { action: 'x', arguments: {}, actionHash: 'sha256:x' } as unknown as AskRecord['approval'] }
      : {}),
    to: { channel, chat: '1' },
    targets: [],
    createdAt: new Date(created).toISOString(),
    expiresAt: at,
    timeoutSeconds: 3600,
    result: answered
      ? {
          status: 'answered',
          answers: {},
          ...(approval ? { decision: decisions[(worst ? i : pick(4)) % 4]! } : {}),
          answeredBy: { channel, userId: person },
          answeredAt: at,
        }
      : { status: 'no_answer', reason: REASONS[(worst ? i : pick(5)) % 5]!, at },
    partial: {},
    deliveries: [],
    history: [],
  } as AskRecord;
}

const { redis, admin } = await startRedisOnly();
try {
  for (const spread of ['typical', 'worst'] as const) {
    const rnd = seeded(40);
    const pick = (n: number) => Math.floor(rnd() * n);
    const key = `bench:insights:${spread}`;
    const started = performance.now();
    for (let i = 0; i < asks; i += 1000) {
      const batch = admin.pipeline();
      for (let j = i; j < Math.min(asks, i + 1000); j++) {
        const rollup = rollupOf(settled(j, pick, spread === 'worst'))!;
        const args = rollupArgs({ op: 'ROLL', key, ttlMs: 100 * 86_400_000, rollup });
        batch.evalsha(ROLLUP.sha, 1, key, ...args);
      }
      if (i === 0) await admin.script('LOAD', ROLLUP.source);
      await batch.exec();
    }
    const seconds = (performance.now() - started) / 1000;
    const bytes = Number(await admin.memory('USAGE', key, 'SAMPLES', 0));
    const fields = await admin.hlen(key);
    const encoding = await admin.object('ENCODING', key);
    console.log(
      `${spread}: ${asks} asks -> ${fields} fields, ${encoding}, ${(bytes / 1024).toFixed(1)} KiB for the day` +
        ` (${(bytes / asks).toFixed(2)} B per ask); ${Math.round(asks / seconds)} rollups/s through one connection`,
    );
  }
} finally {
  admin.disconnect();
  await redis.stop();
}
