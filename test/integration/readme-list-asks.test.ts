import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';

// The README's "Listing pending asks" commands, run as written in bash against a running askgate
// with a token (ASKGATE_URL and ASKGATE_API_TOKEN set, as the README says).
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const TOKEN = 'readme-list-token-0123456789';
const exec = promisify(execFile);

/** The one shell block of the README section `heading`. */
function block(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = README.indexOf('\n### ', start + heading.length + 2);
  const blocks = [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

let app: RunningAskgate;
const ids: string[] = [];

beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }), [new RecordingChannel('telegram')]);
  const api = client(app.url, TOKEN);
  for (const [runId, to] of [
    ['first', { channel: 'telegram', chat: '42' }],
    ['demo', undefined],
    ['third', { channel: 'telegram', chat: '43' }],
  ] as const) {
    const r = await api.post('/v1/asks', askBody(runId, { timeoutSeconds: 600, ...(to ? { to } : {}) }));
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
});
afterAll(async () => {
  await app?.close();
});

describe('README: Listing pending asks', () => {
  it('the block runs as written in bash: two pages, the run filter and askgate list', async () => {
    const script = block('### Listing pending asks');
    expect(script).toContain('/v1/asks?status=pending&limit=2"');
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      timeout: 60_000,
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(new RegExp(`^${ids[0]} first \\d{4}-\\d\\d-\\d\\dT`));
    expect(lines[1]).toMatch(new RegExp(`^${ids[1]} demo `));
    expect(lines.slice(2)).toEqual([ids[2], ids[1], ids[0], ids[2]]);
  }, 90_000);
});

describe('askgate list', () => {
  const cli = async (args: string[]) =>
    exec(process.execPath, ['bin/askgate.js', 'list', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('pages with --limit and --cursor, filters with --run', async () => {
    const first = await cli(['--limit', '2']);
    expect(first.code).toBe(0);
    const page = JSON.parse(first.stdout) as { asks: { id: string }[]; nextCursor: string };
    expect(page.asks.map((a) => a.id)).toEqual(ids.slice(0, 2));
    const next = JSON.parse((await cli(['--limit', '2', '--cursor', page.nextCursor])).stdout);
    expect(next).toMatchObject({ asks: [{ id: ids[2] }], nextCursor: null });
    expect(JSON.parse((await cli(['--run', 'demo'])).stdout).asks.map((a: { id: string }) => a.id)).toEqual([ids[1]]);
  });

  it('a bad argument exits 2 and says why on stderr; a wrong token exits 1', async () => {
    const bad = await cli(['--limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('query parameter limit: must be at least 1');
    expect((await cli(['--owner', 'x'])).code).toBe(2);
    const badAgent = await cli(['--agent', 'a\u0007b']);
    expect(badAgent.code).toBe(2);
    expect(badAgent.stderr).toContain('query parameter agent');
    const denied = await exec(process.execPath, ['bin/askgate.js', 'list'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: 'wrong-token-0123456789' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(denied).toMatchObject({ code: 1 });
  });
});
