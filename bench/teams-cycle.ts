/**
 * The Teams row (issue 39): full ask → tap → finalize cycles against the Bot Connector fake
 * (test/fakes/teams-connector.ts: JWT-signed invokes, Entra tokens, the v3 conversations API) and
 * a private redis-server (AOF everysec), with askgate as a real `askgate serve` child configured by
 * its TEAMS_* settings (the descriptor builds the channel, as in production):
 *   npx tsx bench/teams-cycle.ts [cycles=300] [concurrency=10] [warmup=50]
 * A cycle: the agent creates a single-choice ask for a learned conversation and long-polls its
 * result; askgate posts the card; the person clicks its first button (a signed
 * `adaptiveCard/action` invoke, which askgate answers with the updated card); the result reaches
 * the agent; askgate replaces the card with the outcome (the update the fake stores ends the
 * cycle). Prints cycles/s, askgate and Redis CPU per cycle (from /proc), and Redis commands per
 * cycle (INFO commandstats over the measured cycles: every client, askgate's background work
 * included), like bench/one-row.ts does for Telegram.
 */
import { startAskgateProcess } from '../test/helpers/askgate-process.js';
import { cardAction, installed, person, startFakeTeams, type StoredActivity } from '../test/fakes/teams-connector.js';
import { commandStats, startRedisOnly, statsDelta } from './lib/stack.js';
import { cpuMeter } from './lib/machine.js';
import { HttpClient, lanes, sleep } from './lib/http.js';

const cycles = Number(process.argv[2] ?? 300);
const concurrency = Number(process.argv[3] ?? 10);
const warmup = Number(process.argv[4] ?? 50);
for (const [name, n] of Object.entries({ cycles, concurrency, warmup }))
  if (!Number.isInteger(n) || n < (name === 'warmup' ? 0 : 1)) throw new Error(`${name} must be a whole number`);

const APP_ID = '8b1e4c52-1f0c-4c5e-9d43-3f4a2b6c7d10';
const APP_PASSWORD = 'bench-app-password-0123456789';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const ALICE = person('Alice', '0f5c7a1e-3b2d-4c6e-8a9f-1b2c3d4e5f60');
const DM = 'a:1Xq3bench-chat-with-alice';

const { redis, admin } = await startRedisOnly();
const fake = await startFakeTeams({ appId: APP_ID, appPassword: APP_PASSWORD, tenantId: TENANT });
const people = { appId: APP_ID, tenantId: TENANT, serviceUrl: fake.serviceUrl };
const askgate = await startAskgateProcess({
  REDIS_URL: redis.url,
  ASKGATE_KEY_PREFIX: 'bench',
  ASKGATE_TIMEOUT_MIN_SECONDS: '1',
  ...fake.settings,
});
const api = new HttpClient(askgate.url);
const endpoint = `${askgate.url}/teams/messages`;

/** Polls `find` every 2 ms until it returns something (10 s at most). */
async function until<T>(what: string, find: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** The card activity askgate posted for `askId` (its actions carry the ask's tokens). */
const cardOf = (askId: string): StoredActivity | undefined =>
  fake.sentTo(DM).find((a) => a.updates.length === 0 && JSON.stringify(a.body).includes(`${askId}.`));

const latencies: number[] = [];
let errors = 0;
async function cycle(i: number): Promise<void> {
  const t0 = performance.now();
  const created = await api.json('POST', '/v1/asks', {
    runId: `bench-teams-${i}`,
    timeoutSeconds: 600,
    questions: [
      {
        id: 'env',
        question: 'Where should I deploy? (bench)',
        options: [{ label: 'Staging' }, { label: 'Production' }],
      },
    ],
    to: { channel: 'teams', chat: DM },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const askId: string = created.body.id;
  const result = api.json('GET', `/v1/asks/${askId}?wait=30`, undefined, 40_000);
  const card = await until(`the card of ${askId}`, () => cardOf(askId));
  const content = card.body.attachments[0].content;
  const first = content.actions[0] as { verb: string; data: Record<string, unknown> };
  const answer = await fake.post(endpoint, cardAction(people, ALICE, DM, 'personal', card.id, first));
  if (answer.status !== 200 || !answer.body) throw new Error(`invoke: ${answer.status}`);
  const done = await result;
  if (done.body?.status !== 'answered') throw new Error(`result: ${JSON.stringify(done.body).slice(0, 200)}`);
  await until(`the outcome of ${askId}`, () => card.updates.some((u) => JSON.stringify(u).includes('Staging')));
  latencies.push(performance.now() - t0);
}

async function run(count: number, from: number): Promise<void> {
  await lanes(count, concurrency, async (i) => {
    try {
      await cycle(from + i);
    } catch (error) {
      if (errors++ < 5) console.error((error as Error).message);
    }
  });
}

try {
  const learned = await fake.post(endpoint, installed(people, DM, 'personal'));
  if (learned.status !== 200) throw new Error(`install: ${learned.status}`);
  await run(warmup, 0);
  latencies.length = 0;
  errors = 0;
  const before = await commandStats(admin);
  const cpu = cpuMeter({ askgate: askgate.pid, redis: redis.pid() });
  const t0 = performance.now();
  await run(cycles, warmup);
  const seconds = (performance.now() - t0) / 1000;
  const used = cpu();
  const delta = statsDelta(before, await commandStats(admin));
  const done = latencies.length;
  const total = Object.values(delta).reduce((a, b) => a + b, 0);
  const perCycle = (cores: number | undefined) => (((cores ?? NaN) * used.seconds * 1000) / done).toFixed(3);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(done - 1, Math.floor((p / 100) * done))]!.toFixed(1);
  console.log(
    `teams: ${done} cycles (concurrency ${concurrency}) in ${seconds.toFixed(1)} s, ${(done / seconds).toFixed(0)} cycles/s, errors ${errors};` +
      ` CPU ms/cycle askgate ${perCycle(used.byProcess.askgate)} redis ${perCycle(used.byProcess.redis)};` +
      ` Redis commands/cycle executed ${(total / done).toFixed(1)}; cycle p50/p99 ${pct(50)}/${pct(99)} ms`,
  );
  const byName = Object.entries(delta)
    .map(([k, v]) => [k, +(v / done).toFixed(2)] as const)
    .sort((a, b) => b[1] - a[1]);
  console.log('Redis commands per cycle by name:', Object.fromEntries(byName));
  // askgate logs at warn: its JSON lines are warnings and errors (the startup banner is plain text).
  const problems = askgate
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  if (problems.length) console.log(`askgate warnings/errors (${problems.length}):`, problems.slice(0, 8).join('\n  '));
} finally {
  api.close();
  await askgate.stop();
  await fake.close();
  admin.disconnect();
  await redis.dispose();
}
process.exit(errors > 0 ? 1 : 0);
