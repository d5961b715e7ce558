import type { AskRecord } from './schemas.js';

/**
 * Insights (issue 40, part 3): what one settled ask adds to its day's rollup, and the bucket math
 * the figures are read back with. Pure: the stores apply a {@link Rollup} (Lua on Redis, the same
 * rule in {@link applyRollup} for the memory store), the API sums days ({@link ./insights-report.ts}).
 */

/** How an ask ended, for the shares: exactly one per settled ask. */
export const OUTCOMES = [
  'answered',
  'skipped',
  'timed_out',
  'default_taken',
  'cancelled',
  'undelivered',
  'superseded',
] as const;
/** One of {@link OUTCOMES}. */
export type InsightOutcome = (typeof OUTCOMES)[number];

/** An approval's decision, for the approval shares (denominator: approvals settled). */
export const DECISION_SHARES = {
  approve: 'approved',
  reject: 'rejected',
  request_changes: 'changes_requested',
  edit: 'edited',
} as const;

/** Delay buckets (from creation to settlement, or a pending ask's age), upper bounds in seconds. */
export const DELAY_BUCKETS = [
  { key: 'under_1h', upTo: 3_600 },
  { key: '1h_24h', upTo: 86_400 },
  { key: '1d_3d', upTo: 3 * 86_400 },
  { key: '3d_7d', upTo: 7 * 86_400 },
  { key: 'longer', upTo: Infinity },
] as const;

/**
 * Time-to-answer histogram: bucket i holds (1.5^(i-1), 1.5^i] seconds (bucket 0: up to 1 s), the
 * last one everything above 1.5^(ANSWER_BUCKETS-2) s (~38 days). A quantile is read as its
 * bucket's geometric middle, so it is at most a factor √1.5 (≈ 22 %) off the true value.
 */
export const ANSWER_GROWTH = 1.5;
/** Number of time-to-answer buckets (the last one open-ended). */
export const ANSWER_BUCKETS = 39;

/** The bounded dimensions a rollup splits by, and how many distinct values one day keeps for each. */
export const DIMENSIONS = { agent: 'a', channel: 'c', person: 'p' } as const;
/** One filterable dimension. */
export type Dimension = keyof typeof DIMENSIONS;
/**
 * Distinct values per dimension per day: the first N seen that day get their own counters, the
 * rest are counted together as `other` (so memory stays bounded whatever agents and people send).
 */
export const DIMENSION_CAPS: Readonly<Record<Dimension, number>> = { agent: 100, channel: 20, person: 200 };
/** The longest kept dimension value (an agent label is ≤ 64; a person is `<channel>:<userId>`). */
const VALUE_MAX = 128;

/** The bucket index of a time to answer in seconds. */
export function answerBucket(seconds: number): number {
  if (!(seconds > 1)) return 0;
  const i = Math.ceil(Math.log(seconds) / Math.log(ANSWER_GROWTH) - 1e-9);
  return Math.min(i, ANSWER_BUCKETS - 1);
}

/** The upper bound of answer bucket `i` in seconds (Infinity for the last). */
export function answerBucketBound(i: number): number {
  return i >= ANSWER_BUCKETS - 1 ? Infinity : ANSWER_GROWTH ** i;
}

/** The index of a delay in seconds among {@link DELAY_BUCKETS}. */
export function delayBucket(seconds: number): number {
  return DELAY_BUCKETS.findIndex((b) => seconds < b.upTo);
}

/** What one settled ask adds to its day: the scopes it counts in and the counters it raises in each. */
export interface Rollup {
  /** UTC day of the settlement, `YYYY-MM-DD`. */
  day: string;
  /** Besides the total (`*`): the ask's dimension values (one per dimension, when it has one). */
  scopes: { dim: (typeof DIMENSIONS)[Dimension]; value: string; cap: number }[];
  /** Counter names raised by 1 in every scope (`n` first: the ask itself). */
  metrics: string[];
}

