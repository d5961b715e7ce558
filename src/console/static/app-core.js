'use strict';
/**
 * Browser module, part 1: DOM helper, state, requests, and applying ask views (sign-in and
 * the event stream are in app-session.js).
 * Rule for every part: strings from agents reach the page only as text (text nodes,
 * `textContent`, attribute values), never as HTML. Checked by tsc (`checkJs`); console/assets.ts
 * joins the modules into one script: they import only each other and use no template literals.
 */
import { removePending, showPending } from './app-pending.js';
import { removePast, showPast } from './app-history.js';
import { lang, t, timeLocale } from './app-i18n.js';

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
    else if (key.startsWith('on') && typeof value === 'function')
      node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
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
  /** Event streams that ended in a row without a snapshot (refused, or unreachable): the next try waits longer. */
  streamFailures: 0,
  /** Server clock minus ours, so countdowns follow the server. */
  skewMs: 0,
  /** @type {Map<string, ConsoleAsk>} ask id -> newest console view of it */
  asks: new Map(),
};

/**
 * One console request (JSON both ways, the CSRF token when signed in); `data` is null when the reply is
 * not JSON, `retryAfter` the seconds of a `Retry-After` header (0 without one).
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, data: Reply | null, retryAfter: number }>}
 */
export async function request(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (state.csrf) headers['x-askgate-csrf'] = state.csrf;
  // The page's language (its switch may differ from the browser's): askgate's refusals come in it.
  headers['accept-language'] = lang;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = null;
  }
  return { status: res.status, data, retryAfter: Number(res.headers.get('retry-after')) || 0 };
}

/** @param {string} kind @param {string} text */
export function setConn(kind, text) {
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
  announceTimer = setTimeout(() => {
    region.textContent = text;
  }, 50);
}

function serverNow() {
  return Date.now() + state.skewMs;
}

/** A time of day as the server's clock sees today (older ones with their date). @param {string} iso @param {boolean} withSeconds */
export function clock(iso, withSeconds) {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return '';
  /** @type {Intl.DateTimeFormatOptions} */
  const opts = withSeconds
    ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
    : { hour: '2-digit', minute: '2-digit' };
  // The page's language, the browser's own time zone.
  const time = d.toLocaleTimeString(timeLocale, opts);
  return d.toDateString() === new Date(serverNow()).toDateString()
    ? time
    : d.toLocaleDateString(timeLocale) + ' ' + time;
}

/**
 * The outcome lines in the page's language (the server renders them in every shipped locale),
 * else as the chat shows them.
 * @param {import('../view.js').ConsoleOutcome} outcome
 */
export function outcomeText(outcome) {
  return outcome.texts && Object.hasOwn(outcome.texts, lang) ? outcome.texts[lang] : outcome.text;
}

/** "expires in 5 min", on the server's clock. @param {string} iso */
export function expiresIn(iso) {
  const s = Math.round((Date.parse(iso) - serverNow()) / 1000);
  if (!(s > 0)) return t('expiringNow');
  if (s < 90) return t('expiresSeconds', { count: s });
  const m = Math.round(s / 60);
  // Past 90 minutes (asks may wait 30 days) the time itself follows, in the browser's zone.
  return m < 90
    ? t('expiresMinutes', { count: m })
    : t('expiresHours', { count: Math.round(m / 60) }) + ' (' + clock(iso, false) + ')';
}

const operatorInput = () => /** @type {HTMLInputElement} */ ($('operator'));

/** Who answers from this browser ("Answer as"), at most 128 characters. */
export function operatorName() {
  return operatorInput().value.trim().slice(0, 128);
}

/** Fills "Answer as" from this browser's storage and keeps it there. */
export function restoreOperator() {
  const input = operatorInput();
  try {
    input.value = localStorage.getItem('askgate.operator') || '';
  } catch (e) {
    /* storage blocked */
  }
  input.addEventListener('change', () => {
    try {
      localStorage.setItem('askgate.operator', operatorName());
    } catch (e) {
      /* storage blocked */
    }
  });
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

/** Drops an ask from the page. @param {string} id */
export function forget(id) {
  state.asks.delete(id);
  removePending(id, null);
  removePast(id);
}

/** Drops every ask from the page. */
export function clearAll() {
  for (const id of [...state.asks.keys()]) forget(id);
}

/** Refreshes the pending count (heading and tab title) and the empty-list notes. */
export function renderCounts() {
  const n = document.querySelectorAll('#runs .ask').length;
  $('pending-count').textContent = n ? '(' + n + ')' : '';
  $('pending-empty').hidden = n > 0;
  $('history-empty').hidden = $('history-list').children.length > 0;
  document.title = n ? t('titleCount', { count: n }) : t('title');
}
