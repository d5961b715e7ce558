import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { README, ROOT } from '../helpers/readme.js';

// The README's "Typed questions" block, run as written in bash against a running askgate with a token.
const TOKEN = 'readme-typed-token-0123456789';
const exec = promisify(execFile);

let app: RunningAskgate;
beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }));
});
afterAll(async () => {
  await app?.close();
});

describe('README: Typed questions', () => {
  it('the block runs as written: a bad value is a 400 naming the form, the good one answers with typed values', async () => {
    const heading = '\n### Typed questions\n';
    const start = README.indexOf(heading);
    expect(start).toBeGreaterThan(-1);
    const end = README.indexOf('\n### ', start + heading.length);
    const blocks = [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', blocks[0]!], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      timeout: 60_000,
    });
    expect(stdout.trim().split('\n')).toEqual([
      'must be a whole number between 1 and 10, written like 42 or -3.5',
      '{"replicas":3,"day":"2026-12-08"}',
    ]);
  }, 90_000);
});
