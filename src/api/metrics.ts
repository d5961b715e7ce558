import type { Metrics } from '../core/ports.js';

const ANSWER_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

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

  askCreated(channel: string): void {
    this.created.set(channel, (this.created.get(channel) ?? 0) + 1);
  }

  askResolved(status: string, reason: string | null, secondsOpen: number): void {
    const key = `status="${label(status)}",reason="${label(reason ?? '')}"`;
    this.resolved.set(key, (this.resolved.get(key) ?? 0) + 1);
    if (status !== 'answered') return;
    this.answeredCount++;
    this.answeredSum += secondsOpen;
    ANSWER_BUCKETS.forEach((le, i) => {
      if (secondsOpen <= le) this.buckets[i]!++;
    });
  }

  deliveryFailed(channel: string): void {
    this.deliveryFailures.set(channel, (this.deliveryFailures.get(channel) ?? 0) + 1);
  }

  guardBlocked(): void {
    this.guardBlockedCount++;
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
    ];
    return lines.join('\n') + '\n';
  }
}
