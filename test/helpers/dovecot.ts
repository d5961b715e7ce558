// A private Dovecot IMAP server for the email channel's polling tests, started like redis-server:
// its own config, base_dir, state and maildirs in a temp dir, a free loopback port, no TLS, one
// user in a passwd-file. Never the system service; only the pid started here is stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { ImapFlow } from 'imapflow';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';
import { sleep } from './wait.js';

/** Where Debian's dovecot-imapd installs the server. */
/** An IMAP client of `dovecot`'s mailbox, not yet connected: the mail provider's side (appending replies) in tests. */
export function mailboxClient(dovecot: TestDovecot): ImapFlow {
  return new ImapFlow({
    host: '127.0.0.1',
    port: dovecot.port,
    secure: false,
    auth: { user: dovecot.user, pass: dovecot.password },
    logger: false,
  });
}

export const DOVECOT_BIN = '/usr/sbin/dovecot';

/** A running private Dovecot. */
export interface TestDovecot {
  port: number;
  user: string;
  password: string;
  /** `imap://user:password@127.0.0.1:port/INBOX`. */
  url: string;
  /** Stops the server (SIGTERM to its pid) and removes its directory. */
  dispose(): Promise<void>;
}

/**
 * The config: `base_dir`/`state_dir` in the temp dir (no clash with a system instance), logins
 * without TLS on loopback, chroot off. As root, Dovecot's own users run its processes (Debian creates
 * `dovecot` and `dovenull`) and mail belongs to `nobody`; otherwise everything runs as the caller.
 */
function config(dir: string, port: number, root: boolean, mailUid: number, mailGid: number): string {
  const me = userInfo().username;
  return `base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = askgate-test-${port}
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = 1
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailUid} gid=${mailGid} home=${dir}/mail/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`;
}

/** Resolves when the port accepts a connection and greets (`* OK`). */
async function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500, () => (socket.destroy(), resolve(false)));
    socket.once('data', (d) => (socket.destroy(), resolve(d.toString().startsWith('* OK'))));
    socket.once('error', () => resolve(false));
  });
}

/** Starts Dovecot in the foreground (`-F`) with a private config and waits until it greets. */
export async function startDovecot(): Promise<TestDovecot> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'askgate-dovecot-'));
  chmodSync(dir, 0o755);
  const root = process.getuid?.() === 0;
  const mailUid = root ? 65534 : process.getuid!();
  const mailGid = root ? 65534 : process.getgid!();
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub));
  if (root) chownSync(join(dir, 'mail'), mailUid, mailGid);
  const user = 'askgate';
  const password = 'imap-test-password';
  writeFileSync(join(dir, 'passwd'), `${user}:{PLAIN}${password}::::::\n`);
  writeFileSync(join(dir, 'dovecot.conf'), config(dir, port, root, mailUid, mailGid));
  const child: ChildProcess = spawn(DOVECOT_BIN, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = Date.now() + 10_000;
  while (!(await greets(port))) {
    if (child.exitCode !== null || Date.now() > end) {
      const log = (() => {
        try {
          return readFileSync(join(dir, 'dovecot.log'), 'utf8');
        } catch {
          return '(no log)';
        }
      })();
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`dovecot did not start: ${log.slice(-2000)}`);
    }
    await sleep(50);
  }
  return {
    port,
    user,
    password,
    url: `imap://${user}:${password}@127.0.0.1:${port}/INBOX`,
    async dispose() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(5000)]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
