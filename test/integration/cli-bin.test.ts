import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The `askgate` command as users run it: through the node_modules/.bin symlink npm creates,
// `npx askgate` from the checkout, and an `npm pack`ed package installed into another project.
const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
let tmp: string;
const env = { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: 'http://127.0.0.1:9' };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(file: string, args: string[], cwd: string): Promise<Ran> {
  try {
    const { stdout, stderr } = await exec(file, args, { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Lays out `node_modules/.bin/askgate` as npm links a bin: a relative symlink to the package's bin file. */
function linkBin(project: string, packageDir: string): string {
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  const link = join(project, 'node_modules/.bin/askgate');
  symlinkSync(join(packageDir, 'bin/askgate.js'), link);
  return link;
}

/** Speaks MCP to `askgate mcp` on stdio: initialize, initialized, tools/list; then closes stdin. */
async function mcpRoundTrip(file: string, args: string[], cwd: string) {
  const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const reply = async (id: number) => {
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const line = out.split('\n').find((l) => l.includes(`"id":${id}`));
      if (line) return JSON.parse(line) as { result: Record<string, any> };
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no MCP reply ${id}; stdout: ${out} stderr: ${err}`);
  };
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  const init = await reply(1);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  const tools = await reply(2);
  child.stdin.end();
  const code = await exited;
  return { init: init.result, tools: tools.result.tools as { name: string }[], code, stdout: out, stderr: err };
}

const expectUsage = (r: Ran) => {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('Usage:');
  expect(r.stdout).toMatch(/^ {2}askgate mcp /m);
  expect(r.stdout).toMatch(/^ {2}askgate ask --run/m);
};

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'askgate-bin-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the askgate bin of the checkout', () => {
  let link: string;
  beforeAll(() => {
    link = linkBin(join(tmp, 'linked'), ROOT);
  });

  it('prints the usage through a node_modules/.bin symlink, from another directory', async () => {
    expectUsage(await run(link, ['--help'], tmp));
    expectUsage(await run(link, [], tmp));
  });

  it('npx askgate --help from the checkout prints the usage and exits 0', async () => {
    expectUsage(await run('npx', ['askgate', '--help'], ROOT));
  });

  it('an unknown command is a usage error on stderr (exit 2), nothing on stdout', async () => {
    const r = await run(link, ['srve\u202e'], tmp);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown command "srve\\u202e"');
    expect(r.stderr).toContain('Usage:');
  });

  it('askgate mcp speaks MCP on stdio through the symlink (initialize, tools/list) and exits 0 when stdin closes', async () => {
    const r = await mcpRoundTrip(link, ['mcp'], tmp);
    expect(r.init).toMatchObject({ serverInfo: { name: 'askgate' }, capabilities: { tools: {} } });
    expect(r.tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    expect(r.code).toBe(0);
  });

  it('node /path/to/askgate/bin/askgate.js mcp works from any directory (docs/integrations.md, from a checkout)', async () => {
    const r = await mcpRoundTrip(process.execPath, [join(ROOT, 'bin/askgate.js'), 'mcp'], tmp);
    expect(r.init).toMatchObject({ serverInfo: { name: 'askgate' } });
  });

  it('tsx src/cli.ts and a symlink to it still run main (the entry check compares real paths)', async () => {
    const alias = join(tmp, 'cli-alias.ts');
    symlinkSync(join(ROOT, 'src/cli.ts'), alias);
    expectUsage(await run(process.execPath, ['--import', 'tsx', alias, '--help'], ROOT));
    expectUsage(await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--help'], ROOT));
  });
});

describe('the packed package installed into a project', () => {
  let project: string;
  let files: string[];
  let link: string;

  beforeAll(async () => {
    project = join(tmp, 'project');
    // npm pack in a copy of the checkout: prepack builds dist/ there, not in the working tree.
    const stage = join(tmp, 'stage');
    for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'src', 'bin'])
      cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'));
    const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', tmp], {
      cwd: stage,
      env,
      timeout: 120_000,
    });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: { path: string; mode: number }[];
    }[];
    files = packed!.files.map((f) => f.path);
    expect(packed!.files.find((f) => f.path === 'bin/askgate.js')!.mode & 0o111).toBeTruthy();
    // Installed as npm would: unpacked under node_modules/askgate with its bin linked. Its
    // dependencies are the checkout's (an offline npm install cannot resolve them without a registry).
    const pkg = join(project, 'node_modules/askgate');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'agent-project', private: true, dependencies: { askgate: '0.1.0' } }),
    );
    await exec('tar', ['xzf', join(tmp, packed!.filename), '-C', pkg, '--strip-components=1']);
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    // Prove the installed bin runs the compiled code, not the shipped TypeScript.
    rmSync(join(pkg, 'src'), { recursive: true });
    link = linkBin(project, pkg);
  }, 180_000);

  it('ships the bin and the compiled CLI, not the checkout-only tsconfig', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/askgate.js',
        'dist/cli.js',
        'dist/client/index.js',
        'dist/mcp/stdio.js',
        'package.json',
        'README.md',
      ]),
    );
    expect(files).not.toContain('tsconfig.json');
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules/askgate/package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ askgate: 'bin/askgate.js' });
  });

  it('askgate --help through node_modules/.bin prints the usage and exits 0', async () => {
    expectUsage(await run(link, ['--help'], project));
  });

  it('npx askgate mcp (the command of `claude mcp add … -- npx askgate mcp`) speaks MCP', async () => {
    const r = await mcpRoundTrip('npx', ['askgate', 'mcp'], project);
    expect(r.init).toMatchObject({ serverInfo: { name: 'askgate' } });
    expect(r.tools.map((t) => t.name)).toEqual(['ask_user', 'await_answer', 'request_approval']);
    expect(r.code).toBe(0);
  });
});
