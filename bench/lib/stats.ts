/** Percentiles and histograms of latency samples (ms). */

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const arr = Array.from(sorted);
  let sum = 0;
  for (const v of arr) sum += v;
  return {
    count: arr.length,
    min: arr[0] ?? NaN,
    p50: percentile(arr, 50),
    p90: percentile(arr, 90),
    p99: percentile(arr, 99),
    max: arr[arr.length - 1] ?? NaN,
    mean: arr.length ? sum / arr.length : NaN,
  };
}

/** Points of the empirical CDF, thinned to at most `points` entries (for charts). */
export function cdf(values: readonly number[], points = 200): [number, number][] {
  const sorted = Array.from(Float64Array.from(values).sort());
  if (sorted.length === 0) return [];
  const out: [number, number][] = [];
  const step = Math.max(1, Math.floor(sorted.length / points));
  for (let i = 0; i < sorted.length; i += step) out.push([sorted[i]!, (i + 1) / sorted.length]);
  out.push([sorted[sorted.length - 1]!, 1]);
  return out;
}

/** Formats a number of ms for tables. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

/** Formats a rate or count with thousands separators. */
export function num(v: number, digits = 0): string {
  if (!Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
