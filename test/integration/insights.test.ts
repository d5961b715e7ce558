import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { RunningAskgate } from '../../src/main.js';
import { answerBucket, ANSWER_BUCKETS, quantileOf } from '../../src/core/insights.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { movableClock, seedWeek, type SeededWeek } from '../helpers/insights-seed.js';

const END = Date.parse('2030-03-09T15:00:00Z');
const TOKEN = 'insights-test-token';

describe.each(['memory', 'redis'] as const)('insights on the %s store', (mode) => {
  let redis: TestRedis | null = null;
  let app: RunningAskgate;
  let seeded: SeededWeek;
  const clock = movableClock(END - 8 * 86_400_000);
  const api = () => client(app.url, TOKEN);
  const prefix = `ins${mode}`;

  beforeAll(async () => {
    if (mode === 'redis') redis = await startRedis();
    const env = testEnv({
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_TIMEOUT_MAX_SECONDS: '864000',
      ASKGATE_KEY_PREFIX: prefix,
      ...(redis ? { REDIS_URL: redis.url } : {}),
    });
    app = await startTestApp(env, [new RecordingChannel('test')], { clock });
    seeded = await seedWeek(app, clock, END, TOKEN);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('a seeded week: every figure with its denominator', async () => {
    const res = await api().get('/v1/insights?from=2030-03-03&to=2030-03-09');
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.asks).toEqual({ count: seeded.asks });
    for (const [outcome, count] of Object.entries(seeded.outcomes))
      expect(r.outcomes[outcome], outcome).toEqual({ count, of: seeded.asks });
    expect(r.outcomes.undelivered).toEqual({ count: 0, of: seeded.asks });
    expect(r.approvals).toMatchObject({ count: seeded.approvals, of: seeded.asks });
    expect(r.approvals.decisions.approved).toEqual({ count: seeded.decisions.approved, of: seeded.approvals });
    expect(r.approvals.decisions.rejected).toEqual({ count: seeded.decisions.rejected, of: seeded.approvals });
    // The quantiles are the buckets' reading of the exact times (core's table tests bound its error).
    const counts = Array.from({ length: ANSWER_BUCKETS }, () => 0);
    for (const s of seeded.answerSeconds) counts[answerBucket(s)]!++;
    expect(r.timeToAnswer.median).toEqual({ seconds: quantileOf(counts, 0.5), of: seeded.answerSeconds.length });
    expect(r.timeToAnswer.p95).toEqual({ seconds: quantileOf(counts, 0.95), of: seeded.answerSeconds.length });
    const people = Object.fromEntries(r.people.map((p: { person: string; answers: unknown }) => [p.person, p.answers]));
    const answered = seeded.outcomes.answered!;
    expect(people).toEqual(
      Object.fromEntries(Object.entries(seeded.perPerson).map(([p, n]) => [p, { count: n, of: answered }])),
    );
    expect(r.days).toEqual(Object.entries(seeded.days).map(([day, d]) => ({ day, ...d })));
    // One ask answered after 2 days: the only one in "1–3 days".
    expect(r.delays.map((d: { count: number }) => d.count)).toEqual([
      seeded.asks - 1 - (r.delays[1].count as number),
      r.delays[1].count,
      1,
      0,
      0,
    ]);
    expect(r.pending).toMatchObject({ count: 2, oldestWaitSeconds: 50 * 60, filtered: false });
    expect(r.pending.ages[0]).toEqual({ bucket: 'under_1h', count: 2, of: 2 });
    expect(r.dimensions.agents).toEqual(['billing-bot', 'deploy-bot']);
  });

  it('filters by one agent, channel or person', async () => {
    const agent = (await api().get('/v1/insights?from=2030-03-03&to=2030-03-09&agent=billing-bot')).body;
    expect(agent.asks).toEqual({ count: seeded.perAgent['billing-bot'] });
    expect(agent.filter).toEqual({ agent: 'billing-bot' });
    const channel = (await api().get('/v1/insights?from=2030-03-03&to=2030-03-09&channel=test')).body;
    expect(channel.asks).toEqual({ count: seeded.asks });
    const person = (await api().get('/v1/insights?from=2030-03-03&to=2030-03-09&person=api%3Acarol')).body;
    expect(person.asks).toEqual({ count: seeded.perPerson['api:carol'] });
    expect(person.approvals.decisions.rejected.of).toBe(seeded.perPerson['api:carol']);
    const nobody = (await api().get('/v1/insights?from=2030-03-03&to=2030-03-09&agent=nobody')).body;
    expect(nobody.asks).toEqual({ count: 0 });
    expect(nobody.outcomes.answered).toEqual({ count: 0, of: 0 });
    expect(nobody.timeToAnswer.median).toEqual({ seconds: null, of: 0 });
  });

  it.each([
    ['from=2030-02-30', 'from'],
    ['to=tomorrow', 'to'],
    ['from=2030-03-09&to=2030-03-01', 'from'],
    ['from=2029-01-01&to=2030-03-01', 'from'],
    ['agent=a&channel=b', 'channel'],
    ['person=', 'person'],
    ['agent=a&agent=b', 'agent'],
    ['colour=red', 'colour'],
  ])('?%s is 400 naming %s', async (query, field) => {
    const res = await api().get(`/v1/insights?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.issues[0].path).toEqual([field]);
    expect(res.body.error.message).toContain(field);
  });

  it('needs the API token; the console route needs a session', async () => {
    expect((await client(app.url).get('/v1/insights')).status).toBe(401);
    expect((await client(app.url, 'wrong').get('/v1/insights')).status).toBe(401);
    expect((await client(app.url, TOKEN).get('/console/insights/data')).status).toBe(401);
  });

  it('/metrics: time to deliver and to outcome by channel, kind and outcome, the oldest pending ask', async () => {
    const text = (await api().get('/metrics')).body as string;
    expect(text).toContain('# TYPE askgate_time_to_deliver_seconds histogram');
    expect(text).toMatch(/askgate_time_to_deliver_seconds_count\{channel="test",kind="choice"\} \d+/);
    expect(text).toMatch(/askgate_time_to_deliver_seconds_count\{channel="test",kind="approval"\} \d+/);
    const outcome = (o: string, kind = 'choice') =>
      Number(
        new RegExp(
          `askgate_time_to_outcome_seconds_count\\{channel="test",kind="${kind}",outcome="${o}"\\} (\\d+)`,
        ).exec(text)?.[1],
      );
    expect(outcome('cancelled')).toBe(seeded.outcomes.cancelled);
    expect(outcome('timed_out')).toBe(seeded.outcomes.timed_out);
    expect(outcome('answered', 'approval')).toBe(seeded.approvals);
    expect(text).toMatch(
      /askgate_time_to_outcome_seconds_bucket\{channel="test",kind="choice",outcome="skipped",le="1"\} 0\n/,
    );
    expect(text).toContain('askgate_pending_asks 2\n');
    expect(text).toContain(`askgate_oldest_pending_ask_age_seconds ${50 * 60}\n`);
  });

  it.runIf(mode === 'redis')(
    'Redis keeps one hash per day with a TTL, and the commit wrote it (no other key)',
    async () => {
      const r = new Redis(redis!.url);
      try {
        const keys = (await r.keys(`${prefix}:insights:*`)).sort();
        expect(keys).toEqual([...Object.keys(seeded.days)].map((d) => `${prefix}:insights:{${d}}`).sort());
        const ttl = await r.pttl(keys[0]!);
        expect(ttl).toBeGreaterThan(90 * 86_400_000);
        expect(await r.type(keys[0]!)).toBe('hash');
      } finally {
        r.disconnect();
      }
    },
  );
});
