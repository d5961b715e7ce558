import type { RunningAskgate } from '../../src/main.js';
import { askBody, client } from './http.js';

/** A clock the test moves: askgate reads it for every record time. */
export function movableClock(start: number) {
  let now = start;
  return { now: () => now, set: (ms: number) => void (now = ms) };
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** What {@link seedWeek} made, to compare the insights with (counted here, independently of askgate's rollups). */
export interface SeededWeek {
  asks: number;
  outcomes: Record<string, number>;
  approvals: number;
  decisions: Record<string, number>;
  /** Times to answer in seconds, of the answered asks. */
  answerSeconds: number[];
  perPerson: Record<string, number>;
  perAgent: Record<string, number>;
  pending: number;
  /** Asks per day (YYYY-MM-DD) and answered per day. */
  days: Record<string, { asks: number; answered: number }>;
}

const approvalBody = (runId: string, agent: string) => ({
  runId,
  agent,
  to: { channel: 'test', chat: 'c1' },
  approval: { action: 'deploy', summary: 'Deploy build 42 to production', arguments: { build: 42 } },
});

/**
 * Seeds a week ending on `end`'s UTC day through the API, moving `clock`: day k (0 = 6 days ago)
 * gets 3 + k asks: answered by alice after (k+1)·10 min, answered by bob after 2 h, cancelled;
 * then from day 1 a skip, day 2 an approval approved by carol after 30 min, day 3 an approval
 * rejected by carol after 3 h, day 4 a timeout, day 5 one answered by alice after 30 h (counted on
 * the day it is answered: today), day 6 a default taken; agents alternate deploy-bot / billing-bot. Then two asks
 * stay pending, created 50 and 5 minutes before `end`. The clock ends at `end`.
 */
export async function seedWeek(
  app: RunningAskgate,
  clock: ReturnType<typeof movableClock>,
  end: number,
  token?: string,
): Promise<SeededWeek> {
  const api = client(app.url, token);
  const seeded: SeededWeek = {
    asks: 0,
    outcomes: {},
    approvals: 0,
    decisions: {},
    answerSeconds: [],
    perPerson: {},
    perAgent: {},
    pending: 0,
    days: {},
  };
  const today = Math.floor(end / DAY) * DAY;
  let serial = 0;
  const create = async (at: number, agent: string, body?: object, timeoutSeconds = 864_000) => {
    clock.set(at);
    const runId = `seed-${serial++}`;
    const res = await api.post('/v1/asks', {
      ...(body ?? askBody(runId, { to: { channel: 'test', chat: 'c1' } })),
      runId,
      agent,
      timeoutSeconds,
    });
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`seed ask: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const count = (settled: number, outcome: string, agent: string) => {
    const day = new Date(settled).toISOString().slice(0, 10);
    seeded.asks++;
    seeded.outcomes[outcome] = (seeded.outcomes[outcome] ?? 0) + 1;
    seeded.perAgent[agent] = (seeded.perAgent[agent] ?? 0) + 1;
    const d = (seeded.days[day] ??= { asks: 0, answered: 0 });
    d.asks++;
    if (outcome === 'answered') d.answered++;
  };
  const answer = async (
    id: string,
    at: number,
    created: number,
    by: string,
    agent: string,
    body: object = { answers: { env: ['Staging'] } },
  ) => {
    clock.set(at);
    const res = await api.post(`/v1/asks/${id}/answer`, { ...body, by });
    if (res.status !== 200) throw new Error(`seed answer: ${res.status} ${JSON.stringify(res.body)}`);
    seeded.answerSeconds.push((at - created) / 1000);
    seeded.perPerson[`api:${by}`] = (seeded.perPerson[`api:${by}`] ?? 0) + 1;
    count(at, 'answered', agent);
  };
  const late: (() => Promise<void>)[] = [];
  for (let k = 0; k < 7; k++) {
    const base = today - (6 - k) * DAY + 8 * HOUR;
    const agent = k % 2 === 0 ? 'deploy-bot' : 'billing-bot';
    const a = await create(base, agent);
    await answer(a, base + (k + 1) * 10 * MIN, base, 'alice', agent);
    const b = await create(base + MIN, agent);
    await answer(b, base + MIN + 2 * HOUR, base + MIN, 'bob', agent);
    const c = await create(base + 2 * MIN, agent);
    clock.set(base + 3 * MIN);
    await api.post(`/v1/asks/${c}/cancel`);
    count(base + 3 * MIN, 'cancelled', agent);
    if (k >= 1) {
      const s = await create(base + 4 * MIN, agent);
      clock.set(base + 5 * MIN);
      await api.post(`/v1/asks/${s}/answer`, { skip: true });
      count(base + 5 * MIN, 'skipped', agent);
    }
    if (k >= 2) {
      const p = await create(base + 6 * MIN, agent, approvalBody('x', agent));
      seeded.approvals++;
      seeded.decisions.approved = (seeded.decisions.approved ?? 0) + 1;
      await answer(p, base + 36 * MIN, base + 6 * MIN, 'carol', agent, { decision: 'approve' });
    }
    if (k >= 3) {
      const r = await create(base + 7 * MIN, agent, approvalBody('x', agent));
      seeded.approvals++;
      seeded.decisions.rejected = (seeded.decisions.rejected ?? 0) + 1;
      await answer(r, base + 7 * MIN + 3 * HOUR, base + 7 * MIN, 'carol', agent, {
        decision: 'reject',
        reason: 'not today',
      });
    }
    if (k >= 4) {
      const t = await create(base + 8 * MIN, agent, undefined, 600);
      clock.set(base + 20 * MIN);
      await app.gateway.expire(t);
      count(base + 20 * MIN, 'timed_out', agent);
    }
    if (k === 5) {
      const created = base + 9 * MIN;
      const l = await create(created, agent);
      late.push(() => answer(l, created + 30 * HOUR, created, 'alice', agent));
    }
    if (k === 6) {
      const body = askBody('x', { to: { channel: 'test', chat: 'c1' }, onTimeout: { default: { env: ['Staging'] } } });
      const d = await create(base + 10 * MIN, agent, body, 600);
      clock.set(base + 30 * MIN);
      await app.gateway.expire(d);
      count(base + 30 * MIN, 'default_taken', agent);
    }
  }
  for (const run of late) await run();
  await create(end - 50 * MIN, 'deploy-bot');
  await create(end - 5 * MIN, 'deploy-bot');
  seeded.pending = 2;
  clock.set(end);
  return seeded;
}
