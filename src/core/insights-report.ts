import {
  ANSWER_BUCKETS,
  answerBucketBound,
  daysBetween,
  DECISION_SHARES,
  DELAY_BUCKETS,
  delayBucket,
  DIMENSIONS,
  OUTCOMES,
  quantileOf,
  scopeName,
  type Dimension,
} from './insights.js';

/** The longest period one insights request covers, in days. */
export const INSIGHTS_MAX_DAYS = 92;
/** People listed by answers (the most first). */
const PEOPLE_MAX = 20;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A validated insights query: a UTC day range and at most one dimension filter. */
export interface InsightsQuery {
  from: string;
  to: string;
  filter: { dim: Dimension; value: string } | null;
}

/** A refused query: the field named, as the API's 400 says it. */
export interface QueryProblem {
  field: string;
  message: string;
}

const isDay = (s: string) => {
  const t = DAY.test(s) ? Date.parse(`${s}T00:00:00Z`) : NaN;
  return Number.isFinite(t) && new Date(t).toISOString().startsWith(s);
};

/**
 * Reads `?from=&to=&agent=&channel=&person=` (strings as sent; arrays are a field given twice). The
 * period defaults to the 7 days ending today (UTC); one filter at a time (the rollups count each
 * dimension on its own, never crossed).
 */
export function parseInsightsQuery(raw: Record<string, unknown>, nowMs: number): InsightsQuery | QueryProblem {
  // Backticks: the boundary test reads the word and a quote after it as an import.
  const known = new Set([`from`, 'to', 'agent', 'channel', 'person']);
  for (const key of Object.keys(raw)) if (!known.has(key)) return { field: key, message: 'unknown parameter' };
  for (const [key, value] of Object.entries(raw))
    if (typeof value !== 'string') return { field: key, message: 'give it once, as text' };
  const q = raw as Record<string, string | undefined>;
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const to = q.to ?? today;
  if (!isDay(to)) return { field: 'to', message: 'must be a day, YYYY-MM-DD' };
  const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
  if (!isDay(from)) return { field: `from`, message: 'must be a day, YYYY-MM-DD' };
  if (from > to) return { field: `from`, message: 'must not be after to' };
  if (daysBetween(from, to).length > INSIGHTS_MAX_DAYS)
    return { field: `from`, message: `the period is at most ${INSIGHTS_MAX_DAYS} days` };
  let filter: InsightsQuery['filter'] = null;
  for (const dim of Object.keys(DIMENSIONS) as Dimension[]) {
    const value = q[dim];
    if (value === undefined) continue;
    if (value === '' || value.length > 128) return { field: dim, message: 'must be 1–128 characters' };
    if (filter)
      return { field: dim, message: `filter by one of agent, channel, person at a time (${filter.dim} given)` };
    filter = { dim, value };
  }
  return { from, to, filter };
}

/** A count with its denominator. */
export interface Share {
  count: number;
  of: number;
}

/** Pending asks now, from the pending index (never filtered: the index does not know the dimensions). */
export interface PendingNow {
  count: number;
  /** Creation time of the oldest pending ask, epoch ms (null: none). */
  oldestCreatedMs: number | null;
  /** Pending asks per {@link DELAY_BUCKETS} by age. */
  ages: number[];
}

/** Sums of one scope's counters over the period. */
function summed(days: ReadonlyMap<string, Readonly<Record<string, number>>>, scope: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const fields of days.values())
    for (const [field, n] of Object.entries(fields)) {
      const bar = field.indexOf('|');
      if (bar < 0 || field.slice(bar + 1) !== scope) continue;
      const metric = field.slice(0, bar);
      sums.set(metric, (sums.get(metric) ?? 0) + n);
    }
  return sums;
}

/** Values of a dimension with their `n` over the period (the day's `other` as null). */
function values(days: ReadonlyMap<string, Readonly<Record<string, number>>>, dim: string): Map<string | null, number> {
  const out = new Map<string | null, number>();
  for (const fields of days.values())
    for (const [field, n] of Object.entries(fields)) {
      if (!field.startsWith(`n|${dim}`)) continue;
      const rest = field.slice(2 + dim.length);
      const value = rest === '~' ? null : rest.startsWith(':') ? rest.slice(1) : undefined;
      if (value !== undefined) out.set(value, (out.get(value) ?? 0) + n);
    }
  return out;
}

