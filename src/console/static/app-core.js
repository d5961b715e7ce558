'use strict';
/**
 * Browser module, part 1: DOM helper, state, requests, sign-in and the event stream.
 * Rule for every part: strings from agents reach the page only as text (text nodes,
 * `textContent`, attribute values), never as HTML. Checked by tsc (`checkJs`); console/assets.ts
 * joins the modules into one script: they import only each other and use no template literals.
 */
import { cards, removePending, showPending } from './app-pending.js';
import { removePast, showPast } from './app-history.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */
/** @typedef {Node | string | null | undefined | false} Child */
/** @typedef {{ error?: { message?: string }, mode?: string, signedIn?: boolean, csrf?: string, ask?: ConsoleAsk }} Reply Any console reply: `{error}`, the session, or an answered ask. */

/** The page's element with this id (the HTML shell has every id the script asks for). @type {(id: string) => HTMLElement} */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Builds an element. props: text, class, on<event> handlers, other attributes; children: nodes or strings (text).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [props]
 * @param {(Child | Child[])[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.className = /** @type {string} */ (value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  if (children) node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** What the page knows: the session, the event stream and the newest view of each ask. */
export const state = {
  /** @type {string | null | undefined} */
  mode: null,
  /** @type {string | null | undefined} */
  csrf: null,
  /** @type {EventSource | null} */
  source: null,
  /** Snapshot received: from then on new asks are announced. */
  ready: false,
  /** Server clock minus ours, so countdowns follow the server. */
  skewMs: 0,
  /** @type {Map<string, ConsoleAsk>} ask id -> newest console view of it */
  asks: new Map(),
};

/**
 * One console request (JSON both ways, the CSRF token when signed in); `data` is null when the reply is not JSON.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, data: Reply | null }>}
 */
export async function request(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (state.csrf) headers['x-askgate-csrf'] = state.csrf;
  const res = await fetch(path, {
    method, headers, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { status: res.status, data };
}

/** @param {string} kind @param {string} text */
function setConn(kind, text) {
  const conn = $('conn');
  conn.className = 'conn ' + kind;
  conn.textContent = text;
}

/** @type {ReturnType<typeof setTimeout> | 0} */
let announceTimer = 0;
/** Tells screen readers, through the live region. @param {string} text */
export function announce(text) {
  const region = $('announce');
  region.textContent = '';
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { region.textContent = text; }, 50);
}

function serverNow() { return Date.now() + state.skewMs; }

/** A time of day as the server's clock sees today (older ones with their date). @param {string} iso @param {boolean} withSeconds */
export function clock(iso, withSeconds) {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  /** @type {Intl.DateTimeFormatOptions} */
  const opts = withSeconds ? { hour: '2-digit', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit' };
  const time = d.toLocaleTimeString([], opts);
  return d.toDateString() === new Date(serverNow()).toDateString() ? time : d.toLocaleDateString() + ' ' + time;
}

/** "expires in 5 min", on the server's clock. @param {string} iso */
export function expiresIn(iso) {
  const s = Math.round((Date.parse(iso) - serverNow()) / 1000);
  if (!(s > 0)) return 'expiring now';
  if (s < 90) return 'expires in ' + s + ' s';
  const m = Math.round(s / 60);
  return m < 90 ? 'expires in ' + m + ' min' : 'expires in ' + Math.round(m / 60) + ' h';
}

const operatorInput = () => /** @type {HTMLInputElement} */ ($('operator'));

/** Who answers from this browser ("Answer as"), at most 128 characters. */
export function operatorName() { return operatorInput().value.trim().slice(0, 128); }

/** Fills "Answer as" from this browser's storage and keeps it there. */
export function restoreOperator() {
  const input = operatorInput();
  try { input.value = localStorage.getItem('askgate.operator') || ''; } catch (e) { /* storage blocked */ }
  input.addEventListener('change', () => {
    try { localStorage.setItem('askgate.operator', operatorName()); } catch (e) { /* storage blocked */ }
  });
}

/** Asks the server what the session is, then shows the sign-in or the console (retries while it is unreachable). */
export async function checkSession() {
  let res = null;
  try { res = await request('GET', '/console/session'); } catch (e) { res = null; }
  if (!res || res.status === 503) { setConn('offline', 'askgate is unreachable; retrying…'); setTimeout(checkSession, 3000); return; }
  if (res.status !== 200 || !res.data) {
    setConn('offline', (res.data && res.data.error && res.data.error.message) || 'askgate refused the console');
    return;
  }
  state.mode = res.data.mode;
  if (!res.data.signedIn) { showLogin(''); return; }
  state.csrf = res.data.csrf;
  showConsole();
}

/** Ends the stream, forgets every ask and shows the sign-in form with this message. @param {string} message */
export function showLogin(message) {
  stopEvents();
  clearAll();
  state.csrf = null;
  $('pending').hidden = true;
  $('history').hidden = true;
  $('who').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message;
  setConn('idle', 'Signed out');
  $('token').focus();
}

/** Signs in with the API token typed into the form. @param {SubmitEvent} event */
export async function onLogin(event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('token'));
  let res = null;
  try { res = await request('POST', '/console/login', { token: input.value }); } catch (e) { res = null; }
  input.value = '';
  if (!res || res.status !== 200 || !res.data) {
    $('login-error').textContent = res && res.status === 401 ? 'That is not the API token.' : 'Sign-in failed; try again.';
    input.focus();
    return;
  }
  state.mode = res.data.mode;
  state.csrf = res.data.csrf;
  $('login-error').textContent = '';
  showConsole();
  $('pending-title').focus();
}

/** Ends the session on the server, then shows the sign-in form. */
export async function onLogout() {
  let res = null;
  try { res = await request('POST', '/console/logout'); } catch (e) { res = null; }
  // Anything but 204: the session did not end on the server (its cookie is kept, so it can be retried).
  showLogin(res && res.status === 204 ? 'Signed out.' : 'askgate could not end the session; reload and sign out again.');
}

function showConsole() {
  $('login').hidden = true;
  $('pending').hidden = false;
  $('history').hidden = false;
  $('who').hidden = false;
  $('logout').hidden = state.mode !== 'token';
  renderCounts();
  startEvents();
}

function stopEvents() {
  if (state.source) state.source.close();
  state.source = null;
  state.ready = false;
}

function startEvents() {
  stopEvents();
  setConn('connecting', 'Connecting…');
  const source = new EventSource('/console/events');
  state.source = source;
  /** @type {(fn: (event: MessageEvent<string>) => void) => (event: Event) => void} */
  const mine = (fn) => (event) => { if (state.source === source) fn(/** @type {MessageEvent<string>} */ (event)); };
  source.addEventListener('open', mine(() => setConn('live', 'Live')));
  source.addEventListener('snapshot', mine((event) => {
    /** @type {{ now: string, asks: ConsoleAsk[] }} */
    const data = JSON.parse(event.data);
    state.skewMs = Date.parse(data.now) - Date.now() || 0;
    // After a reconnect, show what a fresh load would: pending asks no longer listed are dropped.
    const listed = new Set(data.asks.map((ask) => ask.id));
    for (const id of [...cards.keys()]) if (!listed.has(id)) forget(id);
    for (const ask of data.asks) apply(ask, false);
    state.ready = true;
    renderCounts();
  }));
  source.addEventListener('ask', mine((event) => { apply(JSON.parse(event.data), true); renderCounts(); }));
  source.addEventListener('gone', mine((event) => { forget(JSON.parse(event.data).id); renderCounts(); }));
  source.addEventListener('error', mine(() => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (signed out, or askgate restarting): ask again what the session is.
      state.source = null;
      setConn('offline', 'Disconnected; checking…');
      setTimeout(checkSession, 2000);
    } else setConn('connecting', 'Reconnecting…');
  }));
}

/**
 * Takes a console view if it is newer than what the page has, and shows it.
 * @param {ConsoleAsk} ask
 * @param {boolean} live
 */
export function apply(ask, live) {
  const known = state.asks.get(ask.id);
  if (known && known.rev >= ask.rev) return;
  state.asks.set(ask.id, ask);
  if (ask.status === 'pending') showPending(ask, live && state.ready);
  else {
    removePending(ask.id, live && state.ready ? ask : null);
    showPast(ask);
  }
}

/** @param {string} id */
function forget(id) {
  state.asks.delete(id);
  removePending(id, null);
  removePast(id);
}

function clearAll() {
  for (const id of [...state.asks.keys()]) forget(id);
}

/** Refreshes the pending count (heading and tab title) and the empty-list notes. */
export function renderCounts() {
  const n = document.querySelectorAll('#runs .ask').length;
  $('pending-count').textContent = n ? '(' + n + ')' : '';
  $('pending-empty').hidden = n > 0;
  $('history-empty').hidden = $('history-list').children.length > 0;
  document.title = n ? '(' + n + ') askgate console' : 'askgate console';
}
