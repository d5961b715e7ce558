'use strict';
/**
 * The Insights page (console/insights/page.ts serves it as it is, apart from the console's joined
 * script). It reads `/console/insights/data` (the figures of `GET /v1/insights`, each with its
 * denominator) and shows them as figures, tables and uPlot charts; strings from agents and people
 * reach the page only as text. Checked by tsc (`checkJs`).
 */

/** @typedef {import('../../core/insights-report.js').InsightsReport} Report */
/** @typedef {{ count: number, of: number }} Share */

const lang = document.documentElement.lang || 'en';
/** @type {Record<string, string>} */
let words = {};
/** @type {Report | null} */
let shown = null;
/** @type {{ destroy(): void }[]} */
let charts = [];

/** @type {(id: string) => HTMLElement} */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @type {(id: string) => HTMLInputElement} */
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * The page's words with `{name}` placeholders filled in.
 * @param {string} key
 * @param {Record<string, string>} [params]
 */
function t(key, params) {
  const text = words[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (params && params[name] !== undefined ? params[name] : ''));
}

const num = new Intl.NumberFormat(lang);
const percent = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 });

/** @param {Share} s */
function share(s) {
  const pct = s.of > 0 ? percent.format(s.count / s.of) : t('none');
  return t('share', { count: num.format(s.count), of: num.format(s.of), pct: pct });
}

/** @type {[string, number][]} */
const UNITS = [['day', 86400], ['hour', 3600], ['minute', 60], ['second', 1]]; // prettier-ignore

/**
 * A duration in the page's language, in the largest unit that keeps it above 1.5 (Intl's unit names).
 * @param {number | null} seconds
 */
function duration(seconds) {
  if (seconds === null) return t('none');
  const [unit, size] = UNITS.find(([, s]) => seconds >= 1.5 * s) || UNITS[3];
  const format = new Intl.NumberFormat(lang, {
    style: 'unit',
    unit: unit,
    unitDisplay: 'short',
    maximumFractionDigits: 1,
  });
  return format.format(seconds / size);
}

/** An element of class `cls` holding texts and nodes. @type {(tag: string, cls: string | null, children: (Node | string)[]) => HTMLElement} */
const el = (tag, cls, children) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  node.append(...children);
  return node;
};

/** One figure: its name, value and what it is counted of. @type {(name: string, value: string, of: string) => HTMLElement} */
const figure = (name, value, of) => {
  const card = el('div', 'figure', [el('p', 'name', [name]), el('p', 'value', [value])]);
  if (of) card.append(el('p', 'of', [of]));
  return card;
};

/** Fills table `id` with named shares (label, "count of N (pct)"). @type {(id: string, rows: [string, string][]) => void} */
function table(id, rows) {
  const node = $(id);
  node.textContent = '';
  for (const [name, value] of rows) node.append(el('tr', null, [el('th', null, [name]), el('td', null, [value])]));
}

const COLORS = ['#0b5cd5', '#1a7f37', '#8a5a00', '#cf222e', '#8250df', '#57606a', '#bf3989'];

/**
 * A bar chart (uPlot) of counts per label; several series draw narrower bars in front.
 * Nothing when the library is not installed: the tables carry the same figures.
 * @param {string} id
 * @param {string[]} labels
 * @param {{ label: string, values: number[] }[]} series
 */
