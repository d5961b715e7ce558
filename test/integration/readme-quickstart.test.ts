import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually } from '../helpers/http.js';
import { README, ROOT, readmeBlocks as blocks, shellCommands as commands } from '../helpers/readme.js';
import { freePort } from '../helpers/redis-server.js';
import { CONSOLE_LOCALES } from '../../src/console/i18n/index.js';

// The README's quick start, run as written: `npm start` in the checkout (on a free PORT, the
// documented variable), each "Try it" block pasted whole into bash (with ASKGATE_URL, the
// documented variable), and `npm ci` in a copy of the manifest and lock (not over the checkout's
// node_modules, which other tests are using). `npm test` itself is what `.ci/run` runs.
const exec = promisify(execFile);

/** The JSON the README shows in backticks right after `lead`, with its `, ...` (fields left out) removed. */
function documented(lead: string): Record<string, unknown> {
  const shown = new RegExp(`${lead}\\s*\`(\\{.*?\\})\``).exec(README.replace(/\n/g, ' '));
  expect(shown, lead).not.toBeNull();
  return JSON.parse(shown![1]!.replaceAll(', ...}', '}'));
}

const [setup, tryIt, curlOnly] = blocks('## Quick start');
let port: number;
let server: ChildProcess;
let serverOut = '';

beforeAll(async () => {
  // The first command is `npm ci && npm start`; its `npm start` runs here, from the checkout.
  expect(commands(setup!).map((c) => c.replace(/\s+#.*$/, ''))).toEqual(['npm ci && npm start', 'npm ci && npm test']);
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

/**
 * Runs `block` as one bash script, as a paste runs it, in the checkout with ASKGATE_URL set.
 * Once bash exits, whatever it left running in the background (its process group) is stopped.
 * A bash that has not exited after `guardMs` (a script that hangs) is stopped too: exit code null.
 */
async function pasted(block: string, guardMs = 45_000): Promise<{ code: number | null; out: string; err: string }> {
  const bash = spawn('bash', ['-c', block], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: `http://127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  bash.stdout.on('data', (c: Buffer) => (out += c.toString()));
  bash.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const closed = new Promise((r) => bash.once('close', r));
  let guard: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    new Promise<number | null>((r) => bash.once('exit', r)),
    new Promise<null>((r) => (guard = setTimeout(() => r(null), guardMs))),
  ]);
  clearTimeout(guard);
  try {
    process.kill(-bash.pid!, 'SIGTERM'); // the group this test spawned: bash and its background jobs
  } catch {
    // ESRCH: nothing of it is left
  }
  await closed;
  return { code, out, err };
}

describe('README quick start', () => {
  it('npm start prints where askgate listens and that the store is embedded', () => {
    expect(serverOut).toContain('store: memory (embedded: pending asks do not survive a restart');
  });

  it('the "Try it" block, pasted whole, asks, answers, and the waiting askgate prints the result and exits 0', async () => {
    const api = client(`http://127.0.0.1:${port}`);
    const { code, out, err } = await pasted(tryIt!);
    const { body: run } = await api.get('/v1/runs/demo');
    expect(run.history, out + err).toHaveLength(1);
    expect(code, out + err).toBe(0);
    // The answer call's record on its own line, then (or before it) the waiting askgate's result.
    const record = /^\{"id":.*\}/m.exec(out);
    expect(record, out).not.toBeNull();
    expect(JSON.parse(record![0])).toMatchObject({ id: run.current.id, status: 'answered' });
    const printed = /\{\n {2}"status"[\s\S]*?\n\}/.exec(out);
    expect(printed, out).not.toBeNull();
    const result = JSON.parse(printed![0]);
    expect(result).toMatchObject({ status: 'answered', answers: { q1: ['Staging'] }, answeredBy: { channel: 'api' } });
    expect(result).toMatchObject(documented('prints the result and exits 0:'));
  }, 60_000);

  it('the blocks to paste carry no comments (zsh, the macOS shell, runs a `#` as a word when interactive)', () => {
    for (const block of [tryIt!, curlOnly!]) expect(block).not.toMatch(/(^|\s)#/);
  });

  it('the curl-only block, pasted whole, creates an ask with no channel, answers it and prints the result', async () => {
    expect(curlOnly, 'a second block in the quick start').toBeDefined();
    const { code, out, err } = await pasted(curlOnly!);
    expect(code, out + err).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: 'answered', answers: { q1: ['Yes'] } });
    expect(JSON.parse(out)).toMatchObject(documented('then prints the result:'));
  }, 60_000);
});

/** GET `path` from the npm start server: status, headers and the body's length in bytes as sent (no decompression). */
function served(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; bytes: number }>((done, fail) => {
    const req = request(`http://127.0.0.1:${port}${path}`, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, bytes }));
    });
    req.on('error', fail).end();
  });
}

