/** Browser module, start-up: the entry of the console's script (console/assets.ts serves it last). */
import { $, restoreOperator } from './app-core.js';
import { loadWords, setupLanguageSwitch, translatePage } from './app-i18n.js';
import { checkSession, onLogin, onLogout } from './app-session.js';
import { tick } from './app-pending.js';

restoreOperator();
setupLanguageSwitch();
$('login-form').addEventListener('submit', onLogin);
$('logout').addEventListener('click', onLogout);
// Nothing is shown or said before the page's words are here (the server's HTML is already in the browser's language).
loadWords().then(() => {
  translatePage();
  setInterval(tick, 15000);
  checkSession();
});