function bars(id, labels, series) {
  const target = $(id);
  target.textContent = '';
  if (typeof uPlot === 'undefined' || !uPlot.paths.bars || labels.length === 0) return;
  const width = Math.max(220, target.clientWidth);
  const every = Math.max(1, Math.ceil(labels.length / Math.max(1, Math.floor(width / 70))));
  // Labels wider than their slot are slanted (about 7.5 px a character at the axis font, with a gap).
  const slant = Math.max(...labels.map((l) => l.length)) * 7.5 > (width - 60) / Math.ceil(labels.length / every);
  const xs = labels.map((_, i) => i);
  const fg = getComputedStyle(document.body).color;
  const barsOf = uPlot.paths.bars;
  /** @type {(_u: unknown, _min: number, max: number) => number[]} */
  const yRange = (_u, _min, max) => [0, Math.max(1, max * 1.1)];
  /** @type {(_u: unknown, splits: number[]) => string[]} */
  const xValues = (_u, splits) => splits.map((i) => labels[i] || '');
  /** @type {(_u: unknown, splits: number[]) => string[]} */
  const yValues = (_u, splits) => splits.map((v) => (Number.isInteger(v) ? num.format(v) : ''));
  const chart = new uPlot(
    {
      width: width,
      height: width < 500 ? 200 : 240,
      legend: { show: series.length > 1, live: false },
      cursor: { show: false },
      scales: { x: { time: false, range: () => [-0.6, labels.length - 0.4] }, y: { range: yRange } },
      axes: [
        {
          stroke: fg,
          grid: { show: false },
          splits: () => xs.filter((i) => i % every === 0),
          values: xValues,
          font: '12px system-ui, sans-serif',
          rotate: slant ? -35 : 0,
          size: slant ? 86 : 40,
        },
        { stroke: fg, grid: { stroke: 'rgba(128,128,128,.2)' }, values: yValues },
      ],
      series: [
        {},
        ...series.map((s, k) => ({
          label: s.label,
          fill: COLORS[k % COLORS.length],
          stroke: COLORS[k % COLORS.length],
          width: 0,
          points: { show: false },
          paths: barsOf({ size: [k === 0 ? 0.7 : 0.4] }),
        })),
      ],
    },
    [xs, ...series.map((s) => s.values)],
    target,
  );
  charts.push(chart);
}

/** @param {Report} report */
function render(report) {
  shown = report;
  for (const chart of charts) chart.destroy();
  charts = [];
  const answered = report.outcomes.answered;
  const tta = report.timeToAnswer;
  const figures = $('figures');
  figures.textContent = '';
  figures.append(
    figure(t('asks'), num.format(report.asks.count), ''),
    figure(t('answeredFigure'), num.format(answered.count), share(answered)),
    figure(t('median'), duration(tta.median.seconds), t('ofAnswered', { of: num.format(tta.median.of) })),
    figure(t('p95'), duration(tta.p95.seconds), t('ofAnswered', { of: num.format(tta.p95.of) })),
    figure(t('pendingNow'), num.format(report.pending.count), t('ofAll')),
    figure(t('oldestWait'), duration(report.pending.oldestWaitSeconds), ''),
  );
  const dayLabel = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const dayNames = report.days.map((d) => dayLabel.format(new Date(d.day + 'T00:00:00Z')));
  bars('chart-days', dayNames, [
    { label: t('asks'), values: report.days.map((d) => d.asks) },
    { label: t('answeredFigure'), values: report.days.map((d) => d.answered) },
  ]);
  const outcomes = /** @type {[string, Share][]} */ (Object.entries(report.outcomes));
  table(
    'outcomes',
    outcomes.map(([key, s]) => [t('outcome.' + key), share(s)]),
  );
  bars(
    'chart-outcomes',
    outcomes.map(([key]) => t('outcome.' + key)),
    [{ label: t('outcomes'), values: outcomes.map(([, s]) => s.count) }],
  );
  const decisions = /** @type {[string, Share][]} */ (Object.entries(report.approvals.decisions));
  table('approvals', [
    [t('approvals'), share(report.approvals)],
    ...decisions.map(([key, s]) => /** @type {[string, string]} */ ([t('decision.' + key), share(s)])),
  ]);
  const filled = tta.buckets.map((b, i) => (b.count > 0 ? i : -1)).filter((i) => i >= 0);
  const shownBuckets = filled.length ? tta.buckets.slice(filled[0], filled[filled.length - 1] + 1) : [];
  bars(
    'chart-answer',
    shownBuckets.map((b) => (b.le === null ? '∞' : '≤ ' + duration(b.le))),
    [{ label: t('timeToAnswer'), values: shownBuckets.map((b) => b.count) }],
  );
  table('delays', [
    ...report.delays.map(
      (d) => /** @type {[string, string]} */ ([t('endedAfter') + ': ' + t('delay.' + d.bucket), share(d)]),
    ),
    ...report.pending.ages.map(
      (d) => /** @type {[string, string]} */ ([t('pendingFor') + ': ' + t('delay.' + d.bucket), share(d)]),
    ),
  ]);
  bars(
    'chart-delays',
    report.delays.map((d) => t('delay.' + d.bucket)),
    [
      { label: t('endedAfter'), values: report.delays.map((d) => d.count) },
      { label: t('pendingFor'), values: report.pending.ages.map((d) => d.count) },
    ],
  );
  if (report.people.length === 0) table('people', [[t('noPeople'), '']]);
  else
    table(
      'people',
      report.people.map((p) => [p.person, share(p.answers)]),
    );
  offerValues(report);
}

