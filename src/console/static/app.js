/** Browser module, start-up: the entry of the console's script (console/assets.ts serves it last). */
import { $, checkSession, onLogin, onLogout, restoreOperator } from './app-core.js';
import { tick } from './app-pending.js';

restoreOperator();
$('login-form').addEventListener('submit', onLogin);
$('logout').addEventListener('click', onLogout);
setInterval(tick, 15000);
checkSession();
