import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { ICON_SVG, pageHtml } from './static/page.js';
import { APP_CSS } from './static/style.js';
import { chooseLocale } from '../core/i18n/index.js';
import { CONSOLE_LOCALES, consoleCatalogue } from './i18n/index.js';

/** One file the console ships, with its gzip form and an ETag. */
export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

function asset(type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return {
    type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

/** The browser modules in static/, in the order they run: the entry, app.js, last. */
export const SCRIPT_MODULES = [
  'app-i18n.js',
  'app-core.js',
  'app-session.js',
  'app-typed.js',
  'app-answer.js',
  'app-approval.js',
  'app-policy.js',
  'app-pending.js',
  'app-history.js',
  'app.js',
] as const;

// `import { a, b } from './x.js';`, also spread over several lines.
const SIBLING_IMPORT = /^import \{[^}]*\} from (['"])\.\/([\w-]+\.js)\1;?\n/gm;
const EXPORT_KEYWORD = /^export (?=(?:async )?function|const |let |class )/gm;
// Comments are for the sources (types for tsc): whole-line doc blocks and `//` lines, and inline casts.
const COMMENT_LINES = /^[ \t]*(?:\/\*\*(?:[^*]|\*(?!\/))*\*\/|\/\/.*)[ \t]*\n/gm;
const TYPE_CAST = /\/\*\* @type \{[^{}\n]*\} \*\/ /g;
const TOP_LEVEL_NAME = /^(?:(?:async )?function\*? |const |let |class )([\w$]+)/gm;

/**
 * The browser modules as the one script the page loads, in the order given: sibling imports
 * dropped, `export` keywords removed (all share one scope), comments left out. Throws at startup
 * on anything that would not survive that (another import, a name declared twice, a template
 * literal: a line in one could look like a comment).
 */
export function joinModules(files: readonly string[], read: (file: string) => string): string {
  const declared = new Set<string>();
  return files
    .map((file) => {
      const text = read(file)
        .replace(SIBLING_IMPORT, (_line, _quote, from: string) => {
          if (!files.includes(from))
            throw new Error(`console script ${file} imports ${from}, which is not one of its modules`);
          return '';
        })
        .replace(EXPORT_KEYWORD, '')
        .replace(COMMENT_LINES, '')
        .replace(TYPE_CAST, '');
      // A template literal opens on a code line, so its backtick outlives the comment stripping.
      if (text.includes('`'))
        throw new Error(`console script ${file}: no template literals (plain strings join safely)`);
      const left = /^\s*(?:import|export)\b.*$/m.exec(text);
      if (left) throw new Error(`console script ${file}: cannot join "${left[0]}"`);
      for (const [, name] of text.matchAll(TOP_LEVEL_NAME)) {
        if (declared.has(name!)) throw new Error(`console script ${file}: "${name}" is declared by another module too`);
        declared.add(name!);
      }
      return text;
    })
    .join('\n');
}

// Read next to this file: src/console/static in a checkout, the copy tsc emits (allowJs) in dist/.
const readStatic = (file: string) => readFileSync(new URL(`./static/${file}`, import.meta.url), 'utf8');

/** The line in front of the joined script: the shipped locales and their names, as `ASKGATE_I18N`. */
export function i18nScript(): string {
  return `const ASKGATE_I18N = ${JSON.stringify({ names: consoleCatalogue().names })};\n`;
}

/** Each shipped locale's console words (console/i18n) as JSON, `/console/i18n/<tag>.json`: a page loads its own language's only. */
export const CATALOGUES: ReadonlyMap<string, Asset> = new Map(
  Object.entries(consoleCatalogue().messages).map(([tag, words]) => [
    tag,
    asset('application/json; charset=utf-8', JSON.stringify(words)),
  ]),
);

/** The page in every shipped locale, chosen per request by {@link pageFor}. */
const PAGES: ReadonlyMap<string, Asset> = new Map(
  [...CONSOLE_LOCALES.keys()].map((tag) => [tag, asset('text/html; charset=utf-8', pageHtml(tag))]),
);

/** Every file of the console, built once at startup (no build step: plain ES modules, HTML and CSS); `html` is the English page. */
export const ASSETS = {
  html: PAGES.get('en')!,
  css: asset('text/css; charset=utf-8', APP_CSS),
  js: asset('text/javascript; charset=utf-8', i18nScript() + joinModules(SCRIPT_MODULES, readStatic)),
  icon: asset('image/svg+xml', ICON_SVG),
} satisfies Record<string, Asset>;

/**
 * The page in the first language of an `Accept-Language` header that askgate ships (by q-value,
 * then order; `pt-PT` gets `pt-BR`), else English. The header is untrusted: at most 20 entries are read.
 */
export function pageFor(acceptLanguage: string | undefined): Asset {
  return PAGES.get(localeFor(acceptLanguage)) ?? ASSETS.html;
}

/** The shipped locale an `Accept-Language` header asks for (see {@link pageFor}). */
export function localeFor(acceptLanguage: string | undefined): string {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.tag !== '' && r.tag !== '*' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return chooseLocale(...ranked.map((r) => r.tag));
}

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

/** Bytes the page loads in its largest language (that page, CSS, JS, icon, those words): raw and gzip-compressed as served. */
export function shippedSize(): { raw: number; gzip: number } {
  const largest = (files: Iterable<Asset>) => [...files].sort((a, b) => b.body.length - a.body.length)[0]!;
  const files = [largest(PAGES.values()), ASSETS.css, ASSETS.js, ASSETS.icon, largest(CATALOGUES.values())];
  return { raw: files.reduce((n, f) => n + f.body.length, 0), gzip: files.reduce((n, f) => n + f.gzip.length, 0) };
}
