import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { APP_CORE_JS } from './static/app-core.js';
import { APP_HISTORY_JS } from './static/app-history.js';
import { APP_PENDING_JS } from './static/app-pending.js';
import { ICON_SVG, PAGE_HTML } from './static/page.js';
import { APP_CSS } from './static/style.js';

/** One file the console ships, with its gzip form and an ETag. */
export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function asset(type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return { type, body, gzip: gzipSync(body, { level: 9 }), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Every file of the console, built once at startup (no build step: the sources are plain text). */
export const ASSETS = {
  html: asset('text/html; charset=utf-8', PAGE_HTML),
  css: asset('text/css; charset=utf-8', APP_CSS),
  js: asset('text/javascript; charset=utf-8', [APP_CORE_JS, APP_PENDING_JS, APP_HISTORY_JS].join('\n')),
  icon: asset('image/svg+xml', ICON_SVG),
} satisfies Record<string, Asset>;

/** Headers on every console response: no inline scripts, no framing, no sniffing, no caching of data. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'cache-control': 'no-store',
};

/** Bytes the page loads (HTML, CSS, JS, icon): raw and gzip-compressed as served. */
export function shippedSize(): { raw: number; gzip: number } {
  const files = Object.values(ASSETS);
  return { raw: files.reduce((n, f) => n + f.body.length, 0), gzip: files.reduce((n, f) => n + f.gzip.length, 0) };
}
