import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { README, ROOT, readmeBlocks, shellCommands } from '../helpers/readme.js';

// README "A supported Node": its lines run as written in bash, in the checkout, on a machine whose
// `node` is too old (a stand-in that reports v20.19.0 and otherwise runs this Node, so the
// machine's npm still works), with a private cache folder (XDG_CACHE_HOME).
const exec = promisify(execFile);
const [lines] = readmeBlocks('## A supported Node');
const script = readFileSync(join(ROOT, '.ci/supported-node'), 'utf8');
const version = /^version=(\d+\.\d+\.\d+)/m.exec(script)?.[1];
const work = mkdtempSync(join(tmpdir(), 'askgate-node-'));
const cache = join(work, 'cache');
const bin = `${cache}/askgate/node-${version}/node_modules/node-linux-${process.arch}/bin`;

/** A folder whose `node --version` says `reported`; anything else runs this test's Node. */
function nodeReporting(reported: string): string {
  const dir = join(work, `node-${reported}`);
  mkdirSync(dir, { recursive: true });
  const node = join(dir, 'node');
  writeFileSync(
    node,
    `#!/bin/sh\n[ "$1" = --version ] && { echo ${reported}; exit 0; }\nexec "${process.execPath}" "$@"\n`,
  );
  chmodSync(node, 0o755);
  return dir;
}

/** The README's lines in one bash, with `nodeDir` first on the PATH; stdout and stderr. */
async function runLines(nodeDir: string, cacheDir = cache) {
  const env = { ...process.env, PATH: `${nodeDir}:${process.env.PATH}`, XDG_CACHE_HOME: cacheDir };
  return exec('bash', ['-euc', shellCommands(lines!).join('\n')], { cwd: ROOT, env, timeout: 170_000 });
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('README: a supported Node', () => {
  it('names the version the helper installs, and .ci/run and the prerequisites use the same line', () => {
    expect(version).toMatch(/^24\./);
    expect(README).toContain(`installs Node ${version} once`);
    expect(README).toContain(`askgate/node-${version}\``);
    const [first] = shellCommands(lines!);
    const line = first!.replace(/\s+#.*$/, '');
    expect(line).toBe('export PATH="$(.ci/supported-node)$PATH"');
    expect(README).toContain(`Node 22.12+ (24 recommended) and npm`);
    expect(README).toContain(`\`${line}\``);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(
      /node_bin=\$\(\.ci\/supported-node\).*\nexport PATH="\$node_bin\$PATH"/,
    );
  });

  it('on a machine with Node 20, installs Node 24 into the cache folder once and puts it first', async () => {
    const old = nodeReporting('v20.19.0');
    const first = await runLines(old);
    expect(first.stdout.trim()).toBe(`v${version}`);
    expect(first.stderr).toContain(`installing Node ${version} into ${cache}/askgate/node-${version}`);
    expect(existsSync(join(bin, 'node'))).toBe(true);
    const again = await runLines(old);
    expect(again.stdout.trim()).toBe(`v${version}`);
    expect(again.stderr).toBe(''); // reused
    for (const reported of ['v22.11.0', 'v23.5.0', 'v25.1.0']) {
      const { stdout, stderr } = await exec(join(ROOT, '.ci/supported-node'), [], {
        env: { ...process.env, PATH: `${nodeReporting(reported)}:${process.env.PATH}`, XDG_CACHE_HOME: cache },
      });
      expect({ reported, stdout, stderr }).toEqual({ reported, stdout: `${bin}:`, stderr: '' });
    }
  }, 180_000);

  it('keeps a supported node as it is, without installing anything', async () => {
    const untouched = join(work, 'untouched-cache');
    for (const reported of ['v22.12.0', 'v24.0.0', 'v26.1.0']) {
      const { stdout, stderr } = await runLines(nodeReporting(reported), untouched);
      expect({ reported, stdout: stdout.trim(), stderr }).toEqual({ reported, stdout: reported, stderr: '' });
    }
    expect(existsSync(untouched)).toBe(false);
  }, 60_000);
});
