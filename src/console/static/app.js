/** Browser module, start-up: the entry of the console's script (console/assets.ts serves it last). */
import { $, restoreOperator } from './app-core.js';
import { checkSession, onLogin, onLogout } from './app-session.js';
import { tick } from './app-pending.js';

restoreOperator();
$('login-form').addEventListener('submit', onLogin);
$('logout').addEventListener('click', onLogout);
setInterval(tick, 15000);
checkSession();