/**
 * The filter's suggestions: the period's agents, channels or people.
 * @param {Report} report
 */
function offerValues(report) {
  const dim = /** @type {HTMLSelectElement} */ ($('dim')).value;
  const list = $('values');
  list.textContent = '';
  const values =
    dim === 'agent'
      ? report.dimensions.agents
      : dim === 'channel'
        ? report.dimensions.channels
        : dim === 'person'
          ? report.people.map((p) => p.person)
          : [];
  for (const value of values) {
    const option = document.createElement('option');
    option.value = value;
    list.append(option);
  }
}

/** @param {number} days */
function lastDays(days) {
  const today = new Date();
  input('to').value = today.toISOString().slice(0, 10);
  input('from').value = new Date(today.getTime() - (days - 1) * 86400000).toISOString().slice(0, 10);
}

/** The query of the controls, as the page's URL keeps it too. */
function query() {
  const params = new URLSearchParams();
  if (input('from').value) params.set('from', input('from').value);
  if (input('to').value) params.set('to', input('to').value);
  const dim = /** @type {HTMLSelectElement} */ ($('dim')).value;
  if (dim && input('value').value) params.set(dim, input('value').value);
  return params;
}

/** @param {string} text @param {boolean} error */
function status(text, error) {
  const node = $('status');
  node.textContent = text;
  node.classList.toggle('error', error);
}

async function load() {
  const params = query();
  history.replaceState(null, '', '?' + params.toString());
  status(t('loading'), false);
  try {
    const response = await fetch('/console/insights/data?' + params.toString(), { credentials: 'same-origin' });
    const body = await response.json();
    if (response.status === 401) return status(t('signIn'), true);
    if (!response.ok)
      return status(t('failed', { message: (body.error && body.error.message) || String(response.status) }), true);
    status('', false);
    render(/** @type {Report} */ (body));
  } catch (error) {
    status(t('failed', { message: String(error) }), true);
  }
}

async function start() {
  const response = await fetch('/console/insights/i18n/' + encodeURIComponent(lang) + '.json');
  words = await response.json();
  const given = new URLSearchParams(location.search);
  lastDays(7);
  for (const key of ['from', 'to']) {
    const value = given.get(key);
    if (value) input(key).value = value;
  }
  for (const dim of ['agent', 'channel', 'person']) {
    const value = given.get(dim);
    if (value === null) continue;
    /** @type {HTMLSelectElement} */ ($('dim')).value = dim;
    input('value').value = value;
  }
  $('controls').addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  $('dim').addEventListener('change', () => shown && offerValues(shown));
  for (const button of document.querySelectorAll('[data-days]'))
    button.addEventListener('click', () => {
      lastDays(Number(/** @type {HTMLElement} */ (button).dataset.days));
      void load();
    });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let resizing;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => shown && render(shown), 150);
  });
  await load();
}

void start();

export {};
