import type { Metrics } from '../core/ports.js';
import type { InsightsSource } from '../core/insights-report.js';

const ANSWER_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
/** Buckets of the labelled histograms, up to the longest waits (30 days). */
const LONG_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 14_400, 86_400, 259_200, 604_800, 2_592_000];
/** Label sets kept per labelled histogram; more (never expected: every label is bounded) are counted as `other`. */
const SERIES_MAX = 500;

/** A Prometheus histogram by label set (the labels rendered once, as the key). */
class LabelledHistogram {
  private readonly series = new Map<string, { buckets: number[]; count: number; sum: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  observe(labels: Record<string, string>, seconds: number): void {
    let key = Object.entries(labels)
      .map(([k, v]) => `${k}="${label(v)}"`)
      .join(',');
    if (!this.series.has(key) && this.series.size >= SERIES_MAX)
      key = Object.keys(labels)
        .map((k) => `${k}="other"`)
        .join(',');
    let one = this.series.get(key);
    if (!one) this.series.set(key, (one = { buckets: LONG_BUCKETS.map(() => 0), count: 0, sum: 0 }));
    one.count++;
    one.sum += seconds;
    LONG_BUCKETS.forEach((le, i) => {
      if (seconds <= le) one.buckets[i]!++;
    });
  }

  lines(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, one] of this.series) {
      LONG_BUCKETS.forEach((le, i) => out.push(`${this.name}_bucket{${key},le="${le}"} ${one.buckets[i]}`));
      out.push(`${this.name}_bucket{${key},le="+Inf"} ${one.count}`);
      out.push(`${this.name}_sum{${key}} ${one.sum}`, `${this.name}_count{${key}} ${one.count}`);
    }
    return out;
  }
}

/** Escapes a Prometheus label value. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** In-process Prometheus metrics: asks created, resolved by status and reason, time to answer, guard blocks. */
export class PrometheusMetrics implements Metrics {
  private readonly created = new Map<string, number>();
  private readonly resolved = new Map<string, number>();
  private readonly deliveryFailures = new Map<string, number>();
  private readonly buckets = ANSWER_BUCKETS.map(() => 0);
  private answeredCount = 0;
  private guardBlockedCount = 0;
  private answeredSum = 0;
  private readonly toDeliver = new LabelledHistogram(
    'askgate_time_to_deliver_seconds',
    "Time from an ask to each of its messages being sent, by the delivery's channel and the ask's kind.",
  );
  private readonly toOutcome = new LabelledHistogram(
    'askgate_time_to_outcome_seconds',
    "Time from an ask to its outcome (answered, skipped, timed_out, default_taken, cancelled, undelivered, superseded), by its first target's channel and its kind.",
  );
  /** The pending index's figures at the last scrape (null: not read, or no store to read). */
  private pendingNow: { count: number; oldestSeconds: number } | null = null;

  askCreated(channel: string): void {
    this.created.set(channel, (this.created.get(channel) ?? 0) + 1);
  }

  askResolved(
    status: string,
    reason: string | null,
    secondsOpen: number,
    labels?: { channel: string; kind: string; outcome: string },
  ): void {
    if (labels) this.toOutcome.observe(labels, secondsOpen);
    const key = `status="${label(status)}",reason="${label(reason ?? '')}"`;
    this.resolved.set(key, (this.resolved.get(key) ?? 0) + 1);
    if (status !== 'answered') return;
    this.answeredCount++;
    this.answeredSum += secondsOpen;
    ANSWER_BUCKETS.forEach((le, i) => {
      if (secondsOpen <= le) this.buckets[i]!++;
    });
  }

  askDelivered(channel: string, kind: string, seconds: number): void {
    this.toDeliver.observe({ channel, kind }, seconds);
  }

  deliveryFailed(channel: string): void {
    this.deliveryFailures.set(channel, (this.deliveryFailures.get(channel) ?? 0) + 1);
  }

  guardBlocked(): void {
    this.guardBlockedCount++;
  }

  /**
   * The exposition text after reading the pending gauges from `source` (the store's pending index:
   * a few O(log n) reads per scrape); a failed read leaves the gauges out of this scrape.
   */
  async scrape(source: InsightsSource | undefined, nowMs: number): Promise<string> {
    const pending = source ? await source.pending(nowMs).catch(() => null) : null;
    this.pendingNow = pending && {
      count: pending.count,
      oldestSeconds: pending.oldestCreatedMs === null ? 0 : Math.max(0, (nowMs - pending.oldestCreatedMs) / 1000),
    };
    return this.render();
  }

  /** The exposition text for `GET /metrics`. */
  render(): string {
    const lines: string[] = [
      '# HELP askgate_asks_created_total Asks created, by target channel.',
      '# TYPE askgate_asks_created_total counter',
      ...[...this.created].map(([ch, n]) => `askgate_asks_created_total{channel="${label(ch)}"} ${n}`),
      '# HELP askgate_asks_resolved_total Asks that reached a terminal state, by status and reason.',
      '# TYPE askgate_asks_resolved_total counter',
      ...[...this.resolved].map(([key, n]) => `askgate_asks_resolved_total{${key}} ${n}`),
      '# HELP askgate_delivery_failures_total Deliveries that gave up, by channel.',
      '# TYPE askgate_delivery_failures_total counter',
      ...[...this.deliveryFailures].map(([ch, n]) => `askgate_delivery_failures_total{channel="${label(ch)}"} ${n}`),
      '# HELP askgate_time_to_answer_seconds Time from ask to answer, for answered asks.',
      '# TYPE askgate_time_to_answer_seconds histogram',
      ...ANSWER_BUCKETS.map((le, i) => `askgate_time_to_answer_seconds_bucket{le="${le}"} ${this.buckets[i]}`),
      `askgate_time_to_answer_seconds_bucket{le="+Inf"} ${this.answeredCount}`,
      `askgate_time_to_answer_seconds_sum ${this.answeredSum}`,
      `askgate_time_to_answer_seconds_count ${this.answeredCount}`,
      '# HELP askgate_guard_blocked_total Tool calls a run guard did not run while an ask was open, as recorded.',
      '# TYPE askgate_guard_blocked_total counter',
      `askgate_guard_blocked_total ${this.guardBlockedCount}`,
      ...this.toDeliver.lines(),
      ...this.toOutcome.lines(),
      ...(this.pendingNow
        ? [
            '# HELP askgate_pending_asks Asks waiting for an answer now, from the pending index (all replicas).',
            '# TYPE askgate_pending_asks gauge',
            `askgate_pending_asks ${this.pendingNow.count}`,
            '# HELP askgate_oldest_pending_ask_age_seconds Age of the oldest ask waiting for an answer (0: none).',
            '# TYPE askgate_oldest_pending_ask_age_seconds gauge',
            `askgate_oldest_pending_ask_age_seconds ${this.pendingNow.oldestSeconds}`,
          ]
        : []),
    ];
    return lines.join('\n') + '\n';
  }
}
