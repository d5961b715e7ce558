import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../security/html.js';
import { readInsights } from '../../api/insights-routes.js';
import type { ConsoleFeed } from '../hub.js';
import type { Asset } from '../assets.js';
import { INSIGHTS_EN, INSIGHTS_WORDS, type InsightsKey } from './words.js';
import { INSIGHTS_CSS } from './style.js';

function asset(type: string, body: Buffer): Asset {
  return {
    type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}
const text = (type: string, s: string) => asset(type, Buffer.from(s, 'utf8'));

/**
 * The charting library, uPlot (MIT, ~50 KB), served by askgate from its npm package (no CDN):
 * null when the package is not installed, and the page then shows its figures as tables only.
 */
function vendor(file: string, type: string): Asset | null {
  try {
    return asset(type, readFileSync(createRequire(import.meta.url).resolve(`uplot/dist/${file}`)));
  } catch {
    return null;
  }
}

/** The Insights page's HTML shell in one locale; the script fills it from `/console/insights/data`. */
export function insightsHtml(locale: string, charts: boolean): string {
  const words = INSIGHTS_WORDS.get(locale) ?? INSIGHTS_EN;
  const w = (key: InsightsKey) => escapeHtml(words[key]);
  return String.raw`<!doctype html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${w('title')}</title>
<link rel="icon" href="/console/icon.svg" type="image/svg+xml">
${charts ? '<link rel="stylesheet" href="/console/vendor/uplot.css">\n' : ''}<link rel="stylesheet" href="/console/insights/app.css">
${charts ? '<script src="/console/vendor/uplot.js" defer></script>\n' : ''}<script type="module" src="/console/insights/app.js"></script>
</head>
<body>
<header class="bar">
  <h1>askgate · ${w('heading')}</h1>
  <a class="back" href="/">← ${w('back')}</a>
</header>
<main>
  <form id="controls" class="controls" novalidate>
    <fieldset><legend>${w('period')}</legend>
      <label>${w('from')} <input id="from" name="from" type="date" required></label>
      <label>${w('to')} <input id="to" name="to" type="date" required></label>
      <span class="quick"><button type="button" class="secondary" data-days="7">${w('last7')}</button><button type="button" class="secondary" data-days="30">${w('last30')}</button><button type="button" class="secondary" data-days="90">${w('last90')}</button></span>
    </fieldset>
    <fieldset><legend>${w('filter')}</legend>
      <select id="dim" aria-label="${w('filter')}"><option value="">${w('everything')}</option><option value="agent">${w('agent')}</option><option value="channel">${w('channel')}</option><option value="person">${w('person')}</option></select>
      <input id="value" type="text" maxlength="128" list="values" aria-label="${w('value')}" placeholder="${w('value')}" spellcheck="false">
      <datalist id="values"></datalist>
      <button type="submit">${w('apply')}</button>
    </fieldset>
    <p id="status" class="status" role="status">${w('loading')}</p>
  </form>
  <section id="figures" class="figures" aria-live="polite"></section>
  <section class="panel"><h2>${w('perDay')}</h2><div id="chart-days" class="chart"></div></section>
  <section class="panel"><h2>${w('outcomes')}</h2><div id="chart-outcomes" class="chart"></div><table id="outcomes" class="shares"></table></section>
  <section class="panel"><h2>${w('approvals')}</h2><table id="approvals" class="shares"></table></section>
  <section class="panel"><h2>${w('timeToAnswer')}</h2><div id="chart-answer" class="chart"></div><p class="note">${w('estimate')}</p></section>
  <section class="panel"><h2>${w('delays')}</h2><div id="chart-delays" class="chart"></div><table id="delays" class="shares"></table><p class="note">${w('pendingNote')}</p></section>
  <section class="panel"><h2>${w('people')}</h2><table id="people" class="shares"></table></section>
</main>
</body>
</html>
`;
}

const UPLOT_JS = vendor('uPlot.iife.min.js', 'text/javascript; charset=utf-8');
const UPLOT_CSS = vendor('uPlot.min.css', 'text/css; charset=utf-8');

/** True when the charting library is installed (else the page shows tables only). */
export const CHARTS_AVAILABLE = UPLOT_JS !== null && UPLOT_CSS !== null;

const PAGES = new Map(
  [...INSIGHTS_WORDS.keys()].map((tag) => [tag, text('text/html; charset=utf-8', insightsHtml(tag, CHARTS_AVAILABLE))]),
);
const WORDS = new Map(
  [...INSIGHTS_WORDS].map(([tag, words]) => [tag, text('application/json; charset=utf-8', JSON.stringify(words))]),
);
const SCRIPT = asset('text/javascript; charset=utf-8', readFileSync(new URL('./insights.js', import.meta.url)));
const CSS = text('text/css; charset=utf-8', INSIGHTS_CSS);

/** Serves one asset (the console's helper in console/routes.ts: ETag, gzip, no-cache). */
type Serve = (path: string, fileFor: Asset | ((headers: { 'accept-language'?: string }) => Asset)) => void;

/**
 * The Insights page inside the console's plugin (its hooks: security headers, the session):
 * `/console/insights` (the page in the browser's language), its script, style and words, the
 * charting library, and `/console/insights/data` (signed in; the same figures as `GET /v1/insights`).
 */
export function registerInsightsPages(
  scope: FastifyInstance,
  serve: Serve,
  pageFor: (acceptLanguage: string | undefined) => string,
  feed: ConsoleFeed,
): void {
  serve('/console/insights', (headers) => PAGES.get(pageFor(headers['accept-language'])) ?? PAGES.get('en')!);
  serve('/console/insights/app.js', SCRIPT);
  serve('/console/insights/app.css', CSS);
  for (const [tag, words] of WORDS) serve(`/console/insights/i18n/${tag}.json`, words);
  if (UPLOT_JS && UPLOT_CSS) {
    serve('/console/vendor/uplot.js', UPLOT_JS);
    serve('/console/vendor/uplot.css', UPLOT_CSS);
  } else feed.logger.info({ package: 'uplot' }, 'insights charts off: the uplot package is not installed');
  scope.get(
    '/console/insights/data',
    { config: { auth: 'console', access: 'session', guard: 'none' } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return readInsights(feed.store.insights, request.query, feed.clock);
    },
  );
}