/**
 * The insights figures of a period, each with its denominator: from the days' counters
 * (`YYYY-MM-DD` -> field -> count, absent days empty) and the pending index's figures at `nowMs`.
 */
export function insightsReport(
  query: InsightsQuery,
  days: ReadonlyMap<string, Readonly<Record<string, number>>>,
  pending: PendingNow,
  nowMs: number,
) {
  const scope = query.filter ? scopeName(DIMENSIONS[query.filter.dim], query.filter.value) : '*';
  const s = summed(days, scope);
  const get = (metric: string) => s.get(metric) ?? 0;
  const asks = get('n');
  const answered = get('o.answered');
  const approvals = get('k.approval');
  const counts = Array.from({ length: ANSWER_BUCKETS }, (_, i) => get(`t.${i}`));
  const timed = counts.reduce((a, b) => a + b, 0);
  const quantile = (q: number) => ({ seconds: quantileOf(counts, q), of: timed });
  const people = [...values(days, DIMENSIONS.person)]
    .filter(([value]) => value !== null)
    .sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])))
    .slice(0, PEOPLE_MAX)
    .map(([person, n]) => ({ person: person!, answers: { count: n, of: answered } }));
  const dimensionValues = (dim: Dimension) =>
    [...values(days, DIMENSIONS[dim]).keys()].filter((v): v is string => v !== null).sort();
  const otherOf = (dim: Dimension) => values(days, DIMENSIONS[dim]).get(null) ?? 0;
  return {
    from: query.from,
    to: query.to,
    filter: query.filter ? { [query.filter.dim]: query.filter.value } : null,
    asks: { count: asks },
    outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, { count: get(`o.${o}`), of: asks } satisfies Share])),
    approvals: {
      count: approvals,
      of: asks,
      decisions: Object.fromEntries(
        Object.values(DECISION_SHARES).map((d) => [d, { count: get(`d.${d}`), of: approvals } satisfies Share]),
      ),
    },
    timeToAnswer: {
      median: quantile(0.5),
      p95: quantile(0.95),
      /** Upper bound in seconds (null: the open last bucket) and answers in it. */
      buckets: counts.map((count, i) => ({
        le: Number.isFinite(answerBucketBound(i)) ? answerBucketBound(i) : null,
        count,
      })),
      maxError: 'a quantile is its bucket’s geometric middle: within a factor √1.5 (about 22 %) of the true value',
    },
    delays: DELAY_BUCKETS.map((b, i) => ({ bucket: b.key, count: get(`w.${i}`), of: asks })),
    pending: {
      count: pending.count,
      oldestWaitSeconds:
        pending.oldestCreatedMs === null ? null : Math.max(0, (nowMs - pending.oldestCreatedMs) / 1000),
      ages: DELAY_BUCKETS.map((b, i) => ({ bucket: b.key, count: pending.ages[i] ?? 0, of: pending.count })),
      filtered: false,
    },
    people,
    days: [...daysBetween(query.from, query.to)].map((day) => {
      const one = summed(new Map(days.has(day) ? [[day, days.get(day)!]] : []), scope);
      return { day, asks: one.get('n') ?? 0, answered: one.get('o.answered') ?? 0 };
    }),
    dimensions: {
      agents: dimensionValues('agent'),
      channels: dimensionValues('channel'),
      other: { agent: otherOf('agent'), channel: otherOf('channel'), person: otherOf('person') },
    },
  };
}

/** The body of `GET /v1/insights`. */
export type InsightsReport = ReturnType<typeof insightsReport>;

/** What the insights are read from: a store's day counters and its pending index. */
export interface InsightsSource {
  /** Each day's counters that exist (field -> count), for the UTC days given. */
  days(days: readonly string[]): Promise<Map<string, Record<string, number>>>;
  /** Pending asks now, their oldest and their ages, from the pending index (not a scan of the records). */
  pending(nowMs: number): Promise<PendingNow>;
}

/** The pending figures of the creation times (epoch ms) of the pending asks. */
export function pendingNowOf(createdMs: Iterable<number>, nowMs: number): PendingNow {
  const ages = DELAY_BUCKETS.map(() => 0);
  let count = 0;
  let oldest: number | null = null;
  for (const created of createdMs) {
    count++;
    oldest = oldest === null ? created : Math.min(oldest, created);
    ages[delayBucket(Math.max(0, (nowMs - created) / 1000))]!++;
  }
  return { count, oldestCreatedMs: oldest, ages };
}