/** The outcome of a settled ask among {@link OUTCOMES}. */
export function outcomeOf(record: AskRecord): InsightOutcome | null {
  const result = record.result;
  if (!result) return null;
  if (result.status === 'answered') return 'answered';
  switch (result.reason) {
    case 'timeout':
      return result.defaults || result.decision ? 'default_taken' : 'timed_out';
    case 'skipped':
      return 'skipped';
    case 'cancelled':
      return 'cancelled';
    case 'undelivered':
      return 'undelivered';
    case 'superseded':
      return 'superseded';
  }
}

/** The kind label of an ask: `approval`, a single question's kind (`choice`, `number`, ...), or `form` for several. */
export function askKind(record: Pick<AskRecord, 'approval' | 'questions'>): string {
  if (record.approval) return 'approval';
  if (record.questions.length !== 1) return 'form';
  return record.questions[0]!.kind ?? 'choice';
}

/** The channel an ask is counted under: its first target's (the same as `askgate_asks_created_total`), else `none`. */
export function channelOf(record: Pick<AskRecord, 'to'>): string {
  return record.to?.channel ?? 'none';
}

/** When the ask settled, in epoch ms (null while pending). */
export function settledAt(record: AskRecord): number | null {
  const result = record.result;
  if (!result) return null;
  return Date.parse(result.status === 'answered' ? result.answeredAt : result.at);
}

/** What a settled record adds to the rollups (null while pending). */
export function rollupOf(record: AskRecord): Rollup | null {
  const outcome = outcomeOf(record);
  const at = settledAt(record);
  if (outcome === null || at === null || !Number.isFinite(at)) return null;
  const waited = Math.max(0, (at - Date.parse(record.createdAt)) / 1000);
  const metrics = ['n', `o.${outcome}`, `w.${delayBucket(waited)}`];
  const scopes: Rollup['scopes'] = [];
  const add = (dim: Dimension, value: string) =>
    scopes.push({ dim: DIMENSIONS[dim], value: value.slice(0, VALUE_MAX), cap: DIMENSION_CAPS[dim] });
  if (record.agent) add('agent', record.agent);
  add('channel', channelOf(record));
  if (record.approval) metrics.push('k.approval');
  const result = record.result!;
  if (result.status === 'answered') {
    metrics.push(`t.${answerBucket(waited)}`);
    if (result.decision) metrics.push(`d.${DECISION_SHARES[result.decision]}`);
    add('person', `${result.answeredBy.channel}:${result.answeredBy.userId}`);
  }
  return { day: new Date(at).toISOString().slice(0, 10), scopes, metrics };
}

/** The scope name of a dimension value in a day's counters (`other` once the day's cap is reached). */
export function scopeName(dim: string, value: string | null): string {
  return value === null ? `${dim}~` : `${dim}:${value}`;
}

/**
 * Applies a rollup to one day's counters, exactly as the Redis script does: a dimension value not
 * yet seen that day takes a slot while fewer than its cap are taken (`#<dim>` counts them), else it
 * is counted as the dimension's `other`; then every metric is raised by one in every scope, as the
 * field `<metric>|<scope>`.
 */
export function applyRollup(day: Map<string, number>, rollup: Rollup): void {
  const scopes = ['*'];
  for (const { dim, value, cap } of rollup.scopes) {
    let scope = scopeName(dim, value);
    if (!day.has(`n|${scope}`)) {
      const taken = day.get(`#${dim}`) ?? 0;
      if (taken >= cap) scope = scopeName(dim, null);
      else day.set(`#${dim}`, taken + 1);
    }
    scopes.push(scope);
  }
  for (const metric of rollup.metrics)
    for (const scope of scopes) day.set(`${metric}|${scope}`, (day.get(`${metric}|${scope}`) ?? 0) + 1);
}

/** The UTC days from `from` to `to` (`YYYY-MM-DD`, both included). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/**
 * The `q` quantile (0–1) of a histogram of answer buckets (`counts[i]`: answers in bucket i), as
 * the geometric middle of the bucket that holds it (bucket 0: 1 s; the open last bucket: its lower
 * bound). Null without answers.
 */
export function quantileOf(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen < rank) continue;
    if (i === 0) return 1;
    if (i >= ANSWER_BUCKETS - 1) return answerBucketBound(i - 1);
    return Math.sqrt(answerBucketBound(i - 1) * answerBucketBound(i));
  }
  return null;
}
