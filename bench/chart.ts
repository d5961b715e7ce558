/**
 * A latency-by-percentile chart as a plain SVG (no native dependencies): x is the percentile on a
 * log-inverse scale (50, 90, 99, 99.9 evenly spaced), y the latency on a log scale.
 */

export interface Series {
  name: string;
  values: readonly number[];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
const W = 900;
const H = 520;
const M = { left: 70, right: 20, top: 40, bottom: 120 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The percentile axis position of quantile q (0..1): -log10(1 − q), capped at 4 (99.99 %). */
function qx(q: number): number {
  return Math.min(4, -Math.log10(Math.max(1e-4, 1 - q)));
}

export function latencyChart(title: string, series: readonly Series[]): string {
  const used = series.filter((s) => s.values.length > 0);
  const all = used.flatMap((s) => s.values).filter((v) => Number.isFinite(v));
  const lo = 0.1;
  const hiRaw = Math.max(1, ...all);
  const yMinExp = -1;
  const yMaxExp = Math.ceil(Math.log10(hiRaw));
  const xMax = 4;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (x: number) => M.left + (x / xMax) * pw;
  const py = (v: number) => M.top + ph - ((Math.log10(Math.max(lo, v)) - yMinExp) / (yMaxExp - yMinExp)) * ph;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  for (let e = yMinExp; e <= yMaxExp; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${M.left}" y1="${y}" x2="${W - M.right}" y2="${y}" stroke="#ddd"/>`);
    const label = 10 ** e >= 1000 ? `${10 ** e / 1000} s` : `${10 ** e} ms`;
    out.push(`<text x="${M.left - 6}" y="${y + 4}" text-anchor="end">${label}</text>`);
  }
  for (const [q, label] of [
    [0, '0 %'],
    [0.5, '50 %'],
    [0.9, '90 %'],
    [0.99, '99 %'],
    [0.999, '99.9 %'],
    [0.9999, '99.99 %'],
  ] as const) {
    const x = px(qx(q));
    out.push(`<line x1="${x}" y1="${M.top}" x2="${x}" y2="${M.top + ph}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${M.top + ph + 16}" text-anchor="middle">${label}</text>`);
  }
  out.push(`<text x="${M.left + pw / 2}" y="${M.top + ph + 34}" text-anchor="middle">percentile</text>`);
  out.push(
    `<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">latency (log scale)</text>`,
  );
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  used.forEach((s, i) => {
    const sorted = Array.from(Float64Array.from(s.values).sort());
    const n = sorted.length;
    const points: string[] = [];
    const steps = 400;
    for (let k = 0; k <= steps; k++) {
      const x = (k / steps) * xMax;
      const q = 1 - 10 ** -x;
      const idx = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
      points.push(`${px(x).toFixed(1)},${py(sorted[idx]!).toFixed(1)}`);
      if (q * n >= n - 1) break;
    }
    const color = COLORS[i % COLORS.length]!;
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.join(' ')}"/>`);
    const ly = M.top + ph + 52 + Math.floor(i / 2) * 18;
    const lx = M.left + (i % 2) * (pw / 2);
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 24}" y2="${ly - 4}" stroke="${color}" stroke-width="3"/>`);
    out.push(`<text x="${lx + 30}" y="${ly}">${esc(`${s.name} (n=${n.toLocaleString('en-US')})`)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

/** A round step (1, 2, 2.5 or 5 × 10^k) so that four steps cover `max`. */
function niceStep(max: number): number {
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * mag).find((v) => v >= raw)!;
}

/** One row of the growth chart: a pending count and its figures. */
export interface GrowthPoint {
  pending: number;
  bytesPerAsk: number;
  createPerSecond: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
}

/**
 * Cost growth with the number of pending asks as three small panels side by side (x: pending
 * asks, log scale): Redis bytes per ask, create rate, and timeout lateness p50/p99 (log scale).
 */
export function growthChart(title: string, points: readonly GrowthPoint[]): string {
  const GW = 900;
  const GH = 340;
  const pad = { left: 60, right: 16, top: 56, bottom: 56 };
  const pw = GW / 3 - pad.left - pad.right;
  const ph = GH - pad.top - pad.bottom;
  const rows = points.filter((p) => p.pending > 0).sort((a, b) => a.pending - b.pending);
  const xs = rows.map((p) => Math.log10(p.pending));
  const xFirst = Math.floor(Math.min(4, ...xs));
  const xLast = Math.ceil(Math.max(6, ...xs));
  // A little room either side so the end points do not sit on the frame.
  const xLo = xFirst - 0.2;
  const xHi = xLast + 0.2;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${GW}" height="${GH}" viewBox="0 0 ${GW} ${GH}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${GW}" height="${GH}" fill="white"/>`);
  out.push(`<text x="${GW / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  const panel = (
    n: number,
    name: string,
    series: { label: string; values: number[]; color: string }[],
    log: boolean,
    unit: string,
  ) => {
    const ox = n * (GW / 3) + pad.left;
    const finite = series.flatMap((s) => s.values).filter((v) => Number.isFinite(v) && (!log || v > 0));
    const hiRaw = Math.max(1, ...finite);
    const yLo = log ? Math.floor(Math.log10(Math.max(0.1, Math.min(hiRaw, ...finite)))) : 0;
    const yHi = log ? Math.ceil(Math.log10(hiRaw)) : niceStep(hiRaw * 1.1) * 4;
    const px = (x: number) => ox + ((x - xLo) / (xHi - xLo)) * pw;
    const py = (v: number) =>
      pad.top + ph - (((log ? Math.log10(Math.max(10 ** yLo, v)) : v) - yLo) / Math.max(1e-9, yHi - yLo)) * ph;
    out.push(
      `<text x="${ox + pw / 2}" y="${pad.top - 12}" text-anchor="middle" font-weight="bold">${esc(name)}</text>`,
    );
    out.push(`<rect x="${ox}" y="${pad.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
    for (let e = xFirst; e <= xLast; e++) {
      const x = px(e);
      out.push(`<line x1="${x}" y1="${pad.top}" x2="${x}" y2="${pad.top + ph}" stroke="#ddd"/>`);
      const label = 10 ** e >= 1e6 ? `${10 ** e / 1e6}M` : `${10 ** e / 1e3}k`;
      out.push(`<text x="${x}" y="${pad.top + ph + 16}" text-anchor="middle">${label}</text>`);
    }
    out.push(`<text x="${ox + pw / 2}" y="${pad.top + ph + 32}" text-anchor="middle">pending asks</text>`);
    const ticks = log
      ? Array.from({ length: yHi - yLo + 1 }, (_, k) => 10 ** (yLo + k))
      : Array.from({ length: 5 }, (_, k) => (yHi * k) / 4);
    for (const t of ticks) {
      const y = py(t);
      out.push(`<line x1="${ox}" y1="${y}" x2="${ox + pw}" y2="${y}" stroke="#eee"/>`);
      const label = t >= 1000 ? `${+(t / 1000).toFixed(2)}k` : `${+t.toFixed(1)}`;
      out.push(`<text x="${ox - 4}" y="${y + 4}" text-anchor="end">${label}${unit}</text>`);
    }
    series.forEach((s, k) => {
      const pts = rows
        .map((p, i) => [px(xs[i]!), s.values[i]!] as const)
        .filter(([, v]) => Number.isFinite(v))
        .map(([x, v]) => [x, py(v)] as const);
      out.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"/>`,
      );
      for (const [x, y] of pts)
        out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5" fill="${s.color}"/>`);
      if (series.length > 1) {
        const ly = pad.top + ph + 48;
        const lx = ox + k * (pw / 2);
        out.push(
          `<line x1="${lx}" y1="${ly - 4}" x2="${lx + 20}" y2="${ly - 4}" stroke="${s.color}" stroke-width="3"/>`,
        );
        out.push(`<text x="${lx + 24}" y="${ly}">${esc(s.label)}</text>`);
      }
    });
  };
  panel(
    0,
    'Redis bytes per pending ask',
    [{ label: 'B/ask', values: rows.map((p) => p.bytesPerAsk), color: COLORS[0]! }],
    false,
    '',
  );
  panel(
    1,
    'Create rate (asks/s)',
    [{ label: 'asks/s', values: rows.map((p) => p.createPerSecond), color: COLORS[2]! }],
    false,
    '',
  );
  panel(
    2,
    'Timeout lateness (ms, log)',
    [
      { label: 'p50', values: rows.map((p) => p.latenessP50Ms), color: COLORS[0]! },
      { label: 'p99', values: rows.map((p) => p.latenessP99Ms), color: COLORS[1]! },
    ],
    true,
    '',
  );
  out.push('</svg>');
  return out.join('\n');
}
