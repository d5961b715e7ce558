import { escapeHtml } from '../../security/html.js';
import { CONSOLE_LOCALES, type ConsoleKey } from '../i18n/index.js';

/**
 * The console's HTML shell in one shipped locale (`en`, `pt-BR`, ...). It holds no data: the script
 * fills it from `/console/events`. Elements with `data-i18n` carry a console key: the script puts
 * them in the browser's chosen language when it differs from the page's.
 */
export function pageHtml(locale: string): string {
  const words = CONSOLE_LOCALES.get(locale) ?? CONSOLE_LOCALES.get('en')!;
  const w = (key: ConsoleKey) => {
    const message = words[key];
    return escapeHtml(typeof message === 'string' ? message : message.other).replace(
      '{env}',
      '<code>ASKGATE_API_TOKEN</code>',
    );
  };
  const text = (key: ConsoleKey) => `data-i18n="${key}">${w(key)}`;
  return String.raw`<!doctype html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${w('title')}</title>
<link rel="icon" href="/console/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body>
<header class="bar">
  <h1>askgate</h1>
  <p id="conn" class="conn" role="status" ${text('connecting')}</p>
  <a class="insights" href="/console/insights" ${text('insights')}</a>
  <label class="lang"><span ${text('language')}</span> <select id="lang"><option>${escapeHtml(locale)}</option></select></label>
  <div id="who" class="who" hidden>
    <label for="operator" ${text('answerAs')}</label>
    <input id="operator" type="text" autocomplete="nickname" maxlength="128" placeholder="web" spellcheck="false">
    <button id="logout" type="button" class="secondary" hidden ${text('signOut')}</button>
  </div>
</header>
<main>
  <section id="login" hidden aria-labelledby="login-title">
    <h2 id="login-title" ${text('signIn')}</h2>
    <p ${text('signInIntro')}</p>
    <form id="login-form" class="login">
      <label for="token" ${text('apiToken')}</label>
      <input id="token" type="password" autocomplete="current-password" required>
      <button type="submit" ${text('signIn')}</button>
      <p id="login-error" class="error" role="alert"></p>
    </form>
  </section>
  <section id="pending" hidden aria-labelledby="pending-title">
    <h2 id="pending-title" tabindex="-1"><span ${text('pending')}</span> <span id="pending-count" class="count"></span></h2>
    <p id="pending-empty" class="empty" ${text('pendingEmpty')}</p>
    <div id="runs"></div>
  </section>
  <section id="history" hidden aria-labelledby="history-title">
    <h2 id="history-title" ${text('history')}</h2>
    <p id="history-empty" class="empty" ${text('historyEmpty')}</p>
    <ol id="history-list" class="history"></ol>
  </section>
  <div id="announce" class="sr-only" aria-live="polite"></div>
  <noscript><p>${w('noscript')}</p></noscript>
</main>
</body>
</html>
`;
}

/** The console's HTML shell in English. */
export const PAGE_HTML = pageHtml('en');

/** The favicon. */
export const ICON_SVG = String.raw`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cd5"/><path d="M11.5 12a4.5 4.5 0 1 1 6.3 4.1c-1.1.5-1.8 1.4-1.8 2.6V20" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/><circle cx="16" cy="25" r="1.9" fill="#fff"/></svg>
`;
