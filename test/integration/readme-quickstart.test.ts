import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually } from '../helpers/http.js';
import { README, ROOT, readmeBlocks as blocks, shellCommands as commands } from '../helpers/readme.js';
import { freePort } from '../helpers/redis-server.js';

// The README's quick start, run as written: `npm start` in the checkout (on a free PORT, the
// documented variable), the "Try it" lines typed one at a time into bash (with ASKGATE_URL, the
// documented variable), and `npm ci` in a copy of the manifest and lock (not over the checkout's
// node_modules, which other tests are using). `npm test` itself is what `.ci/run` runs.
const exec = promisify(execFile);

const [setup, tryIt] = blocks('## Quick start');

describe('README quick start', () => {
  let port: number;
  let server: ChildProcess;
  let serverOut = '';

  beforeAll(async () => {
    // The first command is `npm ci && npm start`; its `npm start` runs here, from the checkout.
    expect(commands(setup!).map((c) => c.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm start',
      'npm ci && npm test',
    ]);
    port = await freePort();
    server = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout!.on('data', (c: Buffer) => (serverOut += c.toString()));
    server.stderr!.on('data', (c: Buffer) => (serverOut += c.toString()));
    await eventually(async () => serverOut.includes(`askgate listening on http://127.0.0.1:${port}`), 30_000);
  }, 60_000);

  afterAll(async () => {
    if (server?.pid && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      process.kill(-server.pid, 'SIGTERM'); // npm and the askgate it started: the group this test spawned
      await exited;
    }
  });

  it('npm start prints where askgate listens and that the store is embedded', () => {
    expect(serverOut).toContain('store: memory (embedded: pending asks do not survive a restart');
  });

  it('the "Try it" lines, typed into bash one at a time, ask, answer, and the waiting ask prints the result and exits 0', async () => {
    const url = `http://127.0.0.1:${port}`;
    const lines = commands(tryIt!);
    expect(lines.some((l) => l.startsWith('npx askgate ask ') && l.includes('--wait &'))).toBe(true);
    expect(lines.some((l) => l.includes('| jq -r .current.id'))).toBe(true);
    const bash = spawn('bash', [], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    bash.stdout.on('data', (c: Buffer) => (out += c.toString()));
    bash.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const closed = new Promise((r) => bash.once('close', r));
    const api = client(url);
    for (const [i, line] of lines.entries()) {
      bash.stdin.write(`${line}\n`);
      if (line.trimEnd().endsWith('&')) {
        bash.stdin.write('asker=$!\n');
        // As a person would: the next line once the question is there.
        await eventually(async () => (await api.get('/v1/runs/demo')).body.current?.status === 'pending', 20_000);
      }
      bash.stdin.write(`printf '\\n__step_${i}__ %s\\n' $?\n`);
      await eventually(async () => out.includes(`__step_${i}__ `), 20_000);
      expect(out, `${line}\n${err}`).toContain(`__step_${i}__ 0\n`);
    }
    bash.stdin.end("printf '__id__ %s\\n' \"$id\"; wait $asker; printf '__ask_exit__ %s\\n' $?\n");
    await closed;
    const { body: run } = await api.get('/v1/runs/demo');
    expect(out).toContain(`__id__ ${run.current.id}\n`);
    expect(out, err).toContain('__ask_exit__ 0\n');
    // curl prints no newline, so the waiting ask's output may follow the record on the same line.
    const answered = /^\{"id":.*?\}(?=\{\n|$)/m.exec(out);
    expect(answered, out).not.toBeNull();
    expect(JSON.parse(answered![0])).toMatchObject({ id: run.current.id, status: 'answered' });
    const printed = /\{\n {2}"status"[\s\S]*?\n\}/.exec(out);
    expect(printed, out).not.toBeNull();
    expect(JSON.parse(printed![0])).toMatchObject({
      status: 'answered',
      answers: { q1: ['Staging'] },
      answeredBy: { channel: 'api' },
    });
    expect(run.history).toHaveLength(1);
  }, 60_000);
});

describe('README: npm ci', () => {
  it('installs the locked tree with no engine or install-script warning on this Node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'askgate-npm-ci-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, f), join(dir, f));
      // The machine's extra CA certificates stay (where TLS is intercepted npm retries each fetch without them).
      const { NODE_EXTRA_CA_CERTS } = process.env;
      const { stdout, stderr } = await exec('bash', ['-c', 'npm ci'], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(NODE_EXTRA_CA_CERTS && { NODE_EXTRA_CA_CERTS }) },
        timeout: 170_000,
      });
      expect(stdout + stderr).not.toMatch(/EBADENGINE|Unsupported engine/);
      // package.json's allowScripts decides each dependency's install script (README: Quick start).
      expect(stdout + stderr).not.toMatch(/install-scripts|allowScripts/);
      expect(existsSync(join(dir, 'node_modules/fastify/package.json'))).toBe(true);
      // Both denied scripts are unneeded: the binaries come from the optional per-platform packages.
      const probe = `const { transformSync } = require('esbuild'); const { isNativeAccelerationEnabled } = require('msgpackr');
        console.log(transformSync('let a: number = 1', { loader: 'ts' }).code.trim(), isNativeAccelerationEnabled);`;
      const { stdout: probed } = await exec(process.execPath, ['-e', probe], { cwd: dir });
      expect(probed.trim()).toBe('let a = 1; true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('README prerequisites', () => {
  it('quotes the error the browser tests really fail with when chromium is missing', async () => {
    const missing = join(tmpdir(), 'no-such-dir', 'chromium');
    const script = `const { launchBrowser } = await import('./test/browser/browser.ts'); await launchBrowser().catch((e) => console.log(e.message));`;
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, CHROMIUM_PATH: missing },
    });
    expect(README).toContain(`\`${stdout.trim().replace(missing, '/usr/bin/chromium')}\``);
  });
});

describe('README CLI synopsis', () => {
  it('lists the same commands and flags as askgate --help', async () => {
    const [synopsis] = blocks('## CLI');
    const { stdout: help } = await exec('npx', ['askgate', '--help'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    const commandsOf = (text: string) =>
      new Set([...text.matchAll(/^ *(askgate (?:serve|mcp|ask|--help))\b/gm)].map((m) => m[1]));
    const flagsOf = (text: string) =>
      new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]).filter((f) => f !== '--help'));
    expect(commandsOf(synopsis!)).toEqual(new Set(['askgate serve', 'askgate mcp', 'askgate ask', 'askgate --help']));
    expect(commandsOf(help)).toEqual(commandsOf(synopsis!));
    expect(flagsOf(help.slice(0, help.indexOf('Environment:')))).toEqual(flagsOf(synopsis!));
  });
});
