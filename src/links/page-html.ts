/**
 * The answer page's HTML frame (src/links/): one server-rendered document, no script, no
 * third-party asset; its one stylesheet is inline and allowed by its hash in the
 * Content-Security-Policy. Every value is escaped here ({@link esc}); text people or agents wrote
 * carries `dir="auto"` so a right-to-left question reads right.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from '../security/html.js';

/** `text` safe inside an element or a quoted attribute (askgate's one HTML escaper). */
export const esc = escapeHtml;

/** The page's stylesheet: readable from 320 px up, nothing wider than the screen, visible focus. */
export const PAGE_STYLE = [
  ':root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#5b5b66;--line:#c9c9d2;--accent:#1d4ed8;--bad:#b42318}',
  '@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--bg:#17171b;--muted:#a6a6b3;--line:#3b3b45;--accent:#8ab4ff;--bad:#ff8a80}}',
  '*{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%}',
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}',
  'main{max-width:40rem;margin:0 auto;padding:1rem}',
  'h1{font-size:1.3rem;margin:.25rem 0 .75rem;overflow-wrap:anywhere}',
  'p,li,legend,label,dd,dt{overflow-wrap:anywhere}',
  '.meta{color:var(--muted);font-size:.9rem;margin:.25rem 0}',
  'fieldset{border:1px solid var(--line);border-radius:.5rem;margin:0 0 1rem;padding:.75rem;min-width:0}',
  'legend{font-weight:600;padding:0 .25rem;max-width:100%}',
  '.header{display:block;color:var(--muted);font-size:.8rem;font-weight:400}',
  '.option{display:flex;gap:.5rem;align-items:flex-start;padding:.4rem 0}',
  '.option input{margin-top:.3rem;width:1.15rem;height:1.15rem;flex:none}',
  '.desc{display:block;color:var(--muted);font-size:.9rem}',
  'label.field{display:block;margin:.5rem 0 .25rem}',
  'input[type=text],input[type=number],input[type=date],input[type=time],input[type=datetime-local],input[type=email],input[type=url],textarea{width:100%;max-width:100%;font:inherit;padding:.5rem;border:1px solid var(--line);border-radius:.375rem;background:var(--bg);color:var(--fg)}',
  'textarea{min-height:5rem;resize:vertical}',
  'textarea.json{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;min-height:9rem}',
  'pre{white-space:pre-wrap;overflow-wrap:anywhere;max-width:100%;overflow-x:auto;background:color-mix(in srgb,var(--line) 25%,transparent);padding:.5rem;border-radius:.375rem;font-size:.85rem}',
  'code{overflow-wrap:anywhere}',
  '.problem{color:var(--bad);font-weight:600;margin:.25rem 0}',
  '.hint{color:var(--muted);font-size:.9rem;margin:.25rem 0}',
  '.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:1rem}',
  'button{font:inherit;padding:.6rem 1rem;border-radius:.375rem;border:1px solid var(--accent);background:var(--accent);color:var(--bg);cursor:pointer;min-height:2.75rem}',
  'button.secondary{background:transparent;color:var(--accent)}',
  ':focus-visible{outline:3px solid var(--accent);outline-offset:2px}',
  '.outcome{font-size:1.1rem;white-space:pre-wrap}',
  'dl{margin:.5rem 0}dt{font-weight:600}dd{margin:0 0 .5rem}',
].join('\n');

/** The stylesheet's CSP source (`'sha256-…'`). */
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

/**
 * The page's Content-Security-Policy: nothing loads but the hashed inline style; forms post only
 * to askgate itself; no framing, no `<base>`, no script at all.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src ${STYLE_SOURCE}`,
  "img-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Every header the page's responses carry (besides the status and content type). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** A whole document: `lang` the page's language, `title` plain text, `main` HTML (already escaped). */
export function pageDocument(lang: string, title: string, main: string): string {
  return [
    '<!doctype html>',
    `<html lang="${esc(lang)}" dir="ltr">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex,nofollow">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${esc(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    `<body><main>${main}</main></body>`,
    '</html>',
  ].join('\n');
}

/** Text people or agents wrote, in an element that finds its own direction. */
export const userText = (tag: string, text: string, cls?: string): string =>
  `<${tag} dir="auto"${cls ? ` class="${cls}"` : ''}>${esc(text)}</${tag}>`;

/** The body of a page with only a heading and lines of plain text. */
export function messagePage(lang: string, title: string, lines: readonly string[], cls = 'meta'): string {
  return pageDocument(lang, title, [`<h1>${esc(title)}</h1>`, ...lines.map((l) => userText('p', l, cls))].join('\n'));
}
