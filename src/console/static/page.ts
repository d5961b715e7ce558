/** The console's HTML shell. It holds no data: the script fills it from `/console/events`. */
export const PAGE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>askgate console</title>
<link rel="icon" href="/console/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body>
<header class="bar">
  <h1>askgate</h1>
  <p id="conn" class="conn" role="status">Connecting…</p>
  <div id="who" class="who" hidden>
    <label for="operator">Answer as</label>
    <input id="operator" type="text" autocomplete="nickname" maxlength="128" placeholder="web" spellcheck="false">
    <button id="logout" type="button" class="secondary" hidden>Sign out</button>
  </div>
</header>
<main>
  <section id="login" hidden aria-labelledby="login-title">
    <h2 id="login-title">Sign in</h2>
    <p>This askgate is protected by its API token (<code>ASKGATE_API_TOKEN</code>). Enter it once: a session cookie keeps this browser signed in for 7 days.</p>
    <form id="login-form" class="login">
      <label for="token">API token</label>
      <input id="token" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
      <p id="login-error" class="error" role="alert"></p>
    </form>
  </section>
  <section id="pending" hidden aria-labelledby="pending-title">
    <h2 id="pending-title" tabindex="-1">Pending <span id="pending-count" class="count"></span></h2>
    <p id="pending-empty" class="empty">Nothing is waiting for an answer. New questions appear here as agents ask them.</p>
    <div id="runs"></div>
  </section>
  <section id="history" hidden aria-labelledby="history-title">
    <h2 id="history-title">History</h2>
    <p id="history-empty" class="empty">No answered or expired questions yet.</p>
    <ol id="history-list" class="history"></ol>
  </section>
  <div id="announce" class="sr-only" aria-live="polite"></div>
  <noscript><p>The askgate console needs JavaScript.</p></noscript>
</main>
</body>
</html>
`;

/** The favicon. */
export const ICON_SVG = String.raw`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cd5"/><path d="M11.5 12a4.5 4.5 0 1 1 6.3 4.1c-1.1.5-1.8 1.4-1.8 2.6V20" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/><circle cx="16" cy="25" r="1.9" fill="#fff"/></svg>
`;
