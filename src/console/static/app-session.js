/** Browser module: sign-in, sign-out and the event stream of the console. */
import { $, apply, clearAll, forget, renderCounts, request, setConn, state } from './app-core.js';
import { cards } from './app-pending.js';
import { t } from './app-i18n.js';

/** @typedef {import('../view.js').ConsoleAsk} ConsoleAsk */

/** Asks the server what the session is, then shows the sign-in or the console (retries while it is unreachable). */
export async function checkSession() {
  let res = null;
  try {
    res = await request('GET', '/console/session');
  } catch (e) {
    res = null;
  }
  if (!res || res.status === 503) {
    setConn('offline', t('unreachable'));
    setTimeout(checkSession, 3000);
    return;
  }
  if (res.status !== 200 || !res.data) {
    setConn('offline', t('refused'));
    return;
  }
  state.mode = res.data.mode;
  if (!res.data.signedIn) {
    showLogin('');
    return;
  }
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
  setConn('idle', t('signedOutState'));
  $('token').focus();
}

/** Signs in with the API token typed into the form. @param {SubmitEvent} event */
export async function onLogin(event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('token'));
  let res = null;
  try {
    res = await request('POST', '/console/login', { token: input.value });
  } catch (e) {
    res = null;
  }
  input.value = '';
  if (!res || res.status !== 200 || !res.data) {
    $('login-error').textContent = loginError(res);
    input.focus();
    return;
  }
  state.mode = res.data.mode;
  state.csrf = res.data.csrf;
  $('login-error').textContent = '';
  showConsole();
  $('pending-title').focus();
}

/** What the sign-in form says about a refused sign-in. @param {{ status: number, retryAfter: number } | null} res */
function loginError(res) {
  if (res && res.status === 401) return t('notToken');
  if (res && res.status === 429) return t('tooManyAttempts', { count: Math.max(1, res.retryAfter) });
  return t('signInFailed');
}

/** Ends the session on the server, then shows the sign-in form. */
export async function onLogout() {
  let res = null;
  try {
    res = await request('POST', '/console/logout');
  } catch (e) {
    res = null;
  }
  // Anything but 204: the session did not end on the server (its cookie is kept, so it can be retried).
  showLogin(res && res.status === 204 ? t('signedOut') : t('logoutFailed'));
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
  setConn('connecting', t('connecting'));
  const source = new EventSource('/console/events');
  state.source = source;
  /** @type {(fn: (event: MessageEvent<string>) => void) => (event: Event) => void} */
  const mine = (fn) => (event) => {
    if (state.source === source) fn(/** @type {MessageEvent<string>} */ (event));
  };
  source.addEventListener(
    'open',
    mine(() => setConn('live', t('live'))),
  );
  source.addEventListener(
    'snapshot',
    mine((event) => {
      /** @type {{ now: string, asks: ConsoleAsk[] }} */
      const data = JSON.parse(event.data);
      state.skewMs = Date.parse(data.now) - Date.now() || 0;
      state.streamFailures = 0;
      // After a reconnect, show what a fresh load would: pending asks no longer listed are dropped.
      const listed = new Set(data.asks.map((ask) => ask.id));
      for (const id of [...cards.keys()]) if (!listed.has(id)) forget(id);
      for (const ask of data.asks) apply(ask, false);
      state.ready = true;
      renderCounts();
    }),
  );
  source.addEventListener(
    'ask',
    mine((event) => {
      apply(JSON.parse(event.data), true);
      renderCounts();
    }),
  );
  source.addEventListener(
    'gone',
    mine((event) => {
      forget(JSON.parse(event.data).id);
      renderCounts();
    }),
  );
  source.addEventListener(
    'error',
    mine(() => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (signed out, too many consoles open, or askgate restarting): ask again what the
        // session is, waiting longer after each refusal in a row (2 s doubling to 1 min, with jitter)
        // so that consoles turned away by a full askgate do not all come back at once.
        state.source = null;
        setConn('offline', t('disconnected'));
        const wait = Math.min(2000 * Math.pow(2, state.streamFailures), 60000);
        state.streamFailures++;
        setTimeout(checkSession, wait / 2 + Math.random() * (wait / 2));
      } else setConn('connecting', t('reconnecting'));
    }),
  );
}