describe('README and docs/console.md: the web console as served', () => {
  const CONSOLE_DOC = readFileSync(join(ROOT, 'docs/console.md'), 'utf8');
  /** Each file a page load fetches in `tag`'s language: raw and gzip bytes as served. */
  async function pageLoad(tag: string) {
    const files = ['/', '/console/app.css', '/console/app.js', '/console/icon.svg', `/console/i18n/${tag}.json`];
    const sizes = await Promise.all(
      files.map(async (path) => {
        const language = { 'accept-language': tag };
        const raw = await served(path, language);
        const gzip = await served(path, { ...language, 'accept-encoding': 'gzip' });
        expect(gzip.headers['content-encoding'], path).toBe('gzip');
        return [raw.bytes / 1000, gzip.bytes / 1000] as const;
      }),
    );
    const total = sizes.reduce(([r, g], [fr, fg]) => [r + fr, g + fg] as const, [0, 0] as const);
    return { html: sizes[0]!, css: sizes[1]!, js: sizes[2]!, icon: sizes[3]!, words: sizes[4]!, total };
  }
  /** A quoted KB figure is true within 5 %, or the 0.05 KB of its rounding to one decimal. */
  const close = (quoted: number, measured: number, what: string) =>
    expect(Math.abs(quoted - measured), `${what}: ${quoted} KB quoted, ${measured} KB served`).toBeLessThanOrEqual(
      Math.max(measured * 0.05, 0.05),
    );

  it('quotes the page load sizes that askgate serves, raw and gzip, in English and the largest language', async () => {
    const loads = await Promise.all(
      [...CONSOLE_LOCALES.keys()].map(async (tag) => ({ tag, ...(await pageLoad(tag)) })),
    );
    const english = loads.find((l) => l.tag === 'en')!;
    const largest = loads.reduce((a, b) => (b.total[0] > a.total[0] ? b : a));
    expect(largest.tag).toBe('ja'); // the doc names it
    const quoted =
      /a page load is about ([\d.]+) KB of plain HTML, CSS and JavaScript with the largest language's words, ([\d.]+) KB as served gzipped/.exec(
        README.replace(/\s+/g, ' '),
      );
    expect(quoted, 'README web console sentence').not.toBeNull();
    close(Number(quoted![1]), largest.total[0], 'README raw');
    close(Number(quoted![2]), largest.total[1], 'README gzip');
    // docs/console.md: | <what> | <raw> | <gzip> |, each cell one figure or "English / Japanese".
    const rows = [
      ...CONSOLE_DOC.matchAll(/^\| (?:\*\*)?(the page|CSS|JavaScript|icon|one language's words|Total)\b.*$/gm),
    ];
    expect(rows.map((r) => r[1])).toEqual(['the page', 'CSS', 'JavaScript', 'icon', "one language's words", 'Total']);
    const key = {
      'the page': 'html',
      CSS: 'css',
      JavaScript: 'js',
      icon: 'icon',
      "one language's words": 'words',
      Total: 'total',
    } as const;
    for (const [line, name] of rows) {
      const [, raw, gzip] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => [...cell.matchAll(/\d+(?:\.\d+)?(?= (?:\/|KB))/g)].map(Number));
      const field = key[name as keyof typeof key];
      for (const [column, figures] of [
        [0, raw!],
        [1, gzip!],
      ] as const) {
        const measured =
          figures.length === 2 ? [english[field][column], largest[field][column]] : [english[field][column]];
        expect(figures.length, line).toBe(measured.length);
        figures.forEach((figure, i) => close(figure, measured[i]!, `${name} ${column ? 'gzip' : 'raw'}`));
      }
    }
  });

  it('names every header the console routes send, with its value', async () => {
    const doc = CONSOLE_DOC.replace(/\s+/g, ' ').toLowerCase();
    const page = await served('/');
    expect(page.headers['etag']).toBeTruthy();
    expect((await served('/', { 'if-none-match': page.headers['etag'] as string })).status).toBe(304);
    const transport = ['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'etag', 'vary'];
    for (const path of ['/', '/console/app.js', '/console/session']) {
      const { headers } = await served(path);
      for (const [name, value] of Object.entries(headers)) {
        if (transport.includes(name)) continue;
        expect(doc, `${path}: ${name}: ${value}`).toContain(`\`${name}: ${value}\``.toLowerCase());
      }
    }
  });
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
      new Set([...text.matchAll(/^ *(askgate (?:serve|mcp|ask|wait|--help))\b/gm)].map((m) => m[1]));
    const flagsOf = (text: string) =>
      new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]).filter((f) => f !== '--help'));
    expect(commandsOf(synopsis!)).toEqual(
      new Set(['askgate serve', 'askgate mcp', 'askgate ask', 'askgate wait', 'askgate --help']),
    );
    expect(commandsOf(help)).toEqual(commandsOf(synopsis!));
    expect(flagsOf(help.slice(0, help.indexOf('Environment:')))).toEqual(flagsOf(synopsis!));
  });
});
